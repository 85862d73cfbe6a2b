"""The eigendecomposition of a general square matrix, A = V diag(L) V^-1, with complex
eigenvalues L and eigenvectors V (columns of unit norm, as LAPACK's geev and torch give
them), and the op that computes its gradient (torch's linalg_eig_backward).

Public functions: linalg.eig / linalg.eigvals (minflow/linalg/decompositions.py); kernels in
kernels/generic/eig.py; the grad function in autograd/grads/eig.py.
"""
from ..core import dtype as dtypes
from ..core.tensor import Tensor
from .registry import Attr, Input, define_op
from .solve import OPAQUE

_EIG_DTYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def check_eig_input(name, A):
    """A batch of square matrices, real or complex."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}: expected A to be a Tensor, got {type(A).__name__}")
    shape = tuple(A.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        got = f"{shape[-2]} by {shape[-1]} matrices" if len(shape) >= 2 else \
            f"a {len(shape)}-D tensor"
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {got}")
    if A.dtype not in _EIG_DTYPES:
        raise dtypes.DTypeError(f"{name}: expected A with dtype in [float32, float64, "
                                f"complex64, complex128], got {A.dtype.name}")


def _eig_infer(A, compute_v):
    check_eig_input("linalg_eig", A)
    shape = tuple(A.shape)
    dtype = dtypes.to_complex(A.dtype)
    return (shape[:-1], dtype), (shape if compute_v else (0,), dtype)


EIG = define_op("linalg_eig", ["A"], ("eigenvalues", "eigenvectors"), infer=_eig_infer,
                attrs=[Attr("compute_v", "bool", True)], traits=OPAQUE,
                doc="Complex eigenvalues and unit-norm eigenvectors (columns) of a square "
                    "matrix: A V = V diag(L).")


def _eig_backward_infer(grad_L, grad_V, L, V):
    return tuple(V.shape), V.dtype


EIG_BACKWARD = define_op(
    "linalg_eig_backward",
    [Input("grad_L", optional=True), Input("grad_V", optional=True), "L", "V"],
    infer=_eig_backward_infer, traits=OPAQUE + ("no_grad",), dtype_from="V",
    doc="grad_A = V^-H (diag(grad_L) + (V^H grad_V projected) / conj(L_j - L_i)) V^H, "
        "torch's linalg_eig_backward.")
