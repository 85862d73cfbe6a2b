"""Finite-difference gradient checks, as ``torch.autograd.gradcheck``."""
import numpy as np

from ..core.device import to_numpy
from ..core.namespace import F
from ..core.tensor import Tensor
from .engine import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree.

    >>> class Wrong(minflow.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, grad_out):
    ...         return grad_out * 3
    >>> x = minflow.tensor([1.0], dtype=minflow.float64, requires_grad=True)
    >>> minflow.autograd.gradcheck(Wrong.apply, (x,))
    Traceback (most recent call last):
    ...
    minflow.autograd.gradcheck.GradcheckError: gradcheck: gradient of output 0 w.r.t. input 0 differs by up to ...
    """


def _outputs(fn, inputs):
    out = fn(*inputs)
    return out if isinstance(out, tuple) else (out,)


def _numerical(fn, inputs, i, out_index, grad_out, eps):
    """d <grad_out, fn(inputs)[out_index]> / d inputs[i], by central differences.

    For complex tensors <v, y> is Re(sum(conj(v) y)), a real function, and a complex
    input's gradient is d/d(real part) + i d/d(imaginary part), torch's convention: its
    real and imaginary parts are perturbed in turn.

    NOTE: perturbs the input's own array element by element (not a reshaped copy), so
    non-contiguous inputs work too.
    """
    data = inputs[i]._data
    is_complex = data.dtype.kind == "c"
    result = np.zeros(data.shape, np.complex128 if is_complex else np.float64)
    for idx in np.ndindex(*data.shape):
        orig = data[idx].item()
        for unit in ((1, 1j) if is_complex else (1,)):
            values = []
            for delta in (eps * unit, -eps * unit):
                data[idx] = orig + delta
                out = to_numpy(_outputs(fn, inputs)[out_index]._data)
                values.append(float(np.real(np.sum(np.conj(grad_out) * out))))
            data[idx] = orig
            result[idx] += unit * (values[0] - values[1]) / (2 * eps)
    return result


def _random_like(rng, out):
    """A random output gradient: complex for a complex output."""
    shape = out._data.shape
    if out.dtype.is_complex:
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return rng.standard_normal(shape)


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0):
    """Compare autograd's gradients of ``fn`` with central differences, in float64 (or
    complex128: real and imaginary parts are perturbed in turn).

    ``inputs``: a tensor or tuple; tensors that require grad are checked (use float64 or
    complex128).
    Returns True, or raises GradcheckError naming the input and output and the gap.
    ``nondet_tol`` is accepted for PyTorch compatibility: minflow's backward is
    deterministic, so it has nothing to tolerate.

    >>> x = minflow.tensor([0.5, -1.0], dtype=minflow.float64, requires_grad=True)
    >>> minflow.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    True
    """
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck: no input requires grad")
    for i in diff:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            raise ValueError(f"gradcheck: input {i} is {inputs[i].dtype.name}; use float64 "
                             f"or complex128")
    outs = _outputs(fn, inputs)
    rng = np.random.default_rng(0)
    for o, out in enumerate(outs):
        if not isinstance(out, Tensor) or not out.requires_grad:
            continue
        grad_out = _random_like(rng, out)
        g = F.tensor(grad_out, dtype=out.dtype, device=out.device)
        analytical = autograd_grad(out, [inputs[i] for i in diff], g, retain_graph=True,
                                   allow_unused=True)
        for i, a in zip(diff, analytical):
            num = _numerical(fn, inputs, i, o, grad_out, eps)
            ana = np.zeros_like(num) if a is None else to_numpy(a._data).astype(num.dtype)
            if not np.allclose(ana, num, atol=atol, rtol=rtol):
                gap = np.abs(ana - num).max()
                msg = (f"gradcheck: gradient of output {o} w.r.t. input {i} differs by up to "
                       f"{gap:.3g}\nanalytical:\n{ana}\nnumerical:\n{num}")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """gradcheck of the first derivative (checks that backward is differentiable).

    >>> x = minflow.tensor([0.5, -1.0], dtype=minflow.float64, requires_grad=True)
    >>> minflow.autograd.gradgradcheck(lambda t: t.tanh(), (x,))
    True
    """
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    rng = np.random.default_rng(1)

    def first_grads(*xs):
        outs = _outputs(fn, xs)
        seeds = [F.tensor(rng_fixed[k], dtype=o.dtype, device=o.device)
                 for k, o in enumerate(outs)]
        found = autograd_grad(outs, [x for x in xs if isinstance(x, Tensor) and
                                     x.requires_grad], seeds, create_graph=True,
                              allow_unused=True)
        return tuple(g for g in found if g is not None)

    rng_fixed = [_random_like(rng, o).astype(o.dtype.np)
                 for o in _outputs(fn, inputs)]
    try:
        return gradcheck(first_grads, inputs, eps=eps, atol=atol, rtol=rtol,
                         raise_exception=raise_exception)
    except GradcheckError as err:      # say that the first derivative is what differs
        raise GradcheckError(str(err).replace("gradcheck: gradient of output",
                                              "gradgradcheck: gradient of first-derivative "
                                              "output", 1)) from None
