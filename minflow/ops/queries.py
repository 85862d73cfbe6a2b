"""Questions about a tensor that torch asks as functions and methods: dtype kind
(``is_signed``, ``is_complex``), truth of a one-element tensor (``is_nonzero``), shape
(``is_same_size``, ``ndimension``), place and layout (``get_device``, ``is_cpu``,
``is_inference``, ``is_sparse``), and complex conjugation (``conj``, ``resolve_conj``,
``adjoint``, ``mH``...), the identity on real tensors. None of them runs an op of its own."""
from ..core import dtype as dtypes
from ..core.functional import public, tensor_method
from ..core.namespace import F
from ..core.tensor import Tensor


def _tensor_arg(value, where, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{where}: expected {name} to be a Tensor, got {type(value).__name__}")
    return value


@public(method=True)
def is_signed(input):
    """is_signed(input) -> bool: whether input's dtype holds negative values (every dtype
    but bool and uint8).

    >>> minflow.tensor([1]).is_signed(), minflow.tensor([1], dtype=minflow.uint8).is_signed()
    (True, False)
    """
    return _tensor_arg(input, "is_signed").dtype.is_signed


@public(method=True)
def is_complex(input):
    """is_complex(input) -> bool: whether input's dtype is complex (complex64, complex128).

    >>> minflow.is_complex(minflow.tensor([1.0])), minflow.tensor([1j]).is_complex()
    (False, True)
    """
    return _tensor_arg(input, "is_complex").dtype.is_complex


@public(method=True)
def is_nonzero(input):
    """is_nonzero(input) -> bool: whether the single element of input is not zero (NaN
    counts as nonzero); an error for zero or several elements, as torch.

    >>> minflow.is_nonzero(minflow.tensor([0.5])), minflow.tensor(0).is_nonzero()
    (True, False)
    """
    n = _tensor_arg(input, "is_nonzero").numel()
    if n != 1:
        which = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"is_nonzero: Boolean value of Tensor with {which} is ambiguous")
    return bool(input.item() != 0)


@public(method=True)
def is_same_size(input, other):
    """is_same_size(input, other) -> bool: whether both tensors have the same shape.

    >>> minflow.ones(2, 3).is_same_size(minflow.zeros(2, 3))
    True
    """
    _tensor_arg(input, "is_same_size")
    return tuple(input.shape) == tuple(_tensor_arg(other, "is_same_size", "other").shape)


@public(method=True)
def get_device(input):
    """get_device(input) -> int: the cuda device index of input, -1 elsewhere (cpu, meta).

    >>> minflow.zeros(1).get_device()
    -1
    """
    device = _tensor_arg(input, "get_device").device
    if device.type == "cuda":
        return device.index or 0
    return -1


@tensor_method("ndimension")
def ndimension(self):
    """The number of dims (``Tensor.dim()``), as torch's alias.

    >>> minflow.zeros(2, 3).ndimension()
    2
    """
    return self.ndim


@tensor_method("is_inference")
def is_inference(self):
    """Whether the tensor was made inside ``minflow.inference_mode()``.

    >>> with minflow.inference_mode():
    ...     x = minflow.ones(1)
    >>> x.is_inference(), minflow.ones(1).is_inference()
    (True, False)
    """
    return self._is_inference()


@tensor_method("is_cpu")
@property
def is_cpu(self):
    """Whether the tensor is on the cpu.

    >>> minflow.zeros(1).is_cpu
    True
    """
    return self.device.type == "cpu"


@tensor_method("is_sparse")
@property
def is_sparse(self):
    """Whether the tensor has a sparse layout: minflow tensors are dense, so False.

    >>> minflow.zeros(1).is_sparse
    False
    """
    return False


@tensor_method("is_quantized")
@property
def is_quantized(self):
    """Whether the tensor is quantized: minflow has no quantized dtypes, so False.

    >>> minflow.zeros(1).is_quantized
    False
    """
    return False


@public
def is_inference(input):
    """is_inference(input) -> bool: whether input was made inside ``inference_mode()``.

    >>> minflow.is_inference(minflow.zeros(1))
    False
    """
    return _tensor_arg(input, "is_inference")._is_inference()


# ---- complex conjugation -------------------------------------------------------------------
# minflow conjugates complex tensors at once (conj_physical) and real ones not at all, so
# the conj / neg bits torch keeps are always unset. Scripts written for both call these.

@public(method=True)
def is_conj(input):
    """is_conj(input) -> bool: whether input's conjugate bit is set; never, in minflow
    (``conj`` computes the conjugate).

    >>> minflow.ones(1).is_conj()
    False
    """
    _tensor_arg(input, "is_conj")
    return False


@public(method=True)
def is_neg(input):
    """is_neg(input) -> bool: whether input's negative bit is set; never, in minflow.

    >>> minflow.ones(1).is_neg()
    False
    """
    _tensor_arg(input, "is_neg")
    return False


@public(method=True)
def conj(input):
    """conj(input) -> Tensor: the complex conjugate (computed: a new tensor, not a view
    with torch's conjugate bit); a real tensor is returned as it is.

    >>> x = minflow.ones(2); minflow.conj(x) is x
    True
    >>> minflow.conj(minflow.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    return F.conj_physical(_tensor_arg(input, "conj"))


@public(method=True)
def resolve_conj(input):
    """resolve_conj(input) -> Tensor: input with its conjugate bit applied; input itself
    for real tensors.

    >>> x = minflow.ones(2); x.resolve_conj() is x
    True
    """
    return _tensor_arg(input, "resolve_conj")


@public(method=True)
def resolve_neg(input):
    """resolve_neg(input) -> Tensor: input with its negative bit applied; input itself in
    minflow.

    >>> x = minflow.ones(2); x.resolve_neg() is x
    True
    """
    return _tensor_arg(input, "resolve_neg")


@public(method=True)
def adjoint(input):
    """adjoint(input) -> Tensor: the conjugate transpose of the last two dims (a view of
    real tensors; complex ones are conjugated into a new tensor).

    >>> minflow.zeros(4, 2, 3).adjoint().shape
    minflow.Size([4, 3, 2])
    """
    if _tensor_arg(input, "adjoint").ndim < 2:
        raise RuntimeError(f"adjoint: tensor.adjoint() is only supported on matrices or "
                           f"batches of matrices. Got {input.ndim}-D tensor.")
    return conj(input.transpose(-2, -1))


@tensor_method("mH")
@property
def mH(self):  # noqa: N802  (torch's name)
    """The conjugate transpose of the last two dims, ``adjoint()``.

    >>> minflow.zeros(2, 3).mH.shape
    minflow.Size([3, 2])
    """
    return adjoint(self)


@tensor_method("H")
@property
def H(self):  # noqa: N802  (torch's name)
    """The conjugate transpose of a matrix (2-D only; ``mH`` for batches).

    >>> minflow.tensor([[1, 2]]).H.tolist()
    [[1], [2]]
    """
    if self.ndim not in (0, 2):
        raise RuntimeError(f"H: tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor. For batches of matrices, consider using "
                           f"tensor.mH")
    return conj(self.transpose(0, 1) if self.ndim == 2 else self)
