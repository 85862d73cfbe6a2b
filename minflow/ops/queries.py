"""Questions about a tensor that torch asks as functions and methods: dtype kind
(``is_signed``, ``is_complex``), truth of a one-element tensor (``is_nonzero``), shape
(``is_same_size``, ``ndimension``) and place (``get_device``, ``is_cpu``,
``is_inference``). None of them runs an op."""
from ..core import dtype as dtypes
from ..core.functional import public, tensor_method
from ..core.tensor import Tensor


def _tensor_arg(value, where, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{where}: expected {name} to be a Tensor, got {type(value).__name__}")
    return value


@public(method=True)
def is_signed(input):
    """is_signed(input) -> bool: whether input's dtype holds negative values (every dtype
    but bool).

    >>> minflow.tensor([1]).is_signed(), minflow.tensor([True]).is_signed()
    (True, False)
    """
    return _tensor_arg(input, "is_signed").dtype is not dtypes.bool


@public(method=True)
def is_complex(input):
    """is_complex(input) -> bool: whether input's dtype is complex; minflow has no complex
    dtypes, so always False.

    >>> minflow.is_complex(minflow.tensor([1.0]))
    False
    """
    _tensor_arg(input, "is_complex")
    return False


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
