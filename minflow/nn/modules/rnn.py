"""Recurrent layers: RNN, LSTM and GRU (multi-layer, bidirectional) and their cells.

Composites of differentiable ops (linear, sigmoid, tanh, chunk, stack), so they need no
grad code of their own. The input projection x W_ih^T + b_ih runs once for the whole
sequence; the recurrence is a Python loop over time steps (clear, not fast: this is a
teaching runtime, with no fused cuDNN-style kernel). Parameter names, shapes, init and
gate order (LSTM: i, f, g, o; GRU: r, z, n) are PyTorch's, so state_dicts load both ways.
"""
import math
import numbers
import warnings

from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.infer import check_tensor
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pad_packed_sequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ---- one time step of each cell: (input projection, state, weights) -> new state ------

def _rnn_step(activation):
    def step(x_proj, h, w_hh, b_hh):
        return (activation(F.add(x_proj, F.linear(h, w_hh, b_hh))),)
    return step


def _lstm_step(x_proj, h, c, w_hh, b_hh):
    """c' = f c + i g, h' = o tanh(c'), gates (i, f, g, o) from x W_ih + h W_hh (+ biases)."""
    i, f, g, o = F.chunk(F.add(x_proj, F.linear(h, w_hh, b_hh)), 4, -1)
    c = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
    return F.mul(F.sigmoid(o), F.tanh(c)), c


def _gru_step(x_proj, h, w_hh, b_hh):
    """h' = (1 - z) n + z h, n = tanh(x_n + r (h W_hn + b_hn)), r and z sigmoids."""
    x_r, x_z, x_n = F.chunk(x_proj, 3, -1)
    h_r, h_z, h_n = F.chunk(F.linear(h, w_hh, b_hh), 3, -1)
    r, z = F.sigmoid(F.add(x_r, h_r)), F.sigmoid(F.add(x_z, h_z))
    n = F.tanh(F.add(x_n, F.mul(r, h_n)))
    return (F.add(n, F.mul(z, F.sub(h, n))),)


def _step_of(mode, w_hr=None):
    """The step function of ``mode``; an LSTM with projections (``w_hr``) returns
    h' = (o tanh(c')) W_hr^T."""
    if w_hr is not None:
        def projected(x_proj, h, c, w_hh, b_hh):
            h, c = _lstm_step(x_proj, h, c, w_hh, b_hh)
            return F.linear(h, w_hr), c
        return projected
    return {"RNN_TANH": _rnn_step(F.tanh), "RNN_RELU": _rnn_step(F.relu), "LSTM": _lstm_step,
            "GRU": _gru_step}[mode]


def run_direction(step, x_proj, states, w_hh, b_hh, reverse, active):
    """Run ``step`` over the time steps of ``x_proj`` (T, B, gates): (outputs, final
    states). Where ``active[t]`` (B, 1) is False (a packed sequence already ended, or not
    yet begun in reverse) the state is kept."""
    outputs = []
    for t in (reversed if reverse else iter)(range(x_proj.shape[0])):
        new = step(x_proj[t], *states, w_hh, b_hh)
        states = new if active is None else [F.where(active[t], n, s)
                                             for n, s in zip(new, states)]
        outputs.append(states[0])
    if reverse:
        outputs.reverse()
    return F.stack(outputs, 0), states


def run_layers(mode, input, states, weights, directions, dropout, active=None):
    """Every layer and direction of an RNN of ``mode`` over ``input`` (T, B, H_in): (output,
    final states). ``weights``: (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction
    (layer 0, its reverse, layer 1...); ``states``: h_0 (and c_0), (layers * directions, B,
    H); ``dropout`` between layers (0: none)."""
    finals = [[] for _ in states]
    layer_input = input
    num_layers = len(weights) // directions
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            index = layer * directions + d
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[index]
            out, last = run_direction(_step_of(mode, w_hr), F.linear(layer_input, w_ih, b_ih),
                                      [s[index] for s in states], w_hh, b_hh, d == 1, active)
            outputs.append(out)
            for final, s in zip(finals, last):
                final.append(s)
        layer_input = outputs[0] if directions == 1 else F.cat(outputs, -1)
        if dropout and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout)
    return layer_input, [F.stack(f, 0) for f in finals]


def _check_size(module, name, tensor, expected):
    if tuple(tensor.shape) != tuple(expected):
        raise RuntimeError(f"{module}: Expected {name} size {tuple(expected)}, got "
                           f"{list(tensor.shape)}")


def _check_sizes(name, proj_size=0, **sizes):
    """Each of ``sizes`` a positive int, and proj_size an int in [0, hidden_size), as torch
    checks them (TypeError for a non-int, ValueError for a bad value)."""
    for arg, value in dict(sizes, proj_size=proj_size).items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: {arg} should be of type int, got: "
                            f"{type(value).__name__}")
        if value <= 0 and arg != "proj_size":
            raise ValueError(f"{name}: {arg} must be greater than zero, got {value}")
    if proj_size < 0:
        raise ValueError(f"{name}: proj_size should be a positive integer or zero to disable "
                         f"projections, got {proj_size}")
    if proj_size >= sizes.get("hidden_size", proj_size + 1):
        raise ValueError(f"{name}: proj_size has to be smaller than hidden_size, got "
                         f"proj_size={proj_size} and hidden_size={sizes['hidden_size']}")


class RNNBase(Module):
    """The shared part of RNN, LSTM and GRU: arguments, parameters, init, repr, the loop.

    >>> lstm = minflow.nn.LSTM(4, 8, num_layers=2)
    >>> isinstance(lstm, minflow.nn.RNNBase), [tuple(p.shape) for p in lstm.parameters()][:2]
    (True, [(32, 4), (32, 8)])
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError(f"{name}: dropout should be a number in range [0, 1] representing "
                             f"the probability of an element being zeroed, got {dropout!r}")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        for arg, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name}: {arg} should be of type bool, got: "
                                f"{type(value).__name__}")
        _check_sizes(name, proj_size, input_size=input_size, hidden_size=hidden_size,
                     num_layers=num_layers)
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        out_size = proj_size or hidden_size         # the size of h (and of each output)
        kw = {"device": device, "dtype": dtype}
        self._all_weights = []          # the parameter names per layer and direction
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else out_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = [f"{param}_l{layer}{suffix}" for param, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(F.empty(*shape, **kw)))
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        """The parameters as a list per layer and direction (layer 0, its reverse, layer
        1, ...): [weight_ih, weight_hh, bias_ih, bias_hh, weight_hr] as present.

        >>> [[tuple(w.shape) for w in ws] for ws in minflow.nn.GRU(2, 3).all_weights]
        [[(9, 2), (9, 3), (9,), (9,)]]
        """
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op, for scripts written for cuDNN: minflow keeps no fused weight buffer."""

    def _weights(self, layer, suffix):
        get = lambda name: getattr(self, f"{name}_l{layer}{suffix}")  # noqa: E731
        biases = (get("bias_ih"), get("bias_hh")) if self.bias else (None, None)
        w_hr = get("weight_hr") if self.proj_size else None
        return get("weight_ih"), get("weight_hh"), biases[0], biases[1], w_hr

    def _state_shapes(self, batch):
        """The shapes of h_0 (and c_0): (layers * directions, N, H_out) and (..., H)."""
        layers = self.num_layers * (2 if self.bidirectional else 1)
        shapes = [(layers, batch, self.proj_size or self.hidden_size)]
        if self.mode == "LSTM":
            shapes.append((layers, batch, self.hidden_size))
        return shapes

    def _states(self, hx, batch, input, name):
        """The initial states, each (layers * directions, N, H): zeros where hx is None."""
        count = 2 if self.mode == "LSTM" else 1
        if hx is None:
            return [F.zeros(*shape, dtype=input.dtype, device=input.device)
                    for shape in self._state_shapes(batch)]
        states = list(hx) if self.mode == "LSTM" and isinstance(hx, (tuple, list)) else [hx]
        if len(states) != count or not all(isinstance(s, Tensor) for s in states):
            raise TypeError(f"{name}: expected hx to be "
                            f"{'a tuple (h_0, c_0) of tensors' if count == 2 else 'a tensor'}, "
                            f"got {type(hx).__name__}")
        return states

    def _check_input(self, input, name):
        check_tensor(f"{name}.forward", "input", input)
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor "
                             f"instead")
        if input.dtype is not self.weight_ih_l0.dtype:
            raise ValueError(f"{name} input dtype ({input.dtype}) does not match weight dtype "
                             f"({self.weight_ih_l0.dtype}). Convert input: "
                             f"input.to({self.weight_ih_l0.dtype}), or convert model: "
                             f"model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"{name}: input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def forward(self, input, hx=None):
        """``input`` (T, B, H_in), (B, T, H_in) with batch_first, (T, H_in) unbatched, or a
        PackedSequence; returns (output, h_n), h_n = (h_n, c_n) for LSTM."""
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, name)
        self._check_input(input, name)
        batched = input.ndim == 3
        if not batched:
            input = F.unsqueeze(input, 1)
            if hx is not None:
                hx = tuple(F.unsqueeze(h, 1) for h in hx) if self.mode == "LSTM" else \
                    F.unsqueeze(hx, 1)
        elif self.batch_first:
            input = F.transpose(input, 0, 1)
        output, finals = self._layers(input, self._states(hx, input.shape[1], input, name),
                                      None, name)
        if not batched:
            output, finals = F.squeeze(output, 1), [F.squeeze(f, 1) for f in finals]
        elif self.batch_first:
            output = F.transpose(output, 0, 1)
        return output, (tuple(finals) if self.mode == "LSTM" else finals[0])

    def _forward_packed(self, packed, hx, name):
        """A PackedSequence in and out: the layers run on the padded batch (longest first),
        each sequence's state frozen once it has ended; h_n in the original batch order."""
        padded, lengths = pad_packed_sequence(PackedSequence(packed.data, packed.batch_sizes))
        self._check_input(padded, name)
        order, undo = packed.sorted_indices, packed.unsorted_indices
        if hx is not None and order is not None:
            hx = tuple(F.index_select(h, 1, order) for h in hx) if self.mode == "LSTM" and \
                isinstance(hx, (tuple, list)) else F.index_select(hx, 1, order)
        steps = F.arange(padded.shape[0], device=padded.device)
        active = F.unsqueeze(F.lt(F.unsqueeze(steps, 1), lengths.to(padded.device)), 2)
        output, finals = self._layers(padded, self._states(hx, padded.shape[1], padded, name),
                                      active, name)
        sizes = packed.batch_sizes.tolist()
        data = F.cat([output[t, :size] for t, size in enumerate(sizes)], 0)
        if undo is not None:
            finals = [F.index_select(f, 1, undo) for f in finals]
        out = PackedSequence(data, packed.batch_sizes, order, undo)
        return out, (tuple(finals) if self.mode == "LSTM" else finals[0])

    def _layers(self, input, states, active, name):
        """All layers and directions over ``input`` (T, B, H_in): (output, final states)."""
        for state, what, shape in zip(states, ("hidden", "cell"),
                                      self._state_shapes(input.shape[1])):
            _check_size(name, what, state, shape)
        directions = 2 if self.bidirectional else 1
        weights = [self._weights(layer, suffix) for layer in range(self.num_layers)
                   for suffix in ("", "_reverse")[:directions]]
        dropout = self.dropout if self.training else 0.0
        return run_layers(self.mode, input, states, weights, directions, dropout, active)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), per layer.

    Input (L, N, H_in), (N, L, H_in) with batch_first, or unbatched (L, H_in); returns
    (output (L, N, D * H), h_n (D * num_layers, N, H)), D = 2 if bidirectional.

    >>> rnn = minflow.nn.RNN(3, 4, num_layers=2)
    >>> out, h = rnn(minflow.ones(5, 2, 3))
    >>> out.shape, h.shape
    (minflow.Size([5, 2, 4]), minflow.Size([2, 2, 4]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: Unknown nonlinearity {nonlinearity!r}. Select from 'tanh' "
                             f"or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o = (sigmoid, sigmoid, tanh, sigmoid) of
    x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh; c_t = f c_{t-1} + i g, h_t = o tanh(c_t).

    Returns (output, (h_n, c_n)); hx is an optional (h_0, c_0). With ``proj_size`` > 0,
    h_t = (o tanh(c_t)) W_hr^T has proj_size features (parameters ``weight_hr_l{k}``).

    >>> lstm = minflow.nn.LSTM(3, 4, batch_first=True, bidirectional=True)
    >>> out, (h, c) = lstm(minflow.ones(2, 5, 3))
    >>> out.shape, h.shape, c.shape
    (minflow.Size([2, 5, 8]), minflow.Size([2, 2, 4]), minflow.Size([2, 2, 4]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: r, z = sigmoid(x W_i{r,z} + b + h W_h{r,z} + b),
    n = tanh(x W_in + b_in + r (h W_hn + b_hn)), h_t = (1 - z) n + z h_{t-1}.

    >>> gru = minflow.nn.GRU(3, 4)
    >>> gru
    GRU(3, 4)
    >>> gru(minflow.ones(5, 3))[0].shape
    minflow.Size([5, 4])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


# ---- cells: one time step, for loops written by the user --------------------------------

class RNNCellBase(Module):
    """The shared part of the cells: parameters weight_ih, weight_hh, bias_ih, bias_hh.

    >>> cell = minflow.nn.GRUCell(4, 8)
    >>> isinstance(cell, minflow.nn.RNNCellBase), tuple(cell.weight_ih.shape)
    (True, (24, 4))
    """

    def __init__(self, input_size, hidden_size, bias, gates, device=None, dtype=None):
        super().__init__()
        _check_sizes(type(self).__name__, input_size=input_size, hidden_size=hidden_size)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(F.empty(gates * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(F.empty(gates * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(F.empty(gates * hidden_size, **kw))
            self.bias_hh = Parameter(F.empty(gates * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _step(self, step, input, states):
        name = type(self).__name__
        check_tensor(f"{name}.forward", "input", input)
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D "
                             f"instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"{name}: input has inconsistent input_size: got "
                               f"{input.shape[-1]} expected {self.input_size}")
        if input.dtype is not self.weight_ih.dtype:
            raise RuntimeError(f"{name}: expected input of the weights' dtype "
                               f"{self.weight_ih.dtype.name}, got {input.dtype.name}")
        batched = input.ndim == 2
        if not batched:
            input = F.unsqueeze(input, 0)
        shape = (input.shape[0], self.hidden_size)
        full = []
        for i, state in enumerate(states):
            if state is None:
                state = F.zeros(*shape, dtype=input.dtype, device=input.device)
            elif not isinstance(state, Tensor):
                raise TypeError(f"{name}: expected hx to be a tensor, got "
                                f"{type(state).__name__}")
            elif state.ndim not in (1, 2):
                which = "hidden" if len(states) == 1 else f"hx[{i}]"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {state.ndim}D "
                                 f"instead")
            elif not batched:
                state = F.unsqueeze(state, 0)
            _check_size(name, "hidden", state, shape)
            full.append(state)
        out = step(F.linear(input, self.weight_ih, self.bias_ih), *full, self.weight_hh,
                   self.bias_hh)
        return out if batched else tuple(F.squeeze(s, 0) for s in out)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu) for one step; h defaults to 0.

    >>> minflow.nn.RNNCell(3, 4)(minflow.ones(2, 3)).shape
    minflow.Size([2, 4])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: Unknown nonlinearity: {nonlinearity!r}; expected "
                             f"'tanh' or 'relu'")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        (h,) = self._step(_step_of("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"),
                          input, [hx])
        return h


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c'); hx is an optional (h, c), zeros by default.

    >>> h, c = minflow.nn.LSTMCell(3, 4)(minflow.ones(2, 3))
    >>> h.shape, c.shape
    (minflow.Size([2, 4]), minflow.Size([2, 4]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise TypeError(f"LSTMCell: expected hx to be a tuple (h, c) of tensors, got "
                            f"{type(hx).__name__}")
        return self._step(_lstm_step, input, [None, None] if hx is None else list(hx))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) n + z h; h defaults to 0.

    >>> minflow.nn.GRUCell(3, 4)(minflow.ones(3)).shape
    minflow.Size([4])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        (h,) = self._step(_gru_step, input, [hx])
        return h
