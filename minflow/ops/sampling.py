"""Random sampling: randperm, multinomial, bernoulli, and the in-place random fills used
by init code (uniform_, normal_, bernoulli_, random_, exponential_, cauchy_, log_normal_,
geometric_).

Every draw comes from a minflow Generator (``generator=`` or the device's default), so
the same seed gives the same values. Kernels: kernels/generic/sampling.py.
"""
import math

import numpy as np

from ..core import dtype as dtypes
from ..core.device import default_device
from ..core.dispatch import apply
from ..core.functional import public, tensor_method
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from ..core.tensor import Tensor
from ..core.tensor_options import tensor_options
from . import infer
from .creation import complex_draw
from .registry import Attr, define_op, get_op

__all__ = ["randperm", "multinomial", "bernoulli"]

RANDOM = ("no_grad", "random")
_GENERATOR = Attr("generator", "any", None, optional=True)

RANDPERM = define_op("randperm", [], attrs=[Attr("n", "int", min=0), Attr("dtype", "dtype"),
                                             Attr("device", "device"), _GENERATOR],
                     infer=lambda n, dtype, device, generator: ((n,), dtype),
                     traits=("creation",) + RANDOM, dtype_from="dtype",
                     doc="A random permutation of 0 .. n-1.")
EXPONENTIAL = define_op("exponential", [], attrs=[Attr("lambd", "float"), Attr("shape", "ints"),
                                                  Attr("dtype", "dtype"),
                                                  Attr("device", "device"), _GENERATOR],
                        infer=lambda lambd, shape, dtype, **_: (
                            (shape, dtype) if lambd > 0 else _raise(RuntimeError(
                                f"expected lambd > 0, got {lambd}"))),
                        traits=("creation",) + RANDOM, dtype_from="dtype",
                        doc="Samples from the exponential distribution of rate lambd.")


def _raise(err):
    raise err


def _multinomial_infer(input, num_samples, replacement, generator):
    infer.check_dtype(input, dtypes.FLOATS, "input")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got {input.ndim}")
    categories = input._data.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(f"cannot sample n_sample > prob_dist.size(-1) samples without "
                           f"replacement: got num_samples={num_samples} > {categories}")
    return tuple(input._data.shape[:-1]) + (num_samples,), dtypes.int64


MULTINOMIAL = define_op("multinomial", ["input"],
                        attrs=[Attr("num_samples", "int", min=1),
                               Attr("replacement", "bool", False), _GENERATOR],
                        infer=_multinomial_infer, traits=RANDOM + ("opaque",),
                        doc="Category indices drawn from the rows of ``input`` (weights).")


def _bernoulli_infer(input, generator):
    infer.check_dtype(input, dtypes.FLOATS, "input")
    return input._data.shape, input.dtype


BERNOULLI = define_op("bernoulli", ["input"], attrs=[_GENERATOR], infer=_bernoulli_infer,
                      traits=RANDOM + ("elementwise",),
                      doc="1 with probability input, else 0 (input's dtype).")


@public
@tensor_options
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """randperm(n, *, generator=None, dtype=int64, device=None) -> Tensor

    A random permutation of the integers 0 .. n-1.

    >>> sorted(minflow.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    out = apply(RANDPERM, (), {"n": n, "generator": generator,
                               "dtype": dtypes.int64 if dtype is None else dtypes.as_dtype(dtype),
                               "device": default_device(device)})
    return out.requires_grad_() if requires_grad else out


@public(method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor

    ``num_samples`` category indices (int64) per row of the non-negative weights
    ``input`` (1-D or 2-D, rows need not sum to 1). Without replacement the indices of a
    row are distinct, so each row needs that many nonzero weights.

    >>> minflow.multinomial(minflow.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial: only floating point weights are supported, got "
                           f"input of dtype {input.dtype.name}")
    return apply(MULTINOMIAL, (input,), {"num_samples": num_samples,
                                         "replacement": replacement, "generator": generator})


@public(method=True)
def bernoulli(input, p=None, *, generator=None):
    """bernoulli(input, p=None, *, generator=None) -> Tensor

    1 with probability ``input`` (elementwise, in [0, 1]), else 0, in input's dtype; with
    a number ``p``, each element is 1 with probability p instead (input gives the shape).

    >>> minflow.bernoulli(minflow.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    if p is not None:
        input = F.full_like(input, p, dtype=input.dtype if input.dtype.is_floating_point
                            else dtypes.get_default_dtype())
    return apply(BERNOULLI, (input,), {"generator": generator})


# ---- in-place fills: draw a fresh tensor like self, then write it into self ---------------

def _draw(self, op_name, **attrs):
    """Samples shaped like self; a complex self gets real and imaginary parts drawn alike,
    side by side (as torch)."""
    shape = tuple(self._data.shape)
    if self.dtype.is_complex:
        return complex_draw(op_name, shape, self.dtype, self.device, False, **attrs)
    return apply(get_op(op_name), (), dict(attrs, shape=shape, dtype=self.dtype,
                                           device=self.device))


def _float_self(self, name, complex_ok=False):
    if not (self.dtype.is_floating_point or (complex_ok and self.dtype.is_complex)):
        raise dtypes.DTypeError(f"{name}: expected a floating point tensor, got "
                                f"{self.dtype.name}")


def _uniform(self, low, high, generator):
    _float_self(self, "uniform_", complex_ok=True)
    if low > high:
        raise RuntimeError(f"uniform_: expects to return a [from, to) range, but found "
                           f"from={low} > to={high}")
    return _draw(self, "uniform", low=float(low), high=float(high), generator=generator)


def _normal(self, mean, std, generator):
    """N(mean, std^2); a complex self gets each part from N(mean, std^2 / 2), as torch."""
    _float_self(self, "normal_", complex_ok=True)
    if std < 0:
        raise RuntimeError(f"normal_: expected std >= 0.0, got {std}")
    if self.dtype.is_complex:
        std = std * 0.5 ** 0.5
    return _draw(self, "normal", mean=float(mean), std=float(std), generator=generator)


def _exponential(self, lambd, generator):
    _float_self(self, "exponential_")
    return _draw(self, "exponential", lambd=float(lambd), generator=generator)


def _cauchy(self, median, sigma, generator):
    """median + sigma * tan(pi * (u - 1/2)), u ~ U[0, 1): the inverse of Cauchy's CDF."""
    _float_self(self, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _draw(self, "uniform", low=0.0, high=1.0, generator=generator)
    return F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), math.pi)), float(sigma)), float(median))


def _log_normal(self, mean, std, generator):
    """exp(N(mean, std^2)): mean and std are the underlying normal's, as torch."""
    _float_self(self, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return F.exp(_draw(self, "normal", mean=float(mean), std=float(std), generator=generator))


def _geometric(self, p, generator):
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...):
    ceil(log(u) / log(1 - p)), u ~ U(0, 1); any dtype, as torch."""
    if p is None:
        raise TypeError("geometric_() missing 1 required positional argument: 'p'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = apply(get_op("uniform"), (), {"low": 0.0, "high": 1.0, "generator": generator,
                                      "shape": tuple(self._data.shape),
                                      "dtype": dtypes.float64, "device": self.device})
    u = F.clamp(u, min=float(np.finfo(np.float64).tiny))      # U[0, 1) -> (0, 1)
    trials = F.clamp(F.ceil(F.div(F.log(u), math.log1p(-p))), min=1.0)
    return F.cast(trials, self.dtype)


def _bernoulli(self, p, generator):
    if isinstance(p, Tensor):
        probs = F.expand(F.cast(p.detach(), self.dtype if self.dtype.is_floating_point
                                else dtypes.float64), tuple(self.shape))
        return F.cast(bernoulli(probs, generator=generator), self.dtype)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_: expected 0 <= p <= 1, got {p}")
    probs = F.full(tuple(self.shape), float(p), device=self.device,
                   dtype=self.dtype if self.dtype.is_floating_point else dtypes.float64)
    return F.cast(bernoulli(probs, generator=generator), self.dtype)


# [0, 2^digits] for floats (every integer there is exact), [0, max] for ints, as torch
_RANDOM_TO = {"float16": 2 ** 11 + 1, "float32": 2 ** 24 + 1, "float64": 2 ** 53 + 1,
              "uint8": 2 ** 8, "int8": 2 ** 7, "int16": 2 ** 15,
              "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1, "bool": 2}


def _random(self, low, high, generator):
    high = _RANDOM_TO[self.dtype.name] if high is None else high
    dtype = dtypes.int64 if self.dtype is dtypes.bool else self.dtype
    out = apply(get_op("randint"), (), {"low": int(low), "high": int(high), "generator": generator,
                                     "shape": tuple(self._data.shape), "dtype": dtype,
                                     "device": self.device})
    return F.cast(out, self.dtype)


def _fill(name, draw, doc):
    def method(self, *args, generator=None, **kwargs):
        return _inplace(lambda t: draw(t, *_params(name, args, kwargs), generator),
                        name, self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    tensor_method(name)(method)


_PARAMS = {"uniform_": (("from", 0.0), ("to", 1.0)), "normal_": (("mean", 0.0), ("std", 1.0)),
           "bernoulli_": (("p", 0.5),), "exponential_": (("lambd", 1.0),),
           "random_": (("from", 0), ("to", None)), "cauchy_": (("median", 0.0), ("sigma", 1.0)),
           "log_normal_": (("mean", 1.0), ("std", 2.0)), "geometric_": (("p", None),)}


def _params(name, args, kwargs):
    """torch's parameters (``from`` is a Python keyword, so they come as *args/**kwargs)."""
    spec = _PARAMS[name]
    if len(args) > len(spec):
        raise TypeError(f"{name}: expected at most {len(spec)} arguments, got {len(args)}")
    unknown = set(kwargs) - {n for n, _ in spec}
    if unknown:
        raise TypeError(f"{name}: unexpected arguments {sorted(unknown)}; expected "
                        f"{[n for n, _ in spec]}")
    values = [kwargs.get(n, d) for n, d in spec]
    values[:len(args)] = args
    if name == "random_" and len(args) == 1:       # random_(to)
        values = [0, args[0]]
    return values


_fill("uniform_", _uniform, "uniform_(from=0, to=1, *, generator=None) -> Tensor\n\nFill with "
      "samples of U[from, to).\n\n>>> minflow.empty(3).uniform_(2, 3).min().item() >= 2\nTrue")
_fill("normal_", _normal, "normal_(mean=0, std=1, *, generator=None) -> Tensor\n\nFill with "
      "samples of N(mean, std^2).\n\n>>> minflow.empty(2).normal_().shape\nminflow.Size([2])")
_fill("bernoulli_", _bernoulli, "bernoulli_(p=0.5, *, generator=None) -> Tensor\n\nFill with 1 "
      "(probability p, a number or a tensor) or 0.\n\n>>> minflow.empty(2).bernoulli_(1.0)"
      ".tolist()\n[1.0, 1.0]")
_fill("exponential_", _exponential, "exponential_(lambd=1, *, generator=None) -> Tensor\n\n"
      "Fill with samples of the exponential distribution of rate lambd (mean 1 / lambd).\n\n"
      ">>> minflow.empty(3).exponential_().min().item() >= 0\nTrue")
_fill("random_", _random, "random_(from=0, to=None, *, generator=None) -> Tensor\n\nFill with "
      "integers drawn uniformly from [from, to - 1] (to None: up to the dtype's exact "
      "range).\n\n>>> minflow.zeros(3, dtype=minflow.int64).random_(5).max().item() < 5\nTrue")
_fill("cauchy_", _cauchy, "cauchy_(median=0, sigma=1, *, generator=None) -> Tensor\n\nFill "
      "with samples of the Cauchy distribution.\n\n>>> minflow.empty(2).cauchy_().shape\n"
      "minflow.Size([2])")
_fill("log_normal_", _log_normal, "log_normal_(mean=1, std=2, *, generator=None) -> Tensor\n\n"
      "Fill with exp(x), x ~ N(mean, std^2).\n\n>>> minflow.empty(3).log_normal_().min()"
      ".item() > 0\nTrue")
_fill("geometric_", _geometric, "geometric_(p, *, generator=None) -> Tensor\n\nFill with the "
      "number of Bernoulli(p) trials up to the first success (1, 2, ...).\n\n"
      ">>> minflow.empty(4).geometric_(0.5).min().item() >= 1\nTrue")
