"""check_op: one call runs the generic op checks (Chainer's test harness idea: a case only
declares inputs and the expected forward).

    forward          output == reference(arrays) for every sample, dtype and device
    dtype            output dtype == the reference's dtype
    meta             shape and dtype on the meta device == eager ones
    non_contiguous   strided views as inputs give the same result
    undeclared_dtype a dtype the op has no kernel for raises (naming the op) or is
                     promoted: it never runs silently in that dtype
    gradcheck        autograd vs central differences (float64, cpu)
    gradgradcheck    the same for the first derivative (backward is differentiable)
    graph_grads      graph mode (trace, backward, compile) == eager, outputs and grads
    inplace          ``x.<name>_(...)`` writes the functional result into x
    out              ``fn(..., out=t)`` writes the functional result into t
    errors           each bad call raises the expected error with the expected message

Failures are collected and raised together as an ``OpCheckError`` naming the check, the
sample (its index, shapes and attrs), the dtype and device, and the max abs / rel error.
"""
import inspect
import re

import numpy as np

from .. import graph as mg
from ..autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ..core import dtype as _dtypes
from ..core.device import cuda_is_available
from ..core.random import manual_seed
from ..core.tensor import Tensor
from ..kernels.registry import registered_pairs
from ..ops.registry import OpDef, get_op

__all__ = ["check_op", "Sample", "OpCheckError", "CheckReport", "CHECKS"]

CHECKS = ("forward", "dtype", "meta", "non_contiguous", "undeclared_dtype", "gradcheck",
          "gradgradcheck", "graph_grads", "inplace", "out", "errors")

TOLERANCES = {"float16": (3e-3, 3e-3), "float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12),
              "complex64": (1e-5, 1e-6), "complex128": (1e-10, 1e-12)}
_ERRORS = (TypeError, ValueError, RuntimeError, IndexError)


class OpCheckError(AssertionError):
    """One or more checks of ``check_op`` failed; the message lists each.

    >>> Sample = minflow.testing.Sample
    >>> minflow.testing.check_op(minflow.exp, [Sample(np.zeros(2))], lambda x: x,
    ...                          dtypes=["float64"], devices=["cpu"], checks=("forward",))
    Traceback (most recent call last):
    ...
    minflow.testing.checks.OpCheckError: check_op(exp): 1 failed
      check 'forward', sample 0 Sample(float64[2]) as float64 on cpu: max abs error 1 (at [0]), ...
    """


class Sample:
    """One call of the op: positional ``args`` (numpy arrays become tensors; floating
    ones take the dtype under test) and keyword ``kwargs`` (attrs), passed as given.

    >>> minflow.testing.Sample(np.ones((2, 3)), negative_slope=0.2)
    Sample(float64[2, 3], negative_slope=0.2)
    """

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def arrays(self, dtype):
        """The args with floating arrays cast to ``dtype`` (a dtype name); complex arrays
        too, to a complex dtype."""
        kinds = "fc" if dtype.startswith("complex") else "f"
        return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind in kinds else a
                for a in self.args]

    def __repr__(self):
        args = [f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a)
                for a in self.args]
        return f"Sample({', '.join(args + [f'{k}={v!r}' for k, v in self.kwargs.items()])})"


class CheckReport:
    """What ``check_op`` ran: ``counts[check]`` = cases passed, and the failures.

    >>> Sample = minflow.testing.Sample
    >>> report = minflow.testing.check_op(minflow.exp, [Sample(np.zeros(2))], np.exp,
    ...                                   devices=["cpu"], checks=("forward",))
    >>> report.counts, report.failures      # float16, float32, float64, complex64, complex128
    ({'forward': 5, 'dtype': 5}, [])
    """

    def __init__(self, name):
        self.name, self.counts, self.failures = name, {}, []

    def passed(self, check):
        self.counts[check] = self.counts.get(check, 0) + 1

    def fail(self, check, where, detail):
        self.failures.append(f"check '{check}', {where}: {detail}")

    def __str__(self):
        runs = ", ".join(f"{c} {n}" for c, n in self.counts.items())
        if not self.failures:
            return f"check_op({self.name}): all passed ({runs})"
        return (f"check_op({self.name}): {len(self.failures)} failed\n  "
                + "\n  ".join(self.failures))

    __repr__ = __str__


def check_op(fn, samples, reference, *, op=None, dtypes=None, devices=None, grad=None,
             gradgrad=True, graph=True, inplace=None, out=None, errors=(), undeclared=None,
             tol=None, check_dtype=True, checks=CHECKS):
    """Run the generic checks of an op; return a CheckReport, or raise OpCheckError.

    fn: the public function (or an op name / OpDef, called through the dispatcher).
    samples: a list of ``Sample``, or ``samples(dtype_name) -> list of Sample`` whose
    arrays already have that dtype. reference: ``reference(*arrays, **kwargs)`` -> array
    (or tuple), numpy. op: the op whose kernels declare the dtypes (found from ``fn``
    where it names one). dtypes: dtype names to run forward in (default: the op's cpu
    kernel dtypes). devices: default cpu, and cuda where available. grad: run the
    gradient checks (default: the op is differentiable). inplace / out: a Tensor method
    name / True, or False to skip (default: where ``<name>_`` / an ``out`` parameter
    exist). errors: ``(Sample or callable, exception type, message regex)`` triples.
    undeclared: dtype names expected to fail or promote (default: those without a kernel).
    tol: ``{dtype name: (rtol, atol)}`` over TOLERANCES.

    >>> Sample = minflow.testing.Sample
    >>> report = minflow.testing.check_op(minflow.exp, [Sample(np.linspace(-1, 1, 6))],
    ...                                   np.exp, devices=["cpu"], checks=("forward", "gradcheck"))
    >>> print(report)
    check_op(exp): all passed (forward 5, dtype 5, gradcheck 1)
    """
    fn, op = _resolve(fn, op)
    name = op.name if op is not None else getattr(fn, "__name__", "fn")
    declared = _declared(op)
    run = _Run(fn, op, samples, reference, {**TOLERANCES, **(tol or {})}, CheckReport(name))
    run.dtypes = list(dtypes or declared or ("float32", "float64"))
    run.devices = devices or ["cpu"] + (["cuda"] if cuda_is_available() else [])
    run.check_dtype = check_dtype
    grad = (op.differentiable if op is not None else True) if grad is None else grad
    if "forward" in checks:
        run.forward()
    if "meta" in checks:
        run.meta()
    if "non_contiguous" in checks:
        run.non_contiguous()
    if "undeclared_dtype" in checks and (undeclared or declared):
        run.undeclared(undeclared or [d.name for d in _dtypes.ALL if d.name not in declared],
                       declared)
    if grad:
        run.gradients(gradgrad and "gradgradcheck" in checks, "gradcheck" in checks,
                      graph and "graph_grads" in checks)
    if "inplace" in checks and inplace is not False:
        run.inplace(inplace)
    if "out" in checks and out is not False:
        run.out(out)
    if "errors" in checks:
        run.errors(errors)
    if run.report.failures:
        raise OpCheckError(str(run.report))
    return run.report


def _resolve(fn, op):
    """(callable, OpDef or None) from a function, op name or OpDef."""
    if isinstance(fn, (str, OpDef)):
        op = get_op(fn) if isinstance(fn, str) else fn
        from ..core.dispatch import apply
        return (lambda *args, **kwargs: apply(op, args, kwargs)), op
    if op is None:
        op = getattr(fn, "__minflow_op__", None)       # set by minflow.library.bind_function
    if op is None and _is_public(fn):
        try:
            op = get_op(fn.__name__)
        except KeyError:
            op = None
    return fn, (get_op(op) if isinstance(op, str) else op)


def _is_public(fn):
    """Whether ``fn`` is the built-in public function of its name (minflow.<name>)."""
    from ..core.namespace import F
    name = getattr(fn, "__name__", "")
    return bool(name) and getattr(F, name, None) is fn


def _declared(op):
    return registered_pairs(op).get("cpu", []) if op is not None else []


def compare(got, expected, rtol, atol):
    """(ok, max abs error, max rel error, index of the max abs error) of two arrays."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False, float("inf"), float("inf"), f"shape {list(got.shape)} vs {list(expected.shape)}"
    if got.size == 0:
        return True, 0.0, 0.0, None
    wide = np.complex128 if "c" in (got.dtype.kind, expected.dtype.kind) else np.float64
    g, e = got.astype(wide), expected.astype(wide)
    both_nan = np.isnan(g) & np.isnan(e)
    diff = np.where(both_nan | (g == e), 0.0, np.abs(g - e))
    diff = np.where(np.isnan(diff), np.inf, diff)
    with np.errstate(divide="ignore", invalid="ignore"):     # inf where expected is 0
        rel = np.where(diff == 0, 0.0, diff / np.abs(e))
    ok = bool(np.all(diff <= atol + rtol * np.abs(e)))
    at = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return ok, float(diff.max()), float(rel.max()), list(map(int, at))


def _undeclared_array(a, dtype):
    """A sample array in an undeclared dtype (a complex one's real part, for a real dtype)."""
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiubc":
        return a
    if a.dtype.kind == "c" and not dtype.startswith("complex"):
        a = a.real
    return a.astype(dtype)


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _to_numpy(t):
    return t.detach().cpu().numpy() if isinstance(t, Tensor) else np.asarray(t)


class _Run:
    """The state of one check_op call; each method is one check over the samples."""

    def __init__(self, fn, op, samples, reference, tol, report):
        self.fn, self.op, self.samples, self.reference = fn, op, samples, reference
        self.tol, self.report = tol, report

    def cases(self, dtype):
        """(index, Sample, arrays) for ``dtype`` (a dtype name)."""
        if callable(self.samples):
            return [(i, s, list(s.args)) for i, s in enumerate(self.samples(dtype))]
        return [(i, s, s.arrays(dtype)) for i, s in enumerate(self.samples)]

    def call(self, arrays, kwargs, device="cpu", requires_grad=False, wrap=None):
        tensors = [wrap(a) if wrap and isinstance(a, np.ndarray) else
                   _tensor(a, device, requires_grad) for a in arrays]
        return tensors, self.fn(*tensors, **kwargs)

    def where(self, i, sample, dtype=None, device=None):
        at = f" as {dtype}" if dtype else ""
        return f"sample {i} {sample!r}{at}" + (f" on {device}" if device else "")

    def forward(self):
        for device in self.devices:
            for dtype in self.dtypes:
                for i, sample, arrays in self.cases(dtype):
                    where = self.where(i, sample, dtype, device)
                    try:
                        _, result = self.call(arrays, sample.kwargs, device)
                        expected = self.reference(*arrays, **sample.kwargs)
                    except _ERRORS as err:
                        self.report.fail("forward", where, f"raised {type(err).__name__}: {err}")
                        continue
                    self.match("forward", where, result, expected, dtype)

    def match(self, check, where, result, expected, dtype):
        rtol, atol = self.tol.get(dtype, (0.0, 0.0))
        for k, (got, exp) in enumerate(zip(_as_tuple(result), _as_tuple(expected))):
            label = where + (f", output {k}" if k else "")
            exp = np.asarray(exp)
            ok, abs_err, rel_err, at = compare(_to_numpy(got), exp, rtol, atol)
            if ok:
                self.report.passed(check)
            else:
                self.report.fail(check, label, f"max abs error {abs_err:.3g} (at {at}), max "
                                               f"rel error {rel_err:.3g}; rtol={rtol}, atol={atol}")
            if check == "forward" and self.check_dtype:
                if got.dtype.name != exp.dtype.name:
                    self.report.fail("dtype", label, f"got {got.dtype.name}, expected "
                                                     f"{exp.dtype.name}")
                else:
                    self.report.passed("dtype")

    def meta(self):
        dtype = self.dtypes[0]
        for i, sample, arrays in self.cases(dtype):
            where = self.where(i, sample, dtype)
            try:
                _, eager = self.call(arrays, sample.kwargs)
                _, meta = self.call(arrays, sample.kwargs, wrap=lambda a: _tensor(a, "meta"))
            except _ERRORS as err:
                self.report.fail("meta", where, f"raised {type(err).__name__}: {err}")
                continue
            for e, m in zip(_as_tuple(eager), _as_tuple(meta)):
                if tuple(e.shape) != tuple(m.shape) or e.dtype is not m.dtype:
                    self.report.fail("meta", where, f"meta gives {m.dtype.name}{list(m.shape)}, "
                                                    f"eager {e.dtype.name}{list(e.shape)}")
                else:
                    self.report.passed("meta")

    def non_contiguous(self):
        dtype = self.dtypes[0]
        for i, sample, arrays in self.cases(dtype):
            if not any(isinstance(a, np.ndarray) and a.size > 1 for a in arrays):
                continue
            where = self.where(i, sample, dtype)
            _, expected = self.call(arrays, sample.kwargs)
            tensors, result = self.call(arrays, sample.kwargs, wrap=_strided)
            if not any(isinstance(t, Tensor) and not t.is_contiguous() for t in tensors):
                continue
            self.match("non_contiguous", where, result,
                       tuple(_to_numpy(e) for e in _as_tuple(expected)), dtype)

    def undeclared(self, names, declared):
        samples = self.samples(declared[0] if declared else "float32") \
            if callable(self.samples) else self.samples
        for dtype in names:
            sample = samples[0]
            arrays = [_undeclared_array(a, dtype) for a in sample.args]
            where = self.where(0, sample, dtype)
            try:
                _, result = self.call(arrays, sample.kwargs)
            except _ERRORS as err:
                if self.op is None or self.op.name in str(err):
                    self.report.passed("undeclared_dtype")
                else:
                    self.report.fail("undeclared_dtype", where, f"the error does not name the "
                                     f"op {self.op.name!r}: {type(err).__name__}: {err}")
                continue
            got = [r.dtype.name for r in _as_tuple(result)]
            if dtype in got:
                self.report.fail("undeclared_dtype", where, f"ran in {dtype}, which has no "
                                 f"kernel (declared: {declared}); expected an error")
            else:
                self.report.passed("undeclared_dtype")

    def gradients(self, gradgrad, grad, graph):
        for i, sample, arrays in self.cases("float64"):
            where = self.where(i, sample, "float64")
            leaves = [_tensor(a, "cpu", True) for a in arrays]
            fn = _partial(self.fn, sample.kwargs)
            if not any(isinstance(t, Tensor) and t.requires_grad for t in leaves):
                continue
            for check, run in (("gradcheck", gradcheck), ("gradgradcheck", gradgradcheck)):
                if (check == "gradcheck" and grad) or (check == "gradgradcheck" and gradgrad):
                    try:
                        run(fn, tuple(leaves))
                        self.report.passed(check)
                    except (GradcheckError, *_ERRORS) as err:
                        self.report.fail(check, where, str(err).splitlines()[0])
            if graph:
                self.graph_grads(fn, leaves, where)

    def graph_grads(self, fn, leaves, where):
        """Eager grads of sum(out * w) vs those of the traced, compiled graph."""
        tensors = [t for t in leaves if isinstance(t, Tensor) and t.requires_grad]
        try:
            manual_seed(3)
            outs = _as_tuple(fn(*leaves))
            rng = np.random.default_rng(1)
            weights = [_tensor(rng.uniform(0.5, 1.5, tuple(o.shape)), "cpu") for o in outs]
            _loss(outs, weights).backward()
            eager = [t.grad for t in tensors]
            for t in tensors:
                t.grad = None
            with mg.trace() as g:
                lazy = _as_tuple(fn(*leaves))
                _loss(lazy, weights).backward()
                mg.set_outputs(g, lazy)
            manual_seed(3)
            results = mg.compile(g)()
        except _ERRORS as err:
            self.report.fail("graph_grads", where, f"raised {type(err).__name__}: {err}")
            return
        self.match("graph_grads", where + " (outputs)", results,
                   tuple(_to_numpy(o) for o in outs), "float64")
        for k, (t, e) in enumerate(zip(tensors, eager)):
            got = t.grad
            t.grad = None
            if (got is None) != (e is None):
                self.report.fail("graph_grads", where, f"grad of input {k}: graph "
                                 f"{'none' if got is None else 'some'}, eager "
                                 f"{'none' if e is None else 'some'}")
            elif e is not None:
                self.match("graph_grads", where + f" (grad of input {k})", got, _to_numpy(e),
                           "float64")

    def inplace(self, method):
        if not isinstance(method, str):
            if not _is_public(self.fn):
                return
            method = f"{self.fn.__name__}_"
        if not hasattr(Tensor, method):
            return
        dtype = self.dtypes[0]
        for i, sample, arrays in self.cases(dtype):
            tensors, expected = self.call(arrays, sample.kwargs)
            if not isinstance(expected, Tensor) or expected.shape != tensors[0].shape \
                    or expected.dtype is not tensors[0].dtype:
                continue
            target = tensors[0].clone()
            result = getattr(target, method)(*tensors[1:], **sample.kwargs)
            where = self.where(i, sample, dtype)
            if result is not target:
                self.report.fail("inplace", where, f"{method} returned a new tensor, not self")
                continue
            self.match("inplace", where, target, _to_numpy(expected), dtype)

    def out(self, flag):
        try:
            takes_out = flag is True or "out" in inspect.signature(self.fn).parameters
        except (TypeError, ValueError):
            takes_out = False
        if not takes_out:
            return
        dtype = self.dtypes[0]
        for i, sample, arrays in self.cases(dtype):
            tensors, expected = self.call(arrays, sample.kwargs)
            if not isinstance(expected, Tensor):
                continue
            target = expected.detach().clone().zero_()
            result = self.fn(*tensors, out=target, **sample.kwargs)
            where = self.where(i, sample, dtype)
            if result is not target:
                self.report.fail("out", where, "fn(..., out=t) did not return t")
                continue
            self.match("out", where, target, _to_numpy(expected), dtype)

    def errors(self, cases):
        for k, (bad, error, pattern) in enumerate(cases):
            where = f"error case {k} ({bad!r})"
            try:
                if isinstance(bad, Sample):
                    self.call(bad.args, bad.kwargs)
                else:
                    bad()
            except error as err:
                if re.search(pattern, str(err)):
                    self.report.passed("errors")
                else:
                    self.report.fail("errors", where, f"message {str(err)!r} does not match "
                                                      f"{pattern!r}")
                continue
            except Exception as err:       # noqa: BLE001  (reported, not swallowed)
                self.report.fail("errors", where, f"raised {type(err).__name__}: {err}; "
                                                  f"expected {error.__name__}")
                continue
            self.report.fail("errors", where, f"raised nothing; expected {error.__name__}")


def _tensor(a, device, requires_grad=False):
    if not isinstance(a, np.ndarray):
        return a
    from ..core.namespace import F
    t = F.tensor(a, device=device)
    if requires_grad and t.dtype.is_differentiable:
        t.requires_grad_(True)
    return t


def _strided(a):
    """The same values as a non-contiguous view (every other element of a wider tensor)."""
    from ..core.namespace import F
    if a.ndim == 0 or a.size < 2:
        return F.tensor(a)
    return F.tensor(np.stack([a, a], axis=-1))[..., 0]


def _partial(fn, kwargs):
    return (lambda *args: fn(*args, **kwargs)) if kwargs else fn


def _loss(outs, weights):
    total = None
    for out, w in zip(outs, weights):
        if out.dtype.is_floating_point:
            term = (out * w.to(out.dtype)).sum()
            total = term if total is None else total + term
    return total
