"""The Optimizer base class: parameter groups, per-parameter state, state_dict, as torch.

A subclass names its defaults, its update op (minflow/ops/optim.py) as ``update_op`` and
makes a parameter's first state in ``_init_state(p, group)``; the shared
``_update_group(group)`` calls the op once per parameter that has a gradient, its attrs
taken from the group and its state inputs from the parameter's state by name (a subclass
with another pattern, e.g. SGD's foreach, writes its own). ``step`` runs it for every
group under no_grad, after the optional closure. nn.Graph traces ``_update_group`` into
update ops (minflow/graph/optim.py).
"""
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from ..core import dtype as dtypes
from ..core.grad_mode import enable_grad, no_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from ..ops.optim import group_attrs, run_update

__all__ = ["Optimizer"]


class Optimizer:
    """Base class of optimizers: ``param_groups``, ``state``, ``step``, ``zero_grad``.

    ``params``: an iterable of tensors, or of dicts (parameter groups) with a "params" entry
    and any options that override ``defaults`` for that group.

    >>> w = minflow.zeros(2, requires_grad=True)
    >>> opt = minflow.optim.SGD([{"params": [w], "lr": 0.5}], lr=0.1)
    >>> opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]
    (0.5, 0)
    """

    # the update op ``_update_group`` calls (None: no update op, e.g. LBFGS); nn.Graph feeds
    # its float hyperparameters (``minflow.ops.optim.scalar_attrs``) from the param groups
    update_op = None
    # update_op input name -> state key, where they differ (Adagrad's state_sum is "sum")
    _state_keys = {}

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got minflow.Tensor")
        self.state = defaultdict(dict)
        self.param_groups = []
        self.state_generation = 0       # bumped by load_state_dict
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        # NOTE: only these: a scheduler wraps ``step`` in a closure, which cannot be pickled
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups, "state_generation": self.state_generation}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with "params" and optional options); options it
        leaves out take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params, names = _split_names(list(params))
        param_group["params"] = params
        if names:
            param_group["param_names"] = names
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params "
                                f"is {type(param).__name__}")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure=None):
        """One optimization step; ``closure`` (re-evaluating the model and returning the
        loss) runs first, with grad enabled, and its loss is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _init_state(self, p, group):
        """Make ``p``'s state as its first step does (zero moments, ``step`` 0)."""
        raise NotImplementedError(f"{type(self).__name__} makes no per-parameter state "
                                  f"before its first step")

    def _update_group(self, group):
        """Update every parameter of ``group`` that has a gradient: one ``update_op`` call
        each, with the op's attrs from the group and, after (param, grad), its state
        inputs from the parameter's state (None where the state has no such entry)."""
        op = self.update_op
        if op is None:
            raise NotImplementedError(f"{type(self).__name__} must define step() or "
                                      f"_update_group()")
        # NOTE: float(): a tuple option (betas) may hold 1-element tensors, read at each step
        attrs = group_attrs(op, {a.name: tuple(float(v) for v in group[a.name])
                                 if a.type == "floats" else group[a.name]
                                 for a in op.attrs if a.name in group})
        keys = [self._state_keys.get(spec.name, spec.name) for spec in op.inputs[2:]
                if spec.name != "scalars"]
        mutable = tuple(i for i, spec in enumerate(op.inputs[:-1]) if spec.mutable)
        for p, state in self._stepped(group):
            run_update(op, (p, p.grad, *(state.get(k) for k in keys)), attrs, mutable)

    def _stepped(self, group):
        """(param, state) for each param of ``group`` that has a gradient; a param's state
        is made on its first step."""
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if not state:
                self._init_state(p, group)
            yield p, state

    # -- checkpoints ----------------------------------------------------------------------
    def state_dict(self):
        """{"state": {index: {name: value}}, "param_groups": [{..., "params": [index]}]}:
        torch's layout, parameters numbered in group order. Values are not copied."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()``: options per group and state per parameter, matched by
        position. Tensors are copied, to the parameter's device (and dtype, except step)."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        with no_grad():
            for key, value in state_dict["state"].items():
                if key in id_map:
                    param = id_map[key]
                    state[param] = {k: _copy_to(param, v, k) for k, v in value.items()}
                else:
                    state[key] = deepcopy(value)
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups
        # new state tensors and group dicts: graphs compiled against the old ones recompile
        self.state_generation = getattr(self, "state_generation", 0) + 1


def _split_names(params):
    """(tensors, names) from a list of tensors or of (name, tensor) pairs."""
    names = [p[0] for p in params if isinstance(p, tuple)]
    if not names:
        return params, None
    if len(names) != len(params):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing")
    return [p[1] for p in params], names


def _copy_to(param, value, key):
    """A copy of a state value for ``param``: floating tensors take its dtype (not step)."""
    if not isinstance(value, Tensor):
        return deepcopy(value)
    dtype = value.dtype
    if key != "step" and dtype.is_floating_point and param.dtype.is_floating_point:
        dtype = param.dtype
    return F.clone(value.to(dtype=dtype, device=param.device))


def scalar_dtype():
    """The dtype of a ``step`` state tensor: float64 if that is the default, else float32."""
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def check_nonnegative(**values):
    """Raise torch's ``Invalid <name>: <value>`` for a negative hyperparameter.

    Keys name the hyperparameter as torch's message does: ``lr`` reads "learning rate",
    ``eps`` "epsilon value", anything else "<name> value".
    """
    for name, value in values.items():
        if isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError(f"Tensor {name} must be 1-element")
        if not 0.0 <= value:
            label = {"lr": "learning rate", "eps": "epsilon value"}.get(name, f"{name} value")
            raise ValueError(f"Invalid {label}: {value}")


def check_betas(betas):
    """Raise torch's ``Invalid beta parameter at index i`` unless both betas are in [0, 1)."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def implementation_flags(lr, betas=None, **flags):
    """torch's switches between implementations of one update (``foreach``, ``fused``,
    ``capturable``, ``differentiable``: each optimizer takes those torch's does), checked as
    torch checks them; the param groups keep them, as torch's do.

    minflow has one eager implementation of each update, and every choice computes torch's
    numbers with it. ``differentiable=True`` (an update autograd sees through) is the
    exception: it is not supported.
    """
    foreach, capturable = flags.get("foreach"), flags.get("capturable", False)
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and "
                         "foreach=True")
    if betas is not None and (isinstance(betas[0], Tensor) or isinstance(betas[1], Tensor)):
        if not (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        if foreach and not capturable:
            raise ValueError("betas[0] as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        for i, beta in enumerate(betas):
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    if flags.get("differentiable"):
        raise NotImplementedError("differentiable=True (autograd through the optimizer "
                                  "step) is not supported")
    if flags.get("fused") and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    return flags
