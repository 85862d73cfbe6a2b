"""The connectionist temporal classification loss, with PyTorch's signatures
(minflow.nn.functional takes ``__all__``; ``minflow.ctc_loss`` is torch.ctc_loss's form).

  ctc_loss       per-sample -log p(target | log_probs), summed over every alignment
  ctc_loss_grad  its gradient w.r.t. log_probs
Kernels live in kernels/generic/ctc_loss.py, grad functions in autograd/grads/ctc_loss.py.
The public functions add what torch adds around its op: unbatched input, lengths given as
lists, and the reductions ('mean' divides each loss by its target length first).
"""
import operator

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .registry import Attr, define_op

__all__ = ["ctc_loss"]

_REDUCTIONS = ("none", "mean", "sum")
_FLOATS = (dtypes.float32, dtypes.float64)


def _check_lengths(name, lengths, batch):
    if lengths.dtype not in dtypes.INTS:
        raise RuntimeError(f"{name} must be integral, got {lengths.dtype.name}")
    if tuple(lengths._data.shape) != (batch,):
        raise RuntimeError(f"{name} must be of size batch_size ({batch}), got shape "
                           f"{list(lengths._data.shape)}")


def _ctc_infer(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    infer.check_dtype(log_probs, _FLOATS, "log_probs")
    shape = tuple(log_probs._data.shape)
    if len(shape) != 3:
        raise RuntimeError(f"expected log_probs of shape (T, N, C), got {list(shape)}")
    if 0 in shape:
        raise RuntimeError(f"log_probs tensor must not be empty, got shape {list(shape)}")
    steps, batch, classes = shape
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"expected targets of 1 (concatenated) or 2 (N, S) dimensions, got "
                           f"a {targets.ndim}-dimensional tensor")
    if not 0 <= blank < classes:
        raise RuntimeError(f"blank must be in label range [0, {classes}), got {blank}")
    _check_lengths("input_lengths", input_lengths, batch)
    _check_lengths("target_lengths", target_lengths, batch)
    if targets.ndim == 2 and targets._data.shape[0] != batch:
        raise RuntimeError(f"expected targets of size {batch} (the batch size) at dimension 0, "
                           f"got size {targets._data.shape[0]}")
    return (batch,), log_probs.dtype


def _ctc_grad_infer(grad_out, log_probs, targets, input_lengths, target_lengths, blank,
                    zero_infinity):
    batch = log_probs._data.shape[1]
    if tuple(grad_out._data.shape) != (batch,) or grad_out.dtype is not log_probs.dtype:
        raise RuntimeError(f"expected grad_out of shape [{batch}] and dtype "
                           f"{log_probs.dtype.name}, got {list(grad_out._data.shape)} "
                           f"{grad_out.dtype.name}")
    return log_probs._data.shape, log_probs.dtype


_ATTRS = [Attr("blank", "int", 0), Attr("zero_infinity", "bool", False)]
CTC_LOSS = define_op(
    "ctc_loss", ["log_probs", "targets", "input_lengths", "target_lengths"],
    infer=_ctc_infer, attrs=_ATTRS, traits=("opaque", "no_side_effect"),
    doc="Per-sample -log sum over the alignments of targets to log_probs (T, N, C) of the "
        "product of their probabilities (alpha recursion); inf where none exists, 0 "
        "instead with zero_infinity.")
CTC_LOSS_GRAD = define_op(
    "ctc_loss_grad", ["grad_out", "log_probs", "targets", "input_lengths", "target_lengths"],
    infer=_ctc_grad_infer, attrs=_ATTRS, traits=("opaque", "no_side_effect"),
    doc="ctc_loss's log_probs grad: (exp(log_probs) - posterior of each class per frame) "
        "* grad_out, 0 past each input length (and for inf losses with zero_infinity).")


def _as_lengths(name, lengths, device):
    """``lengths`` (a Tensor of ints, or a list or tuple of ints) as a 1-D Tensor."""
    if isinstance(lengths, Tensor):
        if lengths.dtype not in dtypes.INTS:
            raise RuntimeError(f"ctc_loss: {name} must be integral, got {lengths.dtype.name}")
        lengths = lengths if lengths.ndim == 1 else F.reshape(lengths, (-1,))
        return lengths if lengths.device == device else lengths.to(device)
    try:
        values = [operator.index(v) for v in lengths]
    except TypeError:
        raise TypeError(f"ctc_loss: expected {name} to be a Tensor, or a list or tuple of "
                        f"ints, got {lengths!r}") from None
    return F.tensor(values, dtype=dtypes.int64, device=device)


def _per_sample(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """The unreduced losses (N,) of batched or unbatched input; and whether it was batched."""
    for name, value in (("log_probs", log_probs), ("targets", targets)):
        if not isinstance(value, Tensor):
            raise TypeError(f"ctc_loss(): argument '{name}' must be Tensor, not "
                            f"{type(value).__name__}")
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError(f"ctc_loss: expected input_lengths and target_lengths both Tensors or "
                        f"both lists or tuples of ints, got {type(input_lengths).__name__} "
                        f"and {type(target_lengths).__name__}")
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs of shape (T, N, C) or unbatched "
                           f"(T, C), got {list(log_probs.shape)}")
    batched = log_probs.ndim == 3
    if not batched:
        log_probs = F.unsqueeze(log_probs, 1)
    device = log_probs.device
    if targets.device != device:        # as torch, which moves them to log_probs' device
        targets = targets.to(device)
    lengths = (_as_lengths("input_lengths", input_lengths, device),
               _as_lengths("target_lengths", target_lengths, device))
    loss = apply(CTC_LOSS, (log_probs, targets) + lengths,
                 {"blank": blank, "zero_infinity": zero_infinity})
    return loss, lengths[1], batched


def _reduce(loss, target_lengths, reduction, batched):
    if reduction == "mean":     # each loss over its target length (at least 1), then the mean
        divisor = F.clamp(F.cast(target_lengths, loss.dtype), min=1)
        return F.mean(F.div(loss, divisor))
    if reduction == "sum":
        return F.sum(loss)
    return loss if batched else F.squeeze(loss, 0)


@public
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
    zero_infinity=False) -> Tensor

    The connectionist temporal classification loss: per sample n,
    loss_n = -log sum over the alignments a of targets[n] to log_probs[:input_lengths[n], n]
    of prod_t exp(log_probs[t, n, a_t]), an alignment being the target with repeats and
    ``blank`` inserted, read with repeats merged and blanks dropped.

    log_probs: (T, N, C) or unbatched (T, C) log-probabilities (float32 or float64);
    targets: padded (N, S), or the N targets concatenated (sum(target_lengths)), of class
    indices; input_lengths, target_lengths: (N) int Tensors, or lists or tuples of ints.
    'mean' divides each loss by its target length (at least 1), then averages over the
    batch. A target that fits no alignment (too long for its input) gives an inf loss, 0
    (and a 0 gradient) with ``zero_infinity``.

    NOTE: as torch, the gradient w.r.t. log_probs is exp(log_probs) - (the posterior of
    each class at each frame): the exact gradient once it goes back through the
    log_softmax that makes log_probs, not of log_probs taken as free values.

    >>> log_probs = minflow.full((2, 1, 2), 0.5).log()
    >>> F = minflow.nn.functional
    >>> round(F.ctc_loss(log_probs, minflow.tensor([[1]]), [2], [1]).item(), 4)
    0.2877
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"ctc_loss: {reduction} is not a valid value for reduction "
                         f"(expected one of {list(_REDUCTIONS)})")
    loss, target_lengths, batched = _per_sample(log_probs, targets, input_lengths,
                                                target_lengths, blank, zero_infinity)
    return _reduce(loss, target_lengths, reduction, batched)


_REDUCTION_ENUM = {1: "mean", 2: "sum"}     # torch's at::Reduction; any other int is 'none'


def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
                   zero_infinity=False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False) -> Tensor

    torch.ctc_loss's form of minflow.nn.functional.ctc_loss: ``reduction`` is an int, 1 for
    'mean', 2 for 'sum', any other for 'none'.

    NOTE: torch declares the default as Mean, yet torch.ctc_loss(...) called without it
    returns the unreduced losses; so does this function.

    >>> log_probs = minflow.full((2, 1, 2), 0.5).log()
    >>> minflow.ctc_loss(log_probs, minflow.tensor([[1]]), [2], [1])
    tensor([0.2877])
    """
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(f"ctc_loss: argument 'reduction' must be int, not "
                        f"{type(reduction).__name__}")
    loss, target_lengths, batched = _per_sample(log_probs, targets, input_lengths,
                                                target_lengths, blank, zero_infinity)
    return _reduce(loss, target_lengths, _REDUCTION_ENUM.get(reduction, "none"), batched)
