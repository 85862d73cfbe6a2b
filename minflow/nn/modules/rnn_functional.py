"""The recurrent functions of the torch namespace (torch.lstm, gru, rnn_tanh, rnn_relu and
their *_cell forms): the raw forms nn.LSTM / nn.GRU / nn.RNN call, taking the weights as one
flat list. They run the layers' own loop (rnn.run_layers), so values and gradients are
the modules'.
"""
from ...core.functional import public
from ...core.namespace import F
from ...core.tensor import Tensor
from .rnn import _gru_step, _lstm_step, _step_of, run_layers

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell",
           "rnn_relu_cell"]


def _weights(name, params, has_biases, num_layers, bidirectional):
    """(w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction from torch's flat list: 2 or
    4 tensors each (with biases), plus w_hr for an LSTM with projections."""
    params = list(params)
    per = 4 if has_biases else 2
    count = num_layers * (2 if bidirectional else 1)
    if len(params) == count * per:
        projected = False
    elif name == "lstm" and len(params) == count * (per + 1):
        projected = True
    else:
        raise RuntimeError(f"{name}: expected {count * per} weights ({per} per layer and "
                           f"direction; an lstm with projections one more each), got "
                           f"{len(params)}")
    step = per + projected
    weights = []
    for i in range(count):
        group = params[i * step:(i + 1) * step]
        biases = tuple(group[2:4]) if has_biases else (None, None)
        weights.append((group[0], group[1], *biases, group[-1] if projected else None))
    return weights


def _run(name, mode, input, states, params, has_biases, num_layers, dropout, train,
         bidirectional, batch_first):
    if not isinstance(input, Tensor) or input.ndim != 3:
        got = input.ndim if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"{name}: expected a 3-D input (time, batch, features), got {got}")
    directions = 2 if bidirectional else 1
    weights = _weights(name, params, has_biases, num_layers, bidirectional)
    if batch_first:
        input = F.transpose(input, 0, 1)
    output, finals = run_layers(mode, input, list(states), weights, directions,
                                dropout if train else 0.0)
    if batch_first:
        output = F.transpose(output, 0, 1)
    return (output, *finals)


@public
def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    """lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first) -> (output, h_n, c_n)

    nn.LSTM's computation with its weights given as one list (per layer and direction:
    weight_ih, weight_hh, then bias_ih, bias_hh with ``has_biases``, then weight_hr with
    projections); ``hx`` is (h_0, c_0); ``dropout`` between layers when ``train``.

    >>> x, h = minflow.ones(5, 2, 3), minflow.zeros(1, 2, 4)
    >>> params = [minflow.ones(16, 3), minflow.ones(16, 4)]
    >>> [tuple(t.shape) for t in minflow.lstm(x, (h, h), params, False, 1, 0.0, False, False,
    ...                                        False)]
    [(5, 2, 4), (1, 2, 4), (1, 2, 4)]
    """
    if not (isinstance(hx, (list, tuple)) and len(hx) == 2):
        raise RuntimeError(f"lstm: expected hx to be a pair (h_0, c_0), got {type(hx).__name__}")
    return _run("lstm", "LSTM", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def _one_state(name, mode, input, hx, *options):
    if not isinstance(hx, Tensor):
        raise TypeError(f"{name}(): argument 'hx' must be Tensor, not {type(hx).__name__}")
    return _run(name, mode, input, [hx], *options)


@public
def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first) -> (output, h_n): nn.GRU's computation, weights as in ``lstm``.

    >>> x, h = minflow.ones(5, 2, 3), minflow.zeros(1, 2, 4)
    >>> out, h_n = minflow.gru(x, h, [minflow.ones(12, 3), minflow.ones(12, 4)], False, 1,
    ...                        0.0, False, False, False)
    >>> out.shape, h_n.shape
    (minflow.Size([5, 2, 4]), minflow.Size([1, 2, 4]))
    """
    return _one_state("gru", "GRU", input, hx, params, has_biases, num_layers,
                      dropout, train, bidirectional, batch_first)


@public
def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first) -> (output, h_n): nn.RNN's (tanh) computation, weights as in ``lstm``.

    >>> out, h_n = minflow.rnn_tanh(minflow.ones(2, 1, 1), minflow.zeros(1, 1, 1),
    ...                             [minflow.ones(1, 1) * 0.5, minflow.ones(1, 1)], False, 1,
    ...                             0.0, False, False, False)
    >>> [round(v, 4) for v in out.flatten().tolist()]
    [0.4621, 0.7452]
    """
    return _one_state("rnn_tanh", "RNN_TANH", input, hx, params, has_biases, num_layers,
                      dropout, train, bidirectional, batch_first)


@public
def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first) -> (output, h_n): nn.RNN's (relu) computation, weights as in ``lstm``.

    >>> out, h_n = minflow.rnn_relu(minflow.ones(2, 1, 1), minflow.zeros(1, 1, 1),
    ...                             [minflow.ones(1, 1), minflow.ones(1, 1)], False, 1, 0.0,
    ...                             False, False, False)
    >>> out.flatten().tolist()
    [1.0, 2.0]
    """
    return _one_state("rnn_relu", "RNN_RELU", input, hx, params, has_biases, num_layers,
                      dropout, train, bidirectional, batch_first)


def _cell(name, step, input, states, w_ih, w_hh, b_ih, b_hh):
    for what, t in (("input", input), *(("hx", s) for s in states)):
        if not isinstance(t, Tensor) or t.ndim != 2:
            got = t.ndim if isinstance(t, Tensor) else type(t).__name__
            raise RuntimeError(f"{name}: expected {what} to be a 2-D (batch, features) tensor, "
                               f"got {got}")
    return step(F.linear(input, w_ih, b_ih), *states, w_hh, b_hh)


@public
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> (h', c')

    One LSTM step (nn.LSTMCell's) from ``hx`` = (h, c), all 2-D.

    >>> h, c = minflow.lstm_cell(minflow.ones(2, 3), (minflow.zeros(2, 4), minflow.zeros(2, 4)),
    ...                          minflow.ones(16, 3), minflow.ones(16, 4))
    >>> h.shape, c.shape
    (minflow.Size([2, 4]), minflow.Size([2, 4]))
    """
    if not (isinstance(hx, (list, tuple)) and len(hx) == 2):
        raise RuntimeError(f"lstm_cell: expected hx to be a pair (h, c), got "
                           f"{type(hx).__name__}")
    return tuple(_cell("lstm_cell", _lstm_step, input, hx, w_ih, w_hh, b_ih, b_hh))


@public
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor: one GRU step.

    >>> minflow.gru_cell(minflow.ones(2, 3), minflow.zeros(2, 4), minflow.ones(12, 3),
    ...                  minflow.ones(12, 4)).shape
    minflow.Size([2, 4])
    """
    return _cell("gru_cell", _gru_step, input, [hx], w_ih, w_hh, b_ih, b_hh)[0]


@public
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh).

    >>> minflow.rnn_tanh_cell(minflow.zeros(1, 3), minflow.zeros(1, 4), minflow.ones(4, 3),
    ...                       minflow.ones(4, 4)).tolist()
    [[0.0, 0.0, 0.0, 0.0]]
    """
    return _cell("rnn_tanh_cell", _step_of("RNN_TANH"), input, [hx], w_ih, w_hh, b_ih,
                 b_hh)[0]


@public
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    relu(input w_ih^T + b_ih + hx w_hh^T + b_hh).

    >>> minflow.rnn_relu_cell(minflow.ones(1, 1), minflow.ones(1, 1), minflow.ones(1, 1),
    ...                       -minflow.ones(1, 1) * 2).tolist()
    [[0.0]]
    """
    return _cell("rnn_relu_cell", _step_of("RNN_RELU"), input, [hx], w_ih, w_hh, b_ih,
                 b_hh)[0]
