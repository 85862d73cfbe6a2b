"""PyTorch's OpInfo database (torch.testing._internal) as an independent oracle.

Each OpInfo names a torch function and generates sample inputs for it (shapes, broadcasting,
scalars, keyword options, empty tensors, discontiguous views) and, for many ops, inputs that
must raise. Where minflow has a function of the same dotted name (``add``,
``nn.functional.relu``, ``linalg.solve``), the same samples run through both and must give
the same dtypes, shapes and values (and, in float64, the same gradients), and minflow must
raise where torch does, with an exception of the same class.

The harness only converts and compares; which deviations are known and why lives in
opinfo_known.py.
"""
import copy

import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")        # torch.testing._internal imports it
from torch.testing._internal.common_methods_invocations import op_db    # noqa: E402

DTYPES = {getattr(torch, d.name): d for d in minflow.core.dtype.EVERY}
COMPLEX_DTYPES = {torch.complex64, torch.complex128}
# the ops with complex kernels: the others refuse complex inputs (tests/core)
COMPLEX_OPS = {"add", "sub", "mul", "div", "true_divide", "neg", "negative", "pow",
               "float_power", "exp", "log", "sqrt", "abs", "absolute", "conj", "conj_physical",
               "expm1", "log1p", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid",
               "square", "nn.functional.tanh", "nn.functional.sigmoid", "tan", "asin",
               "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10",
               "exp2", "cumsum",
               "resolve_conj", "real", "imag", "angle", "polar", "complex", "view_as_real",
               "view_as_complex", "sum", "mean", "matmul", "mm", "bmm", "reshape", "view",
               "transpose", "permute", "cat", "stack", "index_select", "select", "eq", "ne",
               "isclose", "allclose", "sgn", "where", "fft.fft", "fft.ifft", "fft.fft2",
               "fft.ifft2", "fft.fftn", "fft.ifftn", "fft.hfft", "fft.hfft2", "fft.hfftn",
               "fft.irfft", "fft.irfft2", "fft.irfftn", "fft.fftshift", "fft.ifftshift",
               "linalg.eig", "linalg.eigvals"}
# absolute and relative tolerance per result dtype: numpy and torch round differently
TOLERANCE = {"float16": (1e-3, 1e-3), "bfloat16": (1e-5, 1.6e-2), "float32": (1e-5, 1.3e-5),
             "float64": (1e-7, 1e-7), "complex64": (1e-5, 1.3e-5), "complex128": (1e-7, 1e-7)}
# ops whose values are random draws: only dtypes and shapes are compared
RANDOM = {"bernoulli", "multinomial", "normal", "rand_like", "randint_like", "randn_like",
          "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
          "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
          "nn.functional.rrelu", "uniform", "exponential", "cauchy", "geometric",
          "log_normal", "randint", "randn", "rand", "randperm", "empty", "empty_like",
          "new_empty", "empty_strided", "new_empty_strided", "empty_permuted"}


class Unconvertible(Exception):
    """A sample holds something minflow has no counterpart for (a dtype, a generator...)."""


def resolve(root, name):
    """``root.a.b.c`` for the dotted ``name``, or None."""
    obj = root
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def comparable(opinfo):
    """(torch function, minflow function) when both exist and the OpInfo calls the plain
    torch function (not a wrapper whose signature differs), else None."""
    ours = resolve(minflow, opinfo.name)
    theirs = resolve(torch, opinfo.name)
    if ours is None or theirs is None or opinfo.op is not theirs:
        return None
    return theirs, ours


def cases():
    """(id, opinfo, torch dtype) for every comparable OpInfo and dtype both libraries have."""
    result = []
    for opinfo in op_db:
        if comparable(opinfo) is None:
            continue
        name = opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")
        dtypes = opinfo.supported_dtypes("cpu") & DTYPES.keys()
        if opinfo.name not in COMPLEX_OPS:
            dtypes -= COMPLEX_DTYPES
        for dtype in sorted(dtypes, key=str):
            result.append((f"{name}-{str(dtype)[6:]}", opinfo, dtype))
    return result


def error_cases():
    """(id, opinfo) for every comparable OpInfo that lists inputs which must raise."""
    return [(opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else ""),
             opinfo) for opinfo in op_db
            if opinfo.error_inputs_func is not None and comparable(opinfo) is not None]


# ---- conversion ----------------------------------------------------------------------------
def to_minflow(obj, storages=None, device="cpu"):
    """A torch sample argument as minflow's: tensors copied onto ``device`` (requires_grad
    kept), dtypes mapped, containers rebuilt. With ``storages`` (a dict, filled as it goes)
    tensors that share memory in torch share it in minflow too, with torch's strides (an
    ``out=`` that is a view of an input, an expanded ``out=``); on cpu only."""
    if isinstance(obj, torch.Tensor):
        if obj.dtype not in DTYPES or obj.layout != torch.strided:
            raise Unconvertible(f"tensor of dtype {obj.dtype}")
        if obj.is_meta or obj.dim() > 64:        # numpy holds data and at most 64 dims
            raise Unconvertible(f"{obj.dim()}-d tensor on {obj.device}")
        # a conjugate view's storage holds the unconjugated values: copied, resolved
        if storages is None or obj.requires_grad or obj.is_conj() or device != "cpu":
            result = minflow.tensor(_numpy(obj), dtype=DTYPES[obj.dtype], device=device)
        else:
            result = minflow.from_numpy(_aliased_array(obj, storages))
        return result.requires_grad_() if obj.requires_grad else result
    if isinstance(obj, torch.dtype):
        if obj not in DTYPES:
            raise Unconvertible(f"dtype {obj}")
        return DTYPES[obj]
    if isinstance(obj, torch.Size):
        return tuple(obj)
    if isinstance(obj, torch.device):
        return str(obj)
    if isinstance(obj, (torch.Generator, torch.memory_format, torch.layout, torch.nn.Module)):
        raise Unconvertible(type(obj).__name__)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_minflow(x, storages, device) for x in obj)
    if isinstance(obj, dict):
        return {k: to_minflow(v, storages, device) for k, v in obj.items()}
    return obj


def _numpy(t):
    """A torch tensor's values as a numpy array of its dtype (bfloat16: ml_dtypes')."""
    t = t.detach().cpu().resolve_conj()
    if t.dtype is torch.bfloat16:
        return t.view(torch.int16).numpy().view(minflow.bfloat16.np)
    return t.numpy()


def _aliased_array(t, storages):
    """t's elements as a numpy view, with t's strides, into one copy of its storage per
    torch storage (kept in ``storages``)."""
    storage = t.untyped_storage()
    key = (storage.data_ptr(), t.dtype)
    if key not in storages:
        storages[key] = _numpy(torch.empty(0, dtype=t.dtype).set_(storage)).copy()
    base = storages[key]
    return np.lib.stride_tricks.as_strided(
        base[t.storage_offset():], tuple(t.shape), tuple(s * base.itemsize for s in t.stride()))


def sample_arguments(sample, storages=None, device="cpu"):
    """(input, args, kwargs) of a SampleInput, for torch and for minflow (see to_minflow
    for ``storages`` and ``device``)."""
    theirs = (sample.input, tuple(sample.args), dict(sample.kwargs))
    return theirs, to_minflow(theirs, storages, device)


def tensors_in(obj, kind):
    """Tensors of library ``kind`` (torch.Tensor or minflow.Tensor) in a nested result."""
    if isinstance(obj, kind):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for x in obj for t in tensors_in(x, kind)]
    if isinstance(obj, dict):
        return [t for x in obj.values() for t in tensors_in(x, kind)]
    return []


# ---- comparison ----------------------------------------------------------------------------
def compare(expected, got, values=True, where="result"):
    """A list of the differences between torch's ``expected`` and minflow's ``got``."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, minflow.Tensor):
            return [f"{where}: expected a Tensor, got {type(got).__name__}"]
        return compare_tensor(expected, got, values, where)
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return [f"{where}: expected a sequence of {len(expected)}, got {got!r:.80}"]
        return [d for i, (e, g) in enumerate(zip(expected, got))
                for d in compare(e, g, values, f"{where}[{i}]")]
    if isinstance(expected, (bool, int, float)) and not isinstance(got, minflow.Tensor):
        if values and not (expected == got or (expected != expected and got != got)):
            return [f"{where}: expected {expected!r}, got {got!r}"]
        return []
    return []


def compare_tensor(expected, got, values, where):
    if str(expected.dtype)[6:] != got.dtype.name:
        return [f"{where}: dtype expected {str(expected.dtype)[6:]}, got {got.dtype.name}"]
    if tuple(expected.shape) != tuple(got.shape):
        return [f"{where}: shape expected {tuple(expected.shape)}, got {tuple(got.shape)}"]
    if not values:
        return []
    atol, rtol = TOLERANCE.get(got.dtype.name, (0, 0))
    if got.dtype is minflow.bfloat16:       # compared as float32, which holds it exactly
        expected, got = expected.float(), got.float()
    # force: ZeroTensor grads; resolve_conj: torch's lazily conjugated results
    e, g = expected.resolve_conj().numpy(force=True), got.detach().cpu().numpy()
    if e.dtype.kind in "fc":
        close = np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = g == e
    if close.all():
        return []
    bad = np.argwhere(~close)[0]
    index = tuple(int(i) for i in bad)
    return [f"{where}: {int((~close).sum())} of {close.size} values differ, e.g. at {index}: "
            f"expected {e[index]!r}, got {g[index]!r}"]


def run_sample(opinfo, dtype, sample, functions, device="cpu"):
    """Differences for one sample (empty when it agrees, or when torch rejects it), with
    minflow's tensors on ``device`` (torch's stay on the cpu)."""
    theirs_fn, ours_fn = functions
    try:
        (t_in, t_args, t_kwargs), (m_in, m_args, m_kwargs) = sample_arguments(
            sample, device=device)
    except Unconvertible:
        return []
    try:
        expected = theirs_fn(t_in, *t_args, **t_kwargs)
    except Exception:           # torch rejects it: the error tests cover rejections
        return []
    label = f"sample {sample.summary() if hasattr(sample, 'summary') else sample!r:.300}"
    try:
        got = ours_fn(m_in, *m_args, **m_kwargs)
    except Exception as err:
        return [f"{label}: raised {type(err).__name__}: {err}"]
    values = opinfo.name not in RANDOM
    diffs = compare(expected, got, values)
    if diffs or dtype is not torch.float64 or not values:
        return [f"{label}: {d}" for d in diffs]
    return [f"{label}: {d}" for d in compare_grads(sample, expected, got, t_in, t_args,
                                                    t_kwargs, m_in, m_args, m_kwargs)]


def compare_grads(sample, expected, got, t_in, t_args, t_kwargs, m_in, m_args, m_kwargs):
    """Differences between the gradients of a fixed random projection of the outputs."""
    t_inputs = [t for t in tensors_in((t_in, t_args, t_kwargs), torch.Tensor) if t.requires_grad]
    m_inputs = [t for t in tensors_in((m_in, m_args, m_kwargs), minflow.Tensor)
                if t.requires_grad]
    if not t_inputs or len(t_inputs) != len(m_inputs):
        return []
    try:
        t_outs = [t for t in tensors_in(sample.output_process_fn_grad(expected), torch.Tensor)
                  if t.requires_grad]
        m_outs = [t for t in tensors_in(sample.output_process_fn_grad(got), minflow.Tensor)
                  if t.requires_grad]
    except Exception as err:
        return [f"grad: output_process_fn_grad failed on minflow's result: {err!r:.200}"]
    if not t_outs:
        return []
    if len(m_outs) != len(t_outs):
        return [f"grad: {len(t_outs)} differentiable outputs expected, got {len(m_outs)}"]
    return compare_projected_grads(t_outs, m_outs, t_inputs, m_inputs)


def compare_projected_grads(t_outs, m_outs, t_inputs, m_inputs):
    """Differences between the float64 gradients, with respect to the inputs, of a fixed
    random projection of the outputs (one torch list, one minflow list of each)."""
    rng = np.random.default_rng(0)
    cotangents = [rng.standard_normal(tuple(t.shape)) + (1j * rng.standard_normal(
        tuple(t.shape)) if t.is_complex() else 0) for t in t_outs]
    t_grads = torch.autograd.grad(t_outs, t_inputs, [torch.tensor(c) for c in cotangents],
                                  allow_unused=True)
    try:
        m_grads = minflow.autograd.grad(m_outs, m_inputs,
                                        [minflow.tensor(c, dtype=o.dtype, device=o.device)
                                         for c, o in zip(cotangents, m_outs)],
                                        allow_unused=True)
    except Exception as err:
        return [f"grad: raised {type(err).__name__}: {err}"]
    diffs = []
    for i, (e, g) in enumerate(zip(t_grads, m_grads)):
        if e is None and g is None:
            continue
        e = torch.zeros_like(t_inputs[i]) if e is None else e
        if g is None:
            g = minflow.zeros_like(m_inputs[i])
        diffs += compare(e, g, True, f"grad of input {i}")
    return diffs


def run_errors(opinfo, functions, device="cpu"):
    """Differences on the OpInfo's error inputs: minflow must raise the same class."""
    theirs_fn, ours_fn = functions
    diffs = []
    for error_input in opinfo.error_inputs("cpu"):
        sample = error_input.sample_input
        try:
            (t_in, t_args, t_kwargs), (m_in, m_args, m_kwargs) = sample_arguments(
                sample, {}, device)
        except Unconvertible:
            continue
        expected = error_input.error_type
        t_in, t_args, t_kwargs = copy.deepcopy((t_in, t_args, t_kwargs))   # keeps aliasing
        try:                    # on copies: a rejected call may leave its tensors broken
            theirs_fn(t_in, *t_args, **t_kwargs)
            continue            # torch itself accepts it: a stale error input
        except Exception:
            pass
        label = f"error input {sample!r:.200} (torch: {expected.__name__}: " \
                f"{error_input.error_regex!r:.80})"
        try:
            ours_fn(m_in, *m_args, **m_kwargs)
        except Exception as err:
            if not isinstance(err, expected):
                diffs.append(f"{label}: raised {type(err).__name__}: {err}")
            continue
        diffs.append(f"{label}: did not raise")
    return diffs
