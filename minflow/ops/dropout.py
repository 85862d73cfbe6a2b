"""More dropouts, with PyTorch's signatures (minflow.nn.functional takes ``__all__``):
dropout1d and dropout3d (whole channels of 1-D signals and of volumes) and the alpha
dropouts that keep SELU's zero mean and unit variance. Composites: a mask drawn from the
default generator (so ``minflow.manual_seed`` makes them reproducible), then arithmetic.
dropout and dropout2d are in ops/nn.py.
"""
import math
import warnings

from ..core.functional import public
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from .infer import check_number
from .nn import dropout_scale

__all__ = ["dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]
# (torch's top-level feature_dropout and the in-place dropout_ forms are minflow.* only)

# -SELU_SCALE * SELU_ALPHA: the value SELU saturates to, where alpha dropout sets inputs
ALPHA = 1.7580993408473766


def _check_p(fn, p):
    if not 0.0 <= check_number(fn, "p", p) <= 1.0:
        raise ValueError(f"{fn}: dropout probability has to be between 0 and 1, but got {p}")


def _keep(input, noise_shape, p):
    """1.0 where kept (probability 1 - p), 0.0 where dropped, of ``noise_shape``."""
    draw = F.rand(*noise_shape, dtype=input.dtype, device=input.device)
    return F.cast(F.ge(draw, p), input.dtype)


def _channel_noise(input):
    return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)


@public
def dropout1d(input, p=0.5, training=True, inplace=False):
    """dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zero whole channels of an (N, C, L) or unbatched (C, L) input with probability ``p``,
    scaling the rest by 1 / (1 - p); the identity when not training.

    >>> minflow.nn.functional.dropout1d(minflow.ones(2, 3, 4), 0.5).shape
    minflow.Size([2, 3, 4])
    """
    _check_p("dropout1d", p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           f"input. Note that dropout1d exists to provide channel-wise dropout "
                           f"on inputs with 1 spatial dimension, a channel dimension, and an "
                           f"optional batch dimension (i.e. 2D or 3D inputs).")
    if not training or p == 0:
        return input
    if inplace:
        return _inplace(dropout1d, "dropout1d", input, p)
    noise = (input.shape[0], 1) if input.ndim == 2 else _channel_noise(input)
    return F.mul(input, F.mul(_keep(input, noise, p), dropout_scale(p)))


@public
def dropout3d(input, p=0.5, training=True, inplace=False):
    """dropout3d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zero whole channels of an (N, C, D, H, W) or unbatched (C, D, H, W) input with
    probability ``p``, scaling the rest by 1 / (1 - p); the identity when not training.

    >>> minflow.nn.functional.dropout3d(minflow.ones(2, 3, 2, 2, 2), 0.5).shape
    minflow.Size([2, 3, 2, 2, 2])
    """
    _check_p("dropout3d", p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: received a {input.ndim}-D input; dropout3d drops channels "
                      f"of 4-D (unbatched) or 5-D inputs (use dropout instead)", stacklevel=2)
    if not training or p == 0:
        return input
    if inplace:
        return _inplace(dropout3d, "dropout3d", input, p)
    noise = (input.shape[0],) + (1,) * (input.ndim - 1) if input.ndim == 4 else \
        _channel_noise(input)
    return F.mul(input, F.mul(_keep(input, noise, p), dropout_scale(p)))


def _alpha(fn, input, p, training, noise_shape):
    _check_p(fn, p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return F.mul(input, 0.0)
    keep = _keep(input, noise_shape, p)
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    # torch's: b = (keep - 1) * alpha * a + alpha * a * p; out = x * keep * a + b
    b = F.add(F.mul(F.sub(keep, 1.0), ALPHA * a), ALPHA * a * p)
    return F.add(F.mul(input, F.mul(keep, a)), b)


@public
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    Dropout for SELU networks: each element is set, with probability ``p``, to SELU's
    negative saturation value -1.7581..., then an affine map restores zero mean and unit
    variance: out = a * (x * keep + alpha' * (1 - keep)) + b, as torch. The identity when
    not training (the default).

    >>> x = minflow.ones(3)
    >>> minflow.nn.functional.alpha_dropout(x, 0.5) is x
    True
    """
    if inplace:
        return _inplace(alpha_dropout, "alpha_dropout", input, p, training)
    return _alpha("alpha_dropout", input, p, training, tuple(input.shape))


@public
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """feature_alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    ``alpha_dropout`` of whole channels (dim 1) of an (N, C, *) input.

    >>> minflow.nn.functional.feature_alpha_dropout(minflow.ones(2, 3, 4), 0.5,
    ...                                              training=True).shape
    minflow.Size([2, 3, 4])
    """
    if inplace:
        return _inplace(feature_alpha_dropout, "feature_alpha_dropout", input, p, training)
    noise = _channel_noise(input) if input.ndim >= 2 else tuple(input.shape)
    return _alpha("feature_alpha_dropout", input, p, training, noise)


@public
def feature_dropout(input, p, train):
    """feature_dropout(input, p, train) -> Tensor: torch's top-level channel dropout, whole
    (n, c) slices of an (N, C, *) input zeroed with probability ``p``, the rest scaled by
    1 / (1 - p); the identity when not ``train``.

    >>> minflow.feature_dropout(minflow.ones(2, 3, 4), 0.5, False).shape
    minflow.Size([2, 3, 4])
    """
    _check_p("feature_dropout", p)
    if input.ndim < 2:
        raise RuntimeError(f"feature_dropout: Feature dropout requires at least 2 dimensions in "
                           f"the input, got shape {list(input.shape)}")
    if not train or p == 0:
        return input
    return F.mul(input, F.mul(_keep(input, _channel_noise(input), p), dropout_scale(p)))


def _in_place(fn, name, doc):
    def method(input, p, train):
        return _inplace(fn, name, input, p, train)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    public(method, name=name)


_in_place(F.dropout, "dropout_", "dropout_(input, p, train) -> input, dropout in place.\n\n"
          ">>> minflow.dropout_(minflow.ones(2), 0.5, False).tolist()\n[1.0, 1.0]")
_in_place(alpha_dropout, "alpha_dropout_", "alpha_dropout_(input, p, train) -> input, "
          "alpha dropout in place.\n\n>>> minflow.alpha_dropout_(minflow.ones(2), 0.5, "
          "False).tolist()\n[1.0, 1.0]")
_in_place(feature_dropout, "feature_dropout_", "feature_dropout_(input, p, train) -> input, "
          "feature dropout in place.\n\n>>> minflow.feature_dropout_(minflow.ones(2, 2), 0.5, "
          "False).tolist()\n[[1.0, 1.0], [1.0, 1.0]]")
_in_place(feature_alpha_dropout, "feature_alpha_dropout_", "feature_alpha_dropout_(input, p, "
          "train) -> input, feature alpha dropout in place.\n\n>>> "
          "minflow.feature_alpha_dropout_(minflow.ones(2, 2), 0.5, False).tolist()\n"
          "[[1.0, 1.0], [1.0, 1.0]]")
