"""The three transforms torch.fft is made of (minflow/fft.py builds the public functions
from them): complex to complex (``fft_c2c``), real to one-sided complex (``fft_r2c``,
rfftn) and one-sided complex to real (``fft_c2r``, irfftn), each over ``dim`` with a
normalization ``norm`` named as numpy and torch name it for that direction ("backward":
scale the inverse by 1/n, "forward": the forward, "ortho": both by 1/sqrt(n)).

Kernels: kernels/generic/fft.py (numpy.fft / cupy.fft); grads: autograd/grads/fft.py.
"""
from ..core import dtype as dtypes
from ..core.tensor import Tensor
from .registry import Attr, define_op

NORMS = ("backward", "forward", "ortho")
TRAITS = ("opaque", "no_side_effect")
_ATTRS = [Attr("dim", "ints"), Attr("norm", "str", "backward", choices=NORMS)]


def _check_dims(name, input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected input to be a Tensor, got {type(input).__name__}")
    ndim = input.ndim
    if len(set(dim)) != len(dim) or any(not 0 <= d < ndim for d in dim):
        raise RuntimeError(f"{name}: expected distinct dims in [0, {ndim}), got {list(dim)}")


def _c2c_infer(input, dim, norm, forward):
    _check_dims("fft_c2c", input, dim)
    if not input.dtype.is_complex:
        raise RuntimeError(f"fft_c2c: expected a complex input, got {input.dtype.name}")
    return input._data.shape, input.dtype


def _r2c_infer(input, dim, norm):
    _check_dims("fft_r2c", input, dim)
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"fft_r2c: expected a float32 or float64 input, got "
                           f"{input.dtype.name}")
    shape = list(input._data.shape)
    shape[dim[-1]] = shape[dim[-1]] // 2 + 1
    return tuple(shape), dtypes.to_complex(input.dtype)


def _c2r_infer(input, dim, norm, last_dim_size):
    _check_dims("fft_c2r", input, dim)
    if not input.dtype.is_complex:
        raise RuntimeError(f"fft_c2r: expected a complex input, got {input.dtype.name}")
    shape = list(input._data.shape)
    if last_dim_size < 1 or shape[dim[-1]] != last_dim_size // 2 + 1:
        raise RuntimeError(f"fft_c2r: expected {last_dim_size // 2 + 1} one-sided values "
                           f"along dim {dim[-1]} for an output of size {last_dim_size}, got "
                           f"{shape[dim[-1]]}")
    shape[dim[-1]] = last_dim_size
    return tuple(shape), dtypes.to_real(input.dtype)


FFT_C2C = define_op("fft_c2c", ["input"], attrs=_ATTRS + [Attr("forward", "bool")],
                    infer=_c2c_infer, traits=TRAITS,
                    doc="The discrete Fourier transform (or its inverse) over ``dim``.")
FFT_R2C = define_op("fft_r2c", ["input"], attrs=_ATTRS, infer=_r2c_infer, traits=TRAITS,
                    doc="The Fourier transform of a real input over ``dim``, one-sided: the "
                        "last dim keeps n // 2 + 1 frequencies.")
FFT_C2R = define_op("fft_c2r", ["input"], attrs=_ATTRS + [Attr("last_dim_size", "int")],
                    infer=_c2r_infer, traits=TRAITS,
                    doc="The inverse Fourier transform of a one-sided (Hermitian) spectrum: "
                        "a real output, ``last_dim_size`` long along the last of ``dim``.")


def swapped(norm):
    """The normalization of the adjoint transform: the inverse direction scaled as the
    forward one was ("backward" <-> "forward")."""
    return {"backward": "forward", "forward": "backward"}.get(norm, norm)
