"""Bad input over minflow's public API, with torch as the oracle (used by
test_bad_input_sweep.py).

Each case is one call made twice, once on torch and once on minflow, with arguments that
are wrong in one way: a string, a list of strings or None where a tensor goes; an integer
tensor where a floating one goes and the reverse; an int argument (a dim, a size, a kernel
size) replaced by a string, a float, or a value far out of range; a module built with such
an argument or called on such an input. The calls come from torch's own OpInfo samples and
ModuleInfo inputs (the first of each), varied one argument at a time.

The verdict on a case (``judge``):
- torch raises: minflow raises the same class (torch's RuntimeError subclasses count as
  RuntimeError; torch's AttributeError, its own crash on a non-tensor, counts as
  TypeError), with a message that names the function and is none of Python's or numpy's
  internal messages (RAW);
- torch accepts: minflow accepts too and gives torch's result (dtype, shape and values).
"""
import copy
import re
import warnings

import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_modules import module_db

import minflow
from moduleinfo_harness import Converter, minflow_class
from moduleinfo_harness import RANDOM as RANDOM_MODULES
from opinfo_harness import RANDOM, Unconvertible, comparable, compare, to_minflow

# fragments of messages raised from inside Python or numpy, which name neither the
# function called nor the argument at fault
RAW = ("could not be broadcast", "tuple index out of range", "list index out of range",
       "object has no attribute", "unsupported operand", "is out of bounds for axis",
       "is out of bounds for array", "invalid literal for", "cannot reshape array",
       "could not convert", "setting an array element", "Cannot cast ufunc",
       "not supported for the input types", "'NoneType' object", "object is not iterable",
       "object is not subscriptable", "object cannot be interpreted", "not supported between "
       "instances of", "unhashable type", "not all arguments converted")

NOT_TENSORS = {"str": "abc", "strlist": ["a", "b"], "None": None}
NOT_INTS = {"str": "a", "float": 1.5, "big": 10, "neg": -10}


def message_fault(name, err):
    """What is wrong with the message of ``err`` raised by function ``name``, or None."""
    message = str(err)
    raw = [fragment for fragment in RAW if fragment in message]
    if raw:
        return f"an internal message ({raw[0]!r})"
    short = name.split(".")[-1]
    if short.lower() not in message.lower() and not re.match(r"^[\w.]+(\(\))?:? ", message):
        return "a message that does not name the function"
    return None


def call(fn, args, kwargs):
    """(result, None) or (None, the exception) of ``fn(*args, **kwargs)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs), None
        except Exception as err:        # noqa: BLE001 - any error is the result under test
            return None, err


def expected_class(err):
    """The class (or classes) minflow must raise where torch raised ``err``: torch's
    AttributeError and AssertionError are its own crashes inside Python code (a string
    without ``.size()``, a failed ``assert``), for which a clear TypeError, ValueError or
    RuntimeError is right; a RuntimeError subclass counts as RuntimeError."""
    if isinstance(err, AttributeError):
        return TypeError
    if isinstance(err, AssertionError):
        return (TypeError, ValueError, RuntimeError)
    return RuntimeError if isinstance(err, RuntimeError) else type(err)


def judge(name, expected, got, values=True):
    """The fault of minflow's (result, error) ``got`` against torch's ``expected``, or None."""
    (t_result, t_err), (m_result, m_err) = expected, got
    if t_err is not None:
        if m_err is None:
            return f"torch raises {type(t_err).__name__} ({str(t_err)[:80]}), minflow accepts"
        base = expected_class(t_err)
        if not isinstance(m_err, base):
            return f"raises {type(m_err).__name__}, torch {type(t_err).__name__}: {m_err}"
        fault = message_fault(name, m_err)
        return f"{fault}: {type(m_err).__name__}: {m_err}" if fault else None
    if m_err is not None:
        return f"torch accepts, minflow raises {type(m_err).__name__}: {m_err}"
    diffs = compare(t_result, m_result, values)
    return f"result differs: {diffs[0]}" if diffs else None


# ---- ops: OpInfo samples, varied ---------------------------------------------------------
def _op_name(opinfo):
    return opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")


def op_cases():
    """(name, opinfo) for every OpInfo minflow has a function for."""
    return [(_op_name(opinfo), opinfo) for opinfo in op_db if comparable(opinfo) is not None]


def first_sample(opinfo):
    """The OpInfo's first float32 sample (int64 for integer-only ops), or None."""
    dtypes = opinfo.supported_dtypes("cpu")
    dtype = next((d for d in (torch.float32, torch.int64) if d in dtypes), None)
    if dtype is None:
        return None
    return next(iter(opinfo.sample_inputs("cpu", dtype)), None)


def _replaced(value, label):
    """Variants of one argument: (label, bad value)."""
    if isinstance(value, torch.Tensor):
        found = [(f"{label}={k}", v) for k, v in NOT_TENSORS.items()]
        if value.dtype.is_floating_point:
            found.append((f"{label}=int64", (value * 4).to(torch.int64)))
        elif value.dtype in (torch.int32, torch.int64):
            found.append((f"{label}=float32", value.float()))
        return found
    if isinstance(value, int) and not isinstance(value, bool):
        return [(f"{label}={k}", v) for k, v in NOT_INTS.items()]
    return []


def variants(sample):
    """(label, input, args, kwargs) of the sample with one argument made bad."""
    inp, args, kwargs = sample.input, list(sample.args), dict(sample.kwargs)
    found = [(label, bad, args, kwargs) for label, bad in _replaced(inp, "input")]
    for i, arg in enumerate(args):
        found += [(label, inp, args[:i] + [bad] + args[i + 1:], kwargs)
                  for label, bad in _replaced(arg, f"arg{i}")]
    for key, arg in kwargs.items():
        if key != "out":
            found += [(label, inp, args, {**kwargs, key: bad})
                      for label, bad in _replaced(arg, key)]
    return found


def _method_of(opinfo, inp):
    """(torch's, minflow's) Tensor method of the op, when both have it and the input is a
    tensor, else None."""
    short = opinfo.name
    if "." in short or not isinstance(inp, torch.Tensor):
        return None
    if getattr(torch.Tensor, short, None) is None or getattr(minflow.Tensor, short, None) is None:
        return None
    return short


def run_op(name, opinfo):
    """{case label: fault} over the varied samples of one op, as a function and (where the
    input stays a tensor) as a Tensor method."""
    sample = first_sample(opinfo)
    if sample is None:
        return {}, 0
    theirs, ours = comparable(opinfo)
    values = opinfo.name not in RANDOM
    faults, count = {}, 0
    for label, inp, args, kwargs in variants(sample):
        try:
            m_inp, m_args, m_kwargs = to_minflow((inp, tuple(args), kwargs))
        except Unconvertible:
            continue
        t_inp, t_args, t_kwargs = copy.deepcopy((inp, tuple(args), kwargs))
        calls = [(label, theirs, ours, (t_inp,) + t_args, (m_inp,) + m_args)]
        method = _method_of(opinfo, inp) if not label.startswith("input=") else None
        if method:
            calls.append((f"{label} (method)", getattr(t_inp, method),
                          getattr(m_inp, method), t_args, m_args))
        for case, t_fn, m_fn, t_all, m_all in calls:
            count += 1
            fault = judge(name, call(t_fn, t_all, t_kwargs), call(m_fn, m_all, m_kwargs),
                          values)
            if fault:
                faults[case] = fault
    return faults, count


# ---- modules: ModuleInfo inputs, varied --------------------------------------------------
def module_cases():
    """(name, module info) for every ModuleInfo minflow.nn has a module for."""
    return [(info.name, info) for info in module_db if minflow_class(info) is not None]


def module_variants(ctor, forward):
    """(label, constructor args, kwargs, forward args): one bad constructor argument, or one
    bad forward input."""
    args, kwargs = list(ctor.args), dict(ctor.kwargs)
    f_args = list(forward.args)
    found = []
    for i, arg in enumerate(args):
        found += [(label, args[:i] + [bad] + args[i + 1:], kwargs, f_args)
                  for label, bad in _replaced(arg, f"ctor{i}")]
    for key, arg in kwargs.items():
        found += [(label, args, {**kwargs, key: bad}, f_args)
                  for label, bad in _replaced(arg, f"ctor {key}")]
        if isinstance(arg, float):
            found += [(f"ctor {key}={k}", args, {**kwargs, key: bad}, f_args)
                      for k, bad in {"str": "a", "neg": -1.0, "big": 2.0}.items()]
    if f_args and isinstance(f_args[0], torch.Tensor):
        x = f_args[0]
        found += [(label, args, kwargs, [bad] + f_args[1:])
                  for label, bad in _replaced(x, "forward input")]
        found.append(("forward input ndim+2", args, kwargs, [x[None, None]] + f_args[1:]))
        if x.dim() > 1:
            found.append(("forward input ndim-1", args, kwargs, [x[0, 0]] + f_args[1:]))
    return found


def _build_and_call(cls, args, kwargs, f_args, state=None):
    module = cls(*args, **kwargs)
    if state is not None:
        module.load_state_dict(state)
    return module(*f_args)


def run_module(name, info):
    """{case label: fault} over the varied first input of one ModuleInfo."""
    inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float32,
                                     requires_grad=False, training=True)
    module_input = next((m for m in inputs if m.forward_input is not None
                         and not m.forward_input.kwargs), None)
    if module_input is None:
        return {}, 0
    faults, count = {}, 0
    ours_cls = minflow_class(info)
    for label, args, kwargs, f_args in module_variants(module_input.constructor_input,
                                                       module_input.forward_input):
        convert = Converter()
        try:
            m_args, m_kwargs, m_f_args = convert((args, kwargs, f_args))
        except Unconvertible:
            continue
        torch.manual_seed(0)
        expected = call(_build_and_call, (info.module_cls, args, kwargs, f_args), {})
        state = None
        if expected[1] is None and not info.is_lazy:    # torch's weights into minflow's
            torch.manual_seed(0)
            module = info.module_cls(*args, **kwargs)
            state = {k: convert(v.detach()) for k, v in module.state_dict().items()}
            expected = call(module, f_args, {})
        count += 1
        got = call(_build_and_call, (ours_cls, m_args, m_kwargs, m_f_args, state), {})
        fault = judge(name.split(".")[-1], expected, got,
                      values=not info.is_lazy and info.module_cls.__name__ not in RANDOM_MODULES)
        if fault:
            faults[label] = fault
    return faults, count


# ---- torch's own error inputs: the messages (test_opinfo and test_moduleinfo check the class)
def error_input_faults(name, opinfo):
    """{error input label: fault of minflow's message} over the OpInfo's error inputs that
    torch rejects."""
    from opinfo_harness import sample_arguments
    theirs, ours = comparable(opinfo)
    faults = {}
    for i, error_input in enumerate(opinfo.error_inputs("cpu")):
        try:
            (t_in, t_args, t_kwargs), (m_in, m_args, m_kwargs) = sample_arguments(
                error_input.sample_input, {})
        except Unconvertible:
            continue
        _, t_err = call(theirs, copy.deepcopy((t_in,) + t_args), copy.deepcopy(t_kwargs))
        _, m_err = call(ours, (m_in,) + m_args, m_kwargs)
        fault = t_err is not None and m_err is not None and message_fault(name, m_err)
        if fault:
            faults[f"error input {i}"] = f"{fault}: {type(m_err).__name__}: {m_err}"
    return faults


def module_error_input_faults(name, info):
    """{error input label: fault of minflow's message} over the ModuleInfo's error inputs."""
    from torch.testing._internal.common_modules import ModuleErrorEnum

    def build_and_call(cls, args, kwargs, f_args, f_kwargs, on_forward):
        module = cls(*args, **kwargs)
        return module(*f_args, **f_kwargs) if on_forward else module
    faults = {}
    for i, error in enumerate(info.module_error_inputs_func(
            info, device="cpu", dtype=torch.float32, requires_grad=False, training=True)):
        ctor, forward = error.module_error_input.constructor_input, \
            error.module_error_input.forward_input
        try:
            args = Converter()((ctor.args, ctor.kwargs, forward.args if forward else (),
                                forward.kwargs if forward else {}))
        except Unconvertible:
            continue
        on_forward = error.error_on == ModuleErrorEnum.FORWARD_ERROR
        _, m_err = call(build_and_call, (minflow_class(info), *args, on_forward), {})
        fault = m_err is not None and message_fault(name.split(".")[-1], m_err)
        if fault:
            faults[f"error input {i}"] = f"{fault}: {type(m_err).__name__}: {m_err}"
    return faults


# ---- every other public function: a non-tensor where the first tensor goes ---------------
def function_cases(covered):
    """(dotted name, torch's function, minflow's) for the public functions of minflow.*,
    nn.functional, linalg and special that torch has and ``covered`` (OpInfo names) lacks."""
    from minflow.core.namespace import F
    from opinfo_harness import resolve
    names = sorted(n for n in vars(F) if not n.startswith("_") and not n.endswith("_"))
    names += [f"linalg.{n}" for n in minflow.linalg.__all__[1:]]
    names += [f"special.{n}" for n in minflow.special.__all__]
    names += [f"nn.functional.{n}" for n in dir(minflow.nn.functional)
              if not n.startswith("_") and not n.endswith("_")]
    found = []
    for name in names:
        ours, theirs = resolve(minflow, name), resolve(torch, name)
        if name not in covered and callable(ours) and callable(theirs) and \
                not isinstance(theirs, type):
            found.append((name, theirs, ours))
    return found


def run_function(name, theirs, ours):
    """{case label: fault} for ``name`` called with a string, None or a list of strings as
    its only argument."""
    faults = {}
    for label, bad in NOT_TENSORS.items():
        fault = judge(name, call(theirs, (copy.deepcopy(bad),), {}),
                      call(ours, (copy.deepcopy(bad),), {}), values=False)
        if fault:
            faults[label] = fault
    return faults


# ---- a catalogue of calls the samples above do not make --------------------------------
def _lib_inputs(lib):
    """x: ones(2, 3); i: tensor([1, 2]) (int64); img: ones(1, 2, 4, 4); seq: ones(1, 2, 5)."""
    return lib.ones(2, 3), lib.tensor([1, 2]), lib.ones(1, 2, 4, 4), lib.ones(1, 2, 5)


# (the function or module named in the message, the call on a library ``m``)
CATALOGUE = [
    ("Linear", lambda m, x, i, img, seq: m.nn.Linear(-1, 2)),
    ("Linear", lambda m, x, i, img, seq: m.nn.Linear(3, 2)(m.ones(2, 4))),
    ("Linear", lambda m, x, i, img, seq: m.nn.Linear(3, 2)(i)),
    ("Conv2d", lambda m, x, i, img, seq: m.nn.Conv2d(2, 4, 0)(img)),
    ("Conv2d", lambda m, x, i, img, seq: m.nn.Conv2d(2, 4, -1)),
    ("Conv2d", lambda m, x, i, img, seq: m.nn.Conv2d(2, 4, 3, stride=0)(img)),
    ("Conv2d", lambda m, x, i, img, seq: m.nn.Conv2d(3, 4, 3)(img)),
    ("Conv2d", lambda m, x, i, img, seq: m.nn.Conv2d(2, 4, 3, padding=(1, 1, 1))),
    ("Dropout", lambda m, x, i, img, seq: m.nn.Dropout(1.5)),
    ("Dropout", lambda m, x, i, img, seq: m.nn.Dropout(-0.1)),
    ("Dropout", lambda m, x, i, img, seq: m.nn.Dropout("a")(x)),
    ("BatchNorm2d", lambda m, x, i, img, seq: m.nn.BatchNorm2d(2)(seq)),
    ("BatchNorm1d", lambda m, x, i, img, seq: m.nn.BatchNorm1d(3)(img)),
    ("BatchNorm2d", lambda m, x, i, img, seq: m.nn.BatchNorm2d(3)(img)),
    ("Embedding", lambda m, x, i, img, seq: m.nn.Embedding(2, 3)(i)),
    ("Embedding", lambda m, x, i, img, seq: m.nn.Embedding(3, 2)(m.tensor([-4]))),
    ("Embedding", lambda m, x, i, img, seq: m.nn.Embedding(3, 2)(x)),
    ("Embedding", lambda m, x, i, img, seq: m.nn.Embedding(-1, 2)),
    ("LayerNorm", lambda m, x, i, img, seq: m.nn.LayerNorm(4)(x)),
    ("MaxPool2d", lambda m, x, i, img, seq: m.nn.MaxPool2d(1.5)(img)),
    ("MaxPool2d", lambda m, x, i, img, seq: m.nn.MaxPool2d(5)(img)),
    ("AvgPool2d", lambda m, x, i, img, seq: m.nn.AvgPool2d((2, 2, 2))(img)),
    ("MSELoss", lambda m, x, i, img, seq: m.nn.MSELoss()(x, m.ones(3, 2))),
    ("CrossEntropyLoss", lambda m, x, i, img, seq: m.nn.CrossEntropyLoss()(x, m.tensor([3, 0]))),
    ("cross_entropy", lambda m, x, i, img, seq: m.nn.functional.cross_entropy(x, m.ones(2))),
    ("cross_entropy", lambda m, x, i, img, seq: m.nn.functional.cross_entropy(x, m.tensor([0]))),
    ("nll_loss", lambda m, x, i, img, seq: m.nn.functional.nll_loss(x, m.tensor([0.0, 1.0]))),
    ("nll_loss", lambda m, x, i, img, seq: m.nn.functional.nll_loss(x, m.tensor([0, 7]))),
    ("binary_cross_entropy",
     lambda m, x, i, img, seq: m.nn.functional.binary_cross_entropy(m.ones(2) / 2, m.ones(3))),
    ("one_hot", lambda m, x, i, img, seq: m.nn.functional.one_hot(x)),
    ("one_hot", lambda m, x, i, img, seq: m.nn.functional.one_hot(i, 2)),
    ("mean", lambda m, x, i, img, seq: m.mean(i)),
    ("mean", lambda m, x, i, img, seq: i.mean()),
    ("normal_", lambda m, x, i, img, seq: i.clone().normal_()),
    ("uniform_", lambda m, x, i, img, seq: i.clone().uniform_()),
    ("softmax", lambda m, x, i, img, seq: m.nn.functional.softmax(i, 0)),
    ("log_softmax", lambda m, x, i, img, seq: m.nn.functional.log_softmax(i, 0)),
    ("softmax", lambda m, x, i, img, seq: m.nn.functional.softmax(x, "a")),
    ("std", lambda m, x, i, img, seq: m.std(i)),
    ("matmul", lambda m, x, i, img, seq: m.matmul(x, x)),
    ("mm", lambda m, x, i, img, seq: m.mm(x, m.ones(3))),
    ("bmm", lambda m, x, i, img, seq: m.bmm(x, x)),
    ("conv2d", lambda m, x, i, img, seq: m.nn.functional.conv2d(img, m.ones(4, 2, 3))),
    ("conv2d", lambda m, x, i, img, seq: m.nn.functional.conv2d(img, m.ones(4, 3, 3, 3))),
    ("conv1d", lambda m, x, i, img, seq: m.nn.functional.conv1d(img, m.ones(4, 2, 3))),
    ("max_pool2d", lambda m, x, i, img, seq: m.nn.functional.max_pool2d(img, 2, stride=(1, 1, 1))),
    ("avg_pool2d", lambda m, x, i, img, seq: m.nn.functional.avg_pool2d(x, 2)),
    ("layer_norm", lambda m, x, i, img, seq: m.nn.functional.layer_norm(x, (4,))),
    ("batch_norm",
     lambda m, x, i, img, seq: m.nn.functional.batch_norm(x, m.zeros(4), m.ones(4))),
    ("cat", lambda m, x, i, img, seq: m.cat([x, m.ones(2, 4)])),
    ("cat", lambda m, x, i, img, seq: m.cat([x, img])),
    ("cat", lambda m, x, i, img, seq: m.cat([])),
    ("cat", lambda m, x, i, img, seq: m.cat([x, x], dim=2)),
    ("stack", lambda m, x, i, img, seq: m.stack([x, m.ones(3, 2)])),
    ("gather", lambda m, x, i, img, seq: m.gather(x, 1, m.ones(2, 1))),
    ("gather", lambda m, x, i, img, seq: m.gather(x, 1, m.tensor([[5]]))),
    ("gather", lambda m, x, i, img, seq: m.gather(x, 2, m.tensor([[0]]))),
    ("gather", lambda m, x, i, img, seq: m.gather(x, 1, m.tensor([0]))),
    ("scatter", lambda m, x, i, img, seq: x.scatter(1, m.ones(2, 1), 1.0)),
    ("index_select", lambda m, x, i, img, seq: m.index_select(x, 0, m.ones(1))),
    ("index_select", lambda m, x, i, img, seq: m.index_select(x, 0, m.tensor([2]))),
    ("take", lambda m, x, i, img, seq: m.take(x, m.tensor([6]))),
    ("sum", lambda m, x, i, img, seq: m.sum(x, dim=5)),
    ("sum", lambda m, x, i, img, seq: m.sum(x, dim="a")),
    ("transpose", lambda m, x, i, img, seq: x.transpose(0, 5)),
    ("reshape", lambda m, x, i, img, seq: x.reshape(-1, -1)),
    ("view", lambda m, x, i, img, seq: x.view(4)),
    ("zeros", lambda m, x, i, img, seq: m.zeros(-1)),
    ("ones", lambda m, x, i, img, seq: m.ones(2, -3)),
    ("randn", lambda m, x, i, img, seq: m.randn(-2)),
    ("full", lambda m, x, i, img, seq: m.full((2,), "a")),
    ("expand", lambda m, x, i, img, seq: x.expand(3, 2)),
    ("permute", lambda m, x, i, img, seq: x.permute(0)),
    ("squeeze", lambda m, x, i, img, seq: x.squeeze(5)),
    ("unsqueeze", lambda m, x, i, img, seq: x.unsqueeze(4)),
    ("flatten", lambda m, x, i, img, seq: x.flatten(5)),
    ("repeat", lambda m, x, i, img, seq: x.repeat(2)),
    ("index", lambda m, x, i, img, seq: x[5]),
    ("index", lambda m, x, i, img, seq: x[0, 0, 0]),
    ("index", lambda m, x, i, img, seq: x["a"]),
    ("masked_fill", lambda m, x, i, img, seq: x.masked_fill(m.ones(2, 3), 0.0)),
    ("fill_", lambda m, x, i, img, seq: x.clone().fill_("a")),
    ("linspace", lambda m, x, i, img, seq: m.linspace(0, 1, -1)),
    ("arange", lambda m, x, i, img, seq: m.arange(0, 1, 0)),
    ("arange", lambda m, x, i, img, seq: m.arange(1, 0, 1)),
    ("clamp", lambda m, x, i, img, seq: m.clamp(x, "a")),
    ("where", lambda m, x, i, img, seq: m.where(x, x, x)),
    ("topk", lambda m, x, i, img, seq: m.topk(x, 2, dim="a")),
    ("argmax", lambda m, x, i, img, seq: m.argmax(x, dim=3)),
    ("cumsum", lambda m, x, i, img, seq: m.cumsum(x, dim=1.5)),
    ("interpolate", lambda m, x, i, img, seq: m.nn.functional.interpolate(img, size=-1)),
    ("pad", lambda m, x, i, img, seq: m.nn.functional.pad(x, (1,))),
    ("pad", lambda m, x, i, img, seq: m.nn.functional.pad(x, (1.5, 1))),
    ("Tensor", lambda m, x, i, img, seq: x + "a"),
    ("Tensor", lambda m, x, i, img, seq: x @ i),
    ("Tensor", lambda m, x, i, img, seq: x.to("nodevice")),
    ("Tensor", lambda m, x, i, img, seq: x.to(dtype="float32")),
]


def run_catalogue(name, make):
    """The fault of one catalogue call, or None."""
    def run(lib):
        return call(lambda: make(lib, *_lib_inputs(lib)), (), {})
    torch.manual_seed(0)
    minflow.manual_seed(0)
    return judge(name, run(torch), run(minflow), values=True)
