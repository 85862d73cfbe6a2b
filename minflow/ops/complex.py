"""Complex numbers: the parts of a complex tensor (``real``, ``imag``, ``view_as_real``, as
views sharing its memory), building one (``complex``, ``polar``, ``view_as_complex``),
``angle`` and ``conj_physical``.

Kernels live in kernels/generic/complex.py, grad functions in autograd/grads/complex.py.
Gradients follow torch's convention: the gradient of a real loss L with respect to
z = x + iy is dL/dx + i dL/dy (the conjugate Wirtinger derivative, times 2), so that
``z -= lr * z.grad`` descends L.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, public, tensor_method
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .registry import define_op

VIEW = ("view", "no_side_effect")
EW = ("elementwise", "no_side_effect")


def _tensor(value, where, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{where}: expected {name} to be a Tensor, got {type(value).__name__}")
    return value


def _complex_input(where):
    def infer_part(input):
        if not _tensor(input, where).dtype.is_complex:
            raise RuntimeError(f"{where}: expected a complex input (complex64 or complex128), "
                               f"got {input.dtype.name}")
        return input._data.shape, dtypes.to_real(input.dtype)
    return infer_part


_REAL = define_op("real", ["input"], infer=_complex_input("real"), traits=VIEW,
                  doc="The real parts of a complex tensor, a view.")
_IMAG = define_op("imag", ["input"], infer=_complex_input("imag"), traits=VIEW,
                  doc="The imaginary parts of a complex tensor, a view.")


@public
def real(input):
    """real(input) -> Tensor: the real parts of a complex tensor, as a view sharing its
    memory (writing to it writes the complex tensor); a real tensor is returned as it is.

    >>> z = minflow.tensor([1 + 2j, 3 - 1j])
    >>> minflow.real(z)
    tensor([1., 3.])
    """
    if not _tensor(input, "real").dtype.is_complex:
        return input
    return apply(_REAL, (input,), {})


@public
def imag(input):
    """imag(input) -> Tensor: the imaginary parts of a complex tensor, as a view sharing
    its memory; an error for real tensors, as torch.

    >>> minflow.imag(minflow.tensor([1 + 2j, 3 - 1j]))
    tensor([ 2., -1.])
    """
    if not _tensor(input, "imag").dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_IMAG, (input,), {})


@tensor_method("real")
@property
def _real_property(self):
    """The real parts (a view; the tensor itself if real), as ``minflow.real``.

    >>> minflow.tensor([1 + 2j]).real
    tensor([1.])
    """
    return real(self)


@tensor_method("imag")
@property
def _imag_property(self):
    """The imaginary parts (a view), as ``minflow.imag``.

    >>> minflow.tensor([1 + 2j]).imag
    tensor([2.])
    """
    return imag(self)


def _view_as_real_infer(input):
    if not _tensor(input, "view_as_real").dtype.is_complex:
        raise RuntimeError(f"view_as_real is only supported for complex tensors, got "
                           f"{input.dtype.name}")
    return input._data.shape + (2,), dtypes.to_real(input.dtype)


def _view_as_complex_infer(input):
    dtype = _tensor(input, "view_as_complex").dtype
    if dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"view_as_complex is only supported for float32 and float64 "
                           f"tensors, but got a tensor of dtype {dtype.name}")
    shape = input._data.shape
    if not shape or shape[-1] != 2:
        raise RuntimeError(f"view_as_complex: Tensor must have a last dimension of size 2, "
                           f"got shape {list(shape)}")
    return shape[:-1], dtypes.to_complex(dtype)


_VIEW_AS_REAL = define_op("view_as_real", ["input"], infer=_view_as_real_infer, traits=VIEW,
                          doc="A complex tensor as a real one with a last dim (real, imag).")
_VIEW_AS_COMPLEX = define_op("view_as_complex", ["input"], infer=_view_as_complex_infer,
                             traits=VIEW, doc="A real tensor of last dim 2 as a complex one.")
generate_function(_VIEW_AS_REAL, doc="""view_as_real(input) -> Tensor

A complex tensor viewed as a real one of one more dim, of size 2: (real, imag).

>>> minflow.view_as_real(minflow.tensor([1 + 2j, 3 - 1j]))
tensor([[ 1.,  2.],
        [ 3., -1.]])""")
generate_function(_VIEW_AS_COMPLEX, doc="""view_as_complex(input) -> Tensor

A float32 / float64 tensor whose last dim has size 2 and stride 1 viewed as a complex one.

>>> minflow.view_as_complex(minflow.tensor([[1.0, 2.0], [3.0, -1.0]]))
tensor([1.+2.j, 3.-1.j])""")


def _angle_infer(input):
    dtype = _tensor(input, "angle").dtype
    return input._data.shape, dtypes.to_real(dtype) if dtype.is_complex else \
        dtypes.to_float(dtype)


_ANGLE = define_op("angle", ["input"], infer=_angle_infer, traits=EW,
                   doc="Elementwise argument of a complex number, atan2(imag, real).")
generate_function(_ANGLE, method=True, out=True, doc="""angle(input, out=None) -> Tensor

Elementwise angle (argument) in radians: atan2(imag, real); for real inputs 0 where
x >= 0 and pi where x < 0 (NaN stays NaN).

>>> minflow.angle(minflow.tensor([1j, -1 + 0j]))
tensor([1.5708, 3.1416])""")


def _complex_infer(real, imag):
    _tensor(real, "complex", "real")
    _tensor(imag, "complex", "imag")
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"complex: expected real and imag to have the same dtype, got "
                           f"{real.dtype.name} and {imag.dtype.name}")
    if real.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"complex: expected real and imag of dtype float32 or float64, "
                           f"got {real.dtype.name}")
    return infer.check_broadcast("complex", real=real, imag=imag), dtypes.to_complex(real.dtype)


_COMPLEX = define_op("complex", ["real", "imag"], infer=_complex_infer,
                     traits=("elementwise", "broadcast", "no_side_effect"),
                     doc="real + i imag, broadcasting.")
generate_function(_COMPLEX, out=True, doc="""complex(real, imag, *, out=None) -> Tensor

The complex tensor real + i imag (float32 parts give complex64, float64 complex128).

>>> minflow.complex(minflow.tensor([1.0, 3.0]), minflow.tensor([2.0, -1.0]))
tensor([1.+2.j, 3.-1.j])""")


@public
def polar(abs, angle, *, out=None):  # noqa: A002  (torch's argument name)
    """polar(abs, angle, *, out=None) -> Tensor

    The complex tensor abs * (cos(angle) + i sin(angle)).

    >>> minflow.polar(minflow.tensor([2.0]), minflow.tensor([0.0]))
    tensor([2.+0.j])
    """
    _tensor(abs, "polar", "abs")
    _tensor(angle, "polar", "angle")
    if abs.dtype is not angle.dtype or abs.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"polar: expected abs and angle of one dtype, float32 or float64, "
                           f"got {abs.dtype.name} and {angle.dtype.name}")
    return F.complex(F.mul(abs, F.cos(angle)), F.mul(abs, F.sin(angle)), out=out)


def _conj_infer(input):
    if not _tensor(input, "conj_physical").dtype.is_complex:
        raise RuntimeError(f"conj_physical: expected a complex input, got {input.dtype.name}")
    return input._data.shape, input.dtype


_CONJ = define_op("conj_physical", ["input"], infer=_conj_infer, traits=EW,
                  doc="Elementwise complex conjugate x - iy, computed (no conjugate bit).")


@public(method=True)
def conj_physical(input):
    """conj_physical(input) -> Tensor: the complex conjugate, computed now; a real tensor
    is returned as it is.

    >>> minflow.conj_physical(minflow.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    if not _tensor(input, "conj_physical").dtype.is_complex:
        return input
    return apply(_CONJ, (input,), {})


@public(method=True)
def sgn(input):
    """sgn(input) -> Tensor: z / |z| for complex inputs (0 at 0); ``sign`` for real ones.

    >>> minflow.sgn(minflow.tensor([3 + 4j, 0j]))
    tensor([0.6000+0.8000j, 0.0000+0.0000j])
    """
    if not _tensor(input, "sgn").dtype.is_complex:
        return F.sign(input)
    return F.where(F.eq(input, 0), 0.0, F.div(input, F.abs(input)))
