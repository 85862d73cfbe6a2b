"""PyTorch's ModuleInfo database (torch.testing._internal.common_modules) as an oracle for
minflow.nn.

Each ModuleInfo names a torch.nn module and generates constructor arguments with forward
inputs (batched and unbatched, every option, empty batches) and, for some modules, inputs
that must raise. Where minflow.nn has a module of the same name, both are built from the
same arguments, minflow's loads torch's state_dict (the same keys, so the same weights),
and both run the same inputs: outputs, the state after forward (running statistics) and,
in float64, the gradients of the inputs and parameters must agree; on the error inputs,
minflow must raise an exception of the class torch raises.
"""
import pytest

import minflow

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")        # torch.testing._internal imports it
from torch.testing._internal.common_modules import ModuleErrorEnum, module_db  # noqa: E402

from opinfo_harness import (Unconvertible, compare, compare_projected_grads,  # noqa: E402
                            tensors_in)
from opinfo_harness import to_minflow as _leaf_to_minflow  # noqa: E402

# modules whose outputs are random draws: only dtypes and shapes are compared
RANDOM = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
          "FeatureAlphaDropout", "RReLU"}
DTYPES = (torch.float32, torch.float64)


def minflow_class(info):
    return getattr(minflow.nn, info.module_cls.__name__, None)


class Converter:
    """torch arguments as minflow's. One torch tensor passed twice (as input and target)
    becomes one minflow tensor, so gradients add up as in torch; torch's functional
    callables (``activation=F.gelu``) become minflow's of the same name. Tensors go to
    ``device``."""

    def __init__(self, device="cpu"):
        self.memo, self.device = {}, device

    def __call__(self, obj):
        if isinstance(obj, torch.Tensor):
            if id(obj) not in self.memo:    # keeps obj alive while its id is a key
                self.memo[id(obj)] = (obj, _leaf_to_minflow(obj, device=self.device))
            return self.memo[id(obj)][1]
        if isinstance(obj, torch.nn.Module):
            raise Unconvertible(f"a torch module ({type(obj).__name__})")
        if callable(obj) and not isinstance(obj, type) and \
                (getattr(obj, "__module__", None) or "").startswith("torch"):
            ours = getattr(minflow.nn.functional, obj.__name__, None)
            if ours is None:
                raise Unconvertible(f"function {obj.__name__}")
            return ours
        if isinstance(obj, (list, tuple)):
            return type(obj)(self(x) for x in obj)
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        return _leaf_to_minflow(obj)


def module_cases():
    """(id, module info, dtype, training) for every module minflow.nn has too."""
    result = []
    for info in module_db:
        if minflow_class(info) is None:
            continue
        for dtype in DTYPES:
            if dtype not in info.dtypes:
                continue
            for training in (True, False) if info.train_and_eval_differ else (True,):
                mode = "train" if training else "eval"
                result.append((f"{info.name}-{str(dtype)[6:]}-{mode}", info, dtype, training))
    return result


def error_module_cases():
    return [(info.name, info) for info in module_db
            if minflow_class(info) is not None and info.module_error_inputs_func is not None]


def run_module_case(info, dtype, training, device="cpu"):
    """Differences over all of the ModuleInfo's inputs (empty when minflow agrees), with
    minflow's module and tensors on ``device`` (torch's stay on the cpu)."""
    diffs = []
    grad = dtype is torch.float64
    for module_input in info.module_inputs_func(info, device="cpu", dtype=dtype,
                                                requires_grad=grad, training=training):
        ctor = module_input.constructor_input
        label = (f"{module_input.desc or 'default'} {info.module_cls.__name__}"
                 f"(*{ctor.args!r:.80}, **{ctor.kwargs!r:.80})")
        diffs += [f"{label}: {d}" for d in _run_input(info, dtype, training, grad,
                                                      module_input, device)]
    return diffs


def _run_input(info, dtype, training, grad, module_input, device):
    ctor, forward = module_input.constructor_input, module_input.forward_input
    if forward is None:
        return []
    convert = Converter(device)
    try:
        args, kwargs = convert((ctor.args, ctor.kwargs))
        f_args, f_kwargs = convert((forward.args, forward.kwargs))
    except Unconvertible:
        return []
    theirs = info.module_cls(*ctor.args, **ctor.kwargs).to(dtype).train(training)
    try:
        ours = minflow_class(info)(*args, **kwargs).to(device, convert(dtype)).train(training)
    except Exception as err:
        return [f"construction raised {type(err).__name__}: {err}"]
    if info.is_lazy:        # a first call sizes the parameters; torch's then load into ours
        with torch.no_grad():
            theirs(*forward.args, **forward.kwargs)
        with minflow.no_grad():
            ours(*f_args, **f_kwargs)
    state = theirs.state_dict()
    if list(ours.state_dict()) != list(state):
        return [f"state_dict keys {list(ours.state_dict())}, expected {list(state)}"]
    ours.load_state_dict({k: _leaf_to_minflow(v.detach(), device=device)
                          for k, v in state.items()})
    try:
        expected = theirs(*forward.args, **forward.kwargs)
    except Exception:       # torch rejects it: the error inputs cover rejections
        return []
    try:
        got = ours(*f_args, **f_kwargs)
    except Exception as err:
        return [f"forward raised {type(err).__name__}: {err}"]
    random = info.module_cls.__name__ in RANDOM
    diffs = compare(expected, got, values=not random)
    got_state = ours.state_dict()
    for key, value in theirs.state_dict().items():
        diffs += compare(value, got_state[key], True, f"state {key} after forward")
    if diffs or not grad or random:
        return diffs
    t_inputs = [t for t in tensors_in((forward.args, forward.kwargs), torch.Tensor)
                if t.requires_grad] + list(theirs.parameters())
    m_inputs = [t for t in tensors_in((f_args, f_kwargs), minflow.Tensor)
                if t.requires_grad] + list(ours.parameters())
    return _compare_grads(expected, got, t_inputs, m_inputs)


def _compare_grads(expected, got, t_inputs, m_inputs):
    """Differences between the gradients of a fixed random projection of the outputs."""
    t_outs = [t for t in tensors_in(expected, torch.Tensor) if t.requires_grad]
    m_outs = [t for t in tensors_in(got, minflow.Tensor) if t.requires_grad]
    if len(t_inputs) != len(m_inputs) or len(t_outs) != len(m_outs):
        return [f"grad: {len(t_inputs)} inputs and {len(t_outs)} differentiable outputs "
                f"expected, got {len(m_inputs)} and {len(m_outs)}"]
    if not t_outs:
        return []
    return compare_projected_grads(t_outs, m_outs, t_inputs, m_inputs)


def run_module_errors(info, device="cpu"):
    """Differences on the ModuleInfo's error inputs: minflow must raise the same class,
    when constructing or when calling forward, as torch."""
    diffs = []
    for error in info.module_error_inputs_func(info, device="cpu", dtype=torch.float32,
                                               requires_grad=False, training=True):
        module_input = error.module_error_input
        ctor, forward = module_input.constructor_input, module_input.forward_input
        convert = Converter(device)
        try:
            args, kwargs = convert((ctor.args, ctor.kwargs))
            f_args, f_kwargs = convert((forward.args, forward.kwargs)) if forward else ((), {})
        except Unconvertible:
            continue
        label = (f"{module_input.desc or 'error input'} (torch: {error.error_type.__name__}: "
                 f"{error.error_regex!r:.80})")
        try:
            module = minflow_class(info)(*args, **kwargs).to(device)
            if error.error_on == ModuleErrorEnum.FORWARD_ERROR:
                module(*f_args, **f_kwargs)
        except Exception as err:
            if not isinstance(err, error.error_type):
                diffs.append(f"{label}: raised {type(err).__name__}: {err}")
            continue
        diffs.append(f"{label}: did not raise")
    return diffs
