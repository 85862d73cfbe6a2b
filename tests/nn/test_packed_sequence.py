"""PackedSequence, pack_padded_sequence / pad_packed_sequence / pack_sequence /
unpack_sequence, and the recurrent layers on packed input, against PyTorch: the same data,
lengths (sorted or not), initial states and weights give the same packed outputs, final
states and grads of the input, states and parameters."""
import numpy as np
import pytest

import minflow
from minflow.nn.utils import rnn as mrnn

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn

T, B, IN, H = 5, 4, 3, 4
X = np.random.RandomState(0).randn(T, B, IN)
LENGTHS = {"sorted": ([5, 3, 3, 1], True), "unsorted": ([2, 5, 1, 4], False),
           "ties": ([3, 5, 3, 5], False)}


def _pack(lib, rnn_mod, x, lengths, enforce_sorted, batch_first=False):
    x = lib.tensor(np.swapaxes(x, 0, 1) if batch_first else x, requires_grad=True)
    return x, rnn_mod.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                           enforce_sorted=enforce_sorted)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("case", sorted(LENGTHS))
def test_pack_and_pad_match_torch_with_grads(case, batch_first):
    lengths, enforce_sorted = LENGTHS[case]
    results = []
    for lib, rnn_mod in ((minflow, mrnn), (torch, trnn)):
        x, packed = _pack(lib, rnn_mod, X, lengths, enforce_sorted, batch_first)
        padded, out_lengths = rnn_mod.pad_packed_sequence(packed, batch_first=batch_first,
                                                          padding_value=-2.0, total_length=7)
        weights = lib.tensor(np.random.RandomState(1).randn(*padded.shape))
        (padded * weights).sum().backward()
        indices = [None if i is None else i.tolist()
                   for i in (packed.sorted_indices, packed.unsorted_indices)]
        results.append([packed.data.detach().numpy(), packed.batch_sizes.tolist(), indices,
                        padded.detach().numpy(), out_lengths.tolist(), x.grad.numpy()])
    ours, theirs = results
    assert ours[1:3] == theirs[1:3] and ours[4] == theirs[4]
    for i in (0, 3, 5):
        np.testing.assert_array_equal(ours[i], theirs[i])
    assert packed.batch_sizes.dtype == torch.int64


def test_pack_sequence_and_unpack_sequence_round_trip_as_torch():
    seqs = [np.arange(n * 2.0).reshape(n, 2) for n in (2, 4, 1)]
    packs = [rnn_mod.pack_sequence([lib.tensor(s) for s in seqs], enforce_sorted=False)
             for lib, rnn_mod in ((minflow, mrnn), (torch, trnn))]
    np.testing.assert_array_equal(packs[0].data.numpy(), packs[1].data.numpy())
    back = mrnn.unpack_sequence(packs[0])
    assert [b.tolist() for b in back] == [s.tolist() for s in seqs]
    unpadded = mrnn.unpad_sequence(mrnn.pad_sequence([minflow.tensor(s) for s in seqs]),
                                   [2, 4, 1])
    assert [u.tolist() for u in unpadded] == [s.tolist() for s in seqs]


def _recurrent_case(mode, kwargs, lengths, enforce_sorted, with_state, lib, rnn_mod, ours):
    x, packed = _pack(lib, rnn_mod, X, lengths, enforce_sorted)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    rng = np.random.RandomState(2)
    states = [lib.tensor(rng.randn(layers, B, H), requires_grad=True)
              for _ in range(2 if mode == "LSTM" else 1)] if with_state else []
    hx = None if not states else (tuple(states) if mode == "LSTM" else states[0])
    out, final = ours(packed, hx)
    assert isinstance(out, rnn_mod.PackedSequence)
    finals = list(final) if isinstance(final, tuple) else [final]
    rng = np.random.RandomState(3)
    loss = sum((t * lib.tensor(rng.randn(*t.shape))).sum() for t in [out.data] + finals)
    loss.backward()
    grads = [x.grad] + [s.grad for s in states] + [p.grad for _, p in ours.named_parameters()]
    return out.batch_sizes.tolist(), [t.detach().numpy() for t in [out.data] + finals + grads]


@pytest.mark.parametrize("with_state", [False, True], ids=["nohx", "hx"])
@pytest.mark.parametrize("case", sorted(LENGTHS))
@pytest.mark.parametrize("mode, kwargs", [
    ("LSTM", {}), ("GRU", {"num_layers": 2}), ("RNN", {"bidirectional": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "bidirectional": True})],
    ids=["lstm", "gru-2layers", "rnn-bidir", "lstm-2layers-bidir", "lstm-proj-bidir"])
def test_recurrent_layers_on_packed_input_match_torch(mode, kwargs, case, with_state):
    lengths, enforce_sorted = LENGTHS[case]
    if kwargs.get("proj_size") and with_state:
        pytest.skip("proj_size changes h_0's size; covered without initial states")
    theirs = getattr(torch.nn, mode)(IN, H, **kwargs).double()
    ours = getattr(minflow.nn, mode)(IN, H, **kwargs).double()
    ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    a = _recurrent_case(mode, kwargs, lengths, enforce_sorted, with_state, minflow, mrnn, ours)
    b = _recurrent_case(mode, kwargs, lengths, enforce_sorted, with_state, torch, trnn,
                        theirs)
    assert a[0] == b[0]
    for got, want in zip(a[1], b[1]):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_final_states_of_unsorted_packed_input_are_contiguous():
    """h_n comes back in the caller's batch order as a new tensor, as torch's: a
    bidirectional tagger's ``h_n.view(layers, 2, batch, hidden)`` works."""
    lstm = minflow.nn.LSTM(IN, H, num_layers=2, bidirectional=True).double()
    _, packed = _pack(minflow, mrnn, X, [2, 5, 1, 4], enforce_sorted=False)
    _, (h_n, c_n) = lstm(packed)
    assert h_n.is_contiguous() and c_n.is_contiguous()
    assert h_n.view(2, 2, B, H)[1, 0].tolist() == h_n[2].tolist()


@pytest.mark.parametrize("call, error, message", [
    (lambda: mrnn.pack_padded_sequence(minflow.ones(4, 3), [2, 3, 1]), RuntimeError,
     "`lengths` array must be sorted in decreasing order"),
    (lambda: mrnn.pack_padded_sequence(minflow.ones(4, 3), [3, 2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0"),
    (lambda: mrnn.pack_padded_sequence(minflow.ones(4, 3), [3, 2]), RuntimeError,
     r"Expected `len\(lengths\)` to be equal to batch_size, but got 2 \(batch_size=3\)"),
    (lambda: mrnn.pack_padded_sequence(minflow.ones(4, 3), [5, 2, 1]), RuntimeError,
     "pack_padded_sequence: a length of 5 exceeds the 4 time steps of input"),
    (lambda: mrnn.pad_packed_sequence(
        mrnn.pack_padded_sequence(minflow.ones(4, 3), [3, 2, 1]), total_length=2),
     ValueError, "Expected total_length to be at least the length of the longest sequence"),
    (lambda: mrnn.pad_packed_sequence(minflow.ones(2)), TypeError,
     "pad_packed_sequence: expected a PackedSequence, got Tensor"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
