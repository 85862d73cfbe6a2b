"""minflow.nn.init: in-place weight initialisers with PyTorch's signatures.

Every function fills its tensor under no_grad from minflow's seeded generators (so
``minflow.manual_seed`` makes it reproducible; pass ``generator=`` for a private stream)
and returns the tensor.
"""
import math
import warnings

from ..core.grad_mode import no_grad
from ..core.namespace import F

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
           "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended std multiplier for ``nonlinearity``: 1 for linear/conv/sigmoid,
    5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + negative_slope^2)) for leaky_relu
    (default slope 0.01), 3/4 for selu.

    >>> round(minflow.nn.init.calculate_gain("leaky_relu", 0.2), 4)
    1.3868
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "selu":
        return 3.0 / 4
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"calculate_gain: Unsupported nonlinearity {nonlinearity}")


def _fill_from(tensor, values):
    with no_grad():
        tensor.copy_(values)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with values drawn from U(a, b).

    >>> w = minflow.nn.init.uniform_(minflow.empty(1000), -2.0, 3.0)
    >>> bool(w.min() >= -2.0) and bool(w.max() < 3.0)
    True
    """
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a} > to={b}")
    u = F.rand(size=tuple(tensor.shape), generator=generator, dtype=tensor.dtype,
               device=tensor.device)
    return _fill_from(tensor, u * (b - a) + a)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with values drawn from N(mean, std^2).

    >>> w = minflow.nn.init.normal_(minflow.empty(10000), 1.0, 0.5)
    >>> abs(w.mean().item() - 1.0) < 0.05, abs(w.std().item() - 0.5) < 0.05
    (True, True)
    """
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    z = F.randn(size=tuple(tensor.shape), generator=generator, dtype=tensor.dtype,
                device=tensor.device)
    return _fill_from(tensor, z * std + mean)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` from N(mean, std^2) restricted to [a, b] (redrawing values outside).

    >>> w = minflow.nn.init.trunc_normal_(minflow.empty(1000), std=1.0, a=-0.5, b=0.5)
    >>> bool(w.abs().max() <= 0.5)
    True
    """
    if not a < b:
        raise ValueError(f"trunc_normal_: expected a < b, got a={a}, b={b}")
    shape = tuple(tensor.shape)
    kw = {"generator": generator, "dtype": tensor.dtype, "device": tensor.device}
    values = F.randn(size=shape, **kw) * std + mean
    outside = (values < a) | (values > b)
    for _ in range(1000):   # each round keeps a share P(a <= x <= b) of the rest
        if not bool(outside.any()):
            return _fill_from(tensor, values)
        values = F.where(outside, F.randn(size=shape, **kw) * std + mean, values)
        outside = (values < a) | (values > b)
    raise ValueError(f"trunc_normal_: [a, b] = [{a}, {b}] holds too little of "
                     f"N({mean}, {std}^2) to sample from")


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``.

    >>> minflow.nn.init.constant_(minflow.empty(2), 0.5).tolist()
    [0.5, 0.5]
    """
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    """Fill ``tensor`` with ones.

    >>> minflow.nn.init.ones_(minflow.empty(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros.

    >>> minflow.nn.init.zeros_(minflow.empty(2)).tolist()
    [0.0, 0.0]
    """
    return constant_(tensor, 0.0)


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the diagonal).

    >>> minflow.nn.init.eye_(minflow.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.ndim != 2:
        raise ValueError(f"eye_: only tensors with 2 dimensions are supported, got shape "
                         f"{tuple(tensor.shape)}")
    rows, cols = tensor.shape
    return _fill_from(tensor, F.eye(rows, cols, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D conv weight with the Dirac delta: in each of ``groups`` groups,
    output channel d passes input channel d through unchanged (the kernel's centre is 1).

    >>> w = minflow.nn.init.dirac_(minflow.empty(2, 2, 3))
    >>> w[:, :, 1].tolist(), float(w.sum())
    ([[1.0, 0.0], [0.0, 1.0]], 2.0)
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(f"dirac_: only tensors with 3, 4, or 5 dimensions are supported, got "
                         f"shape {tuple(tensor.shape)}")
    if tensor.shape[0] % groups != 0:
        raise ValueError(f"dirac_: dim 0 must be divisible by groups, got dim 0 = "
                         f"{tensor.shape[0]} and groups = {groups}")
    if tensor.device.type == "meta":
        return tensor
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): shape[1] and shape[0] times the receptive field (dims 2 on)."""
    if tensor.ndim < 2:
        raise ValueError(f"Fan in and fan out can not be computed for tensor with fewer than "
                         f"2 dimensions, got shape {tuple(tensor.shape)}")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    """fan_in or fan_out, by ``mode`` (torch's name for it)."""
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of "
                         f"['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).

    >>> w = minflow.nn.init.xavier_uniform_(minflow.empty(30, 20))
    >>> bool(w.abs().max() <= (6 / 50) ** 0.5)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    >>> minflow.nn.init.xavier_normal_(minflow.empty(30, 20)).shape
    minflow.Size([30, 20])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound), bound = gain * sqrt(3 / fan), gain from
    ``calculate_gain(nonlinearity, a)`` and fan = fan_in or fan_out by ``mode``.

    >>> w = minflow.nn.init.kaiming_uniform_(minflow.empty(20, 50), nonlinearity="relu")
    >>> bool(w.abs().max() <= (6 / 50) ** 0.5)
    True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2), std = gain / sqrt(fan) (see kaiming_uniform_).

    >>> minflow.nn.init.kaiming_normal_(minflow.empty(20, 50), mode="fan_out").shape
    minflow.Size([20, 50])
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (2-D or more, trailing dims flattened) with a (semi) orthogonal
    matrix times ``gain``: the Q of the QR decomposition of a normal matrix, its columns'
    signs fixed by diag(R) so that Q is uniformly distributed (Saxe et al. 2013).

    >>> w = minflow.nn.init.orthogonal_(minflow.empty(3, 5))
    >>> bool(((w @ w.T) - minflow.eye(3)).abs().max() < 1e-5)
    True
    """
    from .. import linalg
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_: only tensors with 2 or more dimensions are supported, "
                         f"got shape {tuple(tensor.shape)}")
    if tensor.numel() == 0 or tensor.device.type == "meta":
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = F.randn(size=(rows, cols), generator=generator, dtype=tensor.dtype,
                   device=tensor.device)
    if rows < cols:
        flat = flat.T
    with no_grad():
        q, r = linalg.qr(flat)
        q = q * F.sign(F.diagonal(r))
        if rows < cols:
            q = q.T
        tensor.copy_(q.reshape(tuple(tensor.shape)) * gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D ``tensor`` from N(0, std^2), then zero ceil(sparsity * rows) randomly
    chosen entries of every column (Martens 2010).

    >>> w = minflow.nn.init.sparse_(minflow.empty(10, 4), sparsity=0.3)
    >>> (w == 0).sum(0).tolist()
    [3, 3, 3, 3]
    """
    if tensor.ndim != 2:
        raise ValueError(f"sparse_: only tensors with 2 dimensions are supported, got shape "
                         f"{tuple(tensor.shape)}")
    if tensor.device.type == "meta":
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    normal_(tensor, 0.0, std, generator)
    with no_grad():
        for col in range(cols):
            zero_rows = F.randperm(rows, generator=generator, device=tensor.device)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(init, example_args):
    """The old name of ``init`` (no trailing underscore), warning as torch does."""
    new_name = init.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return init(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"""{old_name}(...): the deprecated name of ``{new_name}``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = minflow.nn.init.{old_name}({example_args})
    >>> caught[0].category.__name__
    'FutureWarning'
    """
    return deprecated_init


uniform = _deprecated(uniform_, "minflow.empty(2, 3)")
normal = _deprecated(normal_, "minflow.empty(2, 3)")
constant = _deprecated(constant_, "minflow.empty(2, 3), 0.5")
eye = _deprecated(eye_, "minflow.empty(2, 3)")
dirac = _deprecated(dirac_, "minflow.empty(2, 3, 3)")
xavier_uniform = _deprecated(xavier_uniform_, "minflow.empty(2, 3)")
xavier_normal = _deprecated(xavier_normal_, "minflow.empty(2, 3)")
kaiming_uniform = _deprecated(kaiming_uniform_, "minflow.empty(2, 3)")
kaiming_normal = _deprecated(kaiming_normal_, "minflow.empty(2, 3)")
orthogonal = _deprecated(orthogonal_, "minflow.empty(2, 3)")
sparse = _deprecated(sparse_, "minflow.empty(2, 3), 0.5")
