"""weight_norm, spectral_norm and orthogonal as parametrizations (torch.nn.utils.
parametrizations): each registers a small Module with ``register_parametrization``, so the
weight is recomputed from ``parametrizations.weight.original*`` at every access."""
from enum import Enum, auto

import numpy as np

from ... import linalg
from ...core.device import to_numpy
from ...core.dtype_info import finfo
from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.distance import normalize
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against v
    (torch's ``norm_except_dim``). NOTE: as torch, ``dim=-1`` means the norm of the whole
    tensor, not of each slice along the last dim."""
    if dim == -1:
        return F.norm(v, pow)
    if not 0 <= dim < v.ndim:
        raise IndexError(f"norm_except_dim: dim {dim} is out of range for a tensor with "
                         f"{v.ndim} dims")
    others = tuple(d for d in range(v.ndim) if d != dim)
    return F.norm(v, pow, others, keepdim=True) if others else F.abs(v)


def _weight_norm_value(v, g, dim):
    """``v * (g / ||v||)``, the norm taken over every dim but ``dim`` (torch._weight_norm)."""
    return v * (g / _norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    """weight = g * v / ||v||, from the two originals (g, v)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm_value(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (Salimans & Kingma 2016): the
    magnitude ``g`` (``parametrizations.<name>.original0``, one value per slice along
    ``dim``; ``dim=None`` for one for the whole tensor) and the direction ``v``
    (``original1``) are trained separately.

    >>> m = minflow.nn.utils.parametrizations.weight_norm(minflow.nn.Linear(20, 40))
    >>> [(k, list(v.shape)) for k, v in m.state_dict().items()]
    [('bias', [40]), ('parametrizations.weight.original0', [40, 1]),
     ('parametrizations.weight.original1', [40, 20])]
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict, prefix, *_):
        """Read a checkpoint of the hook-based weight_norm: <name>_g, <name>_v."""
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a matrix,
    estimated by power iteration on the buffers ``_u`` and ``_v`` (advanced in training
    mode only, as torch)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"spectral_norm: Dimension out of range (expected to be in range "
                             f"of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"spectral_norm: Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            rows, cols = self._reshape_weight_to_matrix(weight).shape
            kw = {"dtype": weight.dtype, "device": weight.device}
            self.register_buffer("_u", normalize(F.randn(rows, **kw), dim=0, eps=eps))
            self.register_buffer("_v", normalize(F.randn(cols, **kw), dim=0, eps=eps))
            self._power_method(self._reshape_weight_to_matrix(weight), 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """Advance u and v in place: u = W v / ||W v||, v = W^T u / ||W^T u||."""
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(F.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(F.mv(weight_mat.T, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = F.vdot(u, F.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrize ``module.<name>`` as W / sigma(W), sigma the spectral norm (largest
    singular value) of W reshaped to a matrix around ``dim`` (1 for ConvTranspose, else
    0), estimated by ``n_power_iterations`` power-iteration steps per forward in training
    mode (Miyato et al. 2018). The vectors u, v are buffers ``parametrizations.<name>.0._u``
    and ``._v``.

    >>> _ = minflow.manual_seed(0)
    >>> m = minflow.nn.utils.parametrizations.spectral_norm(minflow.nn.Linear(20, 40))
    >>> sorted(m.state_dict())
    ['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v',
     'parametrizations.weight.original']
    >>> for _ in range(50):
    ...     w = m.weight            # each access in training mode is one more iteration
    >>> round(minflow.linalg.matrix_norm(w.detach(), 2).item(), 2)
    1.0
    """
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"spectral_norm: Module '{module}' has no parameter or buffer with "
                         f"name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _make_orthogonal(A):
    """The Q of A = QR with R's diagonal made positive (unique for full-rank A)."""
    q, r = linalg.qr(A)
    return q * F.sign(F.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)


def _householder_product(A, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i the i-th column
    of A below the diagonal with a 1 on it (linalg.householder_product), from minflow
    ops so that it is differentiable."""
    n, k = A.shape[-2], A.shape[-1]
    eye = F.eye(n, dtype=A.dtype, device=A.device)
    Q = eye.expand(*A.shape[:-2], n, n)
    for i in range(k):
        v = (A[..., :, i] + eye[:, i]).unsqueeze(-1)               # (..., n, 1)
        Q = Q - tau[..., i, None, None] * ((Q @ v) @ v.transpose(-1, -2))
    return Q[..., :k]


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    eye = F.eye(k, dtype=Q.dtype, device=Q.device)
    return F.allclose(Q.transpose(-1, -2) @ Q, eye, atol=10.0 * n * finfo(Q.dtype).eps)


def _householder_reflectors(Q):
    """The X whose Householder map is Q (up to column signs): geqrf's reflectors, with the
    diagonal set to the sign that restores Q's columns, as torch."""
    transposed = Q.shape[-2] < Q.shape[-1]
    if transposed:
        Q = Q.transpose(-1, -2)
    array = to_numpy(Q._data)
    reflectors = np.empty_like(array)
    flat_in = array.reshape(-1, *array.shape[-2:])
    flat_out = reflectors.reshape(flat_in.shape)
    for i, matrix in enumerate(flat_in):
        h, tau = np.linalg.qr(matrix, mode="raw")
        a = h.T.copy()
        diag = np.sign(np.diagonal(a)).copy()
        diag[tau == 0.0] *= -1
        np.fill_diagonal(a, diag)
        flat_out[i] = a
    A = F.tensor(reflectors, dtype=Q.dtype, device=Q.device)
    return A.transpose(-1, -2) if transposed else A


class _Orthogonal(Module):
    """An orthogonal (or semi-orthogonal) matrix from an unconstrained one, through the
    matrix exponential or Cayley map of a skew-symmetric matrix, or a product of
    Householder reflectors; with ``base``, the result is base @ Q (trivialization)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.transpose(-1, -2), k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                zeros = F.zeros(n, n - k, dtype=X.dtype, device=X.device)
                X = F.cat([X, zeros.expand(*X.shape[:-2], n, n - k)], dim=-1)
            A = X - X.transpose(-1, -2)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:
                eye = F.eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * F.diagonal(X, dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.transpose(-1, -2) if transposed else Q

    def right_inverse(self, Q):
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"orthogonal: Expected a matrix or batch of matrices of shape "
                             f"{list(self.shape)}. Got a tensor of shape {list(Q.shape)}.")
        with no_grad():
            if "base" in self._buffers:
                return self._trivialize(Q)
            if self.orthogonal_map != _OrthMaps.householder:
                # NOTE: as torch: registering keeps the weight as the unconstrained X
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            return _householder_reflectors(Q)

    def _trivialize(self, Q):
        """Make ``base`` an orthogonal completion of Q; the original becomes the X with
        forward(X) = base[..., :k], i.e. -I (X.tril() and X.tril(-1) then vanish)."""
        shape = tuple(Q.shape)
        n, k = shape[-2], shape[-1]
        if n < k:
            Q, n, k = Q.transpose(-1, -2), k, n
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            noise = F.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(F.cat([Q, noise], dim=-1))
        self.base = Q
        eye = F.eye(shape[-2], shape[-1], dtype=Q.dtype, device=Q.device)
        return -eye.expand(*shape).clone()


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` (a matrix or batch of them) to be orthogonal, or to have
    orthonormal rows or columns when not square. ``orthogonal_map``: "matrix_exp" (default
    for square), "cayley" or "householder" (default otherwise). With
    ``use_trivialization`` (default), the weight starts at the current one made
    orthogonal, kept in the buffer ``parametrizations.<name>.0.base``.

    >>> m = minflow.nn.utils.parametrizations.orthogonal(minflow.nn.Linear(5, 3))
    >>> w = m.weight
    >>> bool(((w @ w.T) - minflow.eye(3)).abs().max() < 1e-5)
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"orthogonal: Module '{module}' has no parameter or buffer with name "
                         f"'{name}'")
    if weight.ndim < 2:
        raise ValueError(f"orthogonal: Expected a matrix or batch of matrices. Got a tensor "
                         f"of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    orth_enum = getattr(_OrthMaps, str(orthogonal_map), None)
    if orth_enum is None:
        raise ValueError(f'orthogonal: orthogonal_map has to be one of "matrix_exp", '
                         f'"cayley", "householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
