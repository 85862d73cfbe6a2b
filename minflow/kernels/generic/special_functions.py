"""Kernels of ops/special_functions.py, written once against the array module: from
scipy.special on numpy and cupyx.scipy.special on cupy (float16 computed in float32).
entr needs neither. On a cpu without scipy the others raise an error saying so.

The Bessel functions of the second kind, the modified and spherical Bessel functions and
the Airy function are ports of torch's own code, in bessel.py (imported here to register
them)."""
from ...core.dtype import FLOATS
from ..registry import register_kernel
from . import bessel  # noqa: F401  (registers its kernels)
from .special import _special

SCIPY_NAMES = {"special_i0e": "i0e", "special_i1e": "i1e", "special_bessel_j0": "j0",
               "special_bessel_j1": "j1", "special_erfcx": "erfcx", "special_ndtri": "ndtri",
               "special_log_ndtr": "log_ndtr"}


def _scipy_kernel(op_name, scipy_name):
    def kernel(xp, x):
        special = _special(xp)
        if special is None:
            raise RuntimeError(f"{op_name.replace('_', '.', 1)}: the cpu kernel needs scipy "
                               f"(scipy.special.{scipy_name}); install scipy")
        wide = x.astype(xp.float32) if x.dtype == xp.float16 else x
        return getattr(special, scipy_name)(wide).astype(x.dtype)
    kernel.__name__ = f"{op_name}_kernel"
    return kernel


for _op, _scipy_name in SCIPY_NAMES.items():
    register_kernel(_op, ("cpu", "cuda"), FLOATS)(_scipy_kernel(_op, _scipy_name))


@register_kernel("special_entr", ("cpu", "cuda"), FLOATS)
def entr(xp, x):
    positive = x > 0
    safe = xp.where(positive, x, 1)                 # no log of 0 or negatives computed
    inner = xp.where(x == 0, 0, xp.where(x < 0, -xp.inf, x))     # NaN stays NaN
    return xp.where(positive, -safe * xp.log(safe), inner).astype(x.dtype)
