"""functional_call: run a module with some parameters and buffers swapped for given
tensors, for that one call (per-example grads, meta-learning, weight ensembling)."""
import contextlib

from ...core.tensor import Tensor
from . import parametrize

__all__ = ["functional_call"]


def _merge(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return dict(parameter_and_buffer_dicts)
    merged = {}
    for d in parameter_and_buffer_dicts:
        for key, value in d.items():
            if key in merged:
                raise ValueError(f"functional_call: {key} appeared in multiple dictionaries; "
                                 f"behavior of functional call is ambiguous")
            merged[key] = value
    return merged


def _tied_names(module):
    """{name: every name of the same tensor} for parameters and buffers shared by name."""
    groups = {}
    for named in (module.named_parameters, module.named_buffers):
        for name, t in named(remove_duplicate=False):
            groups.setdefault(id(t), []).append(name)
    return {name: names for names in groups.values() if len(names) > 1 for name in names}


def _with_ties(module, values):
    """``values`` extended to the names tied to its keys; different values for tied
    names are an error."""
    out = dict(values)
    for name, names in _tied_names(module).items():
        if name not in values:
            continue
        for other in names:
            if other in values and values[other] is not values[name]:
                raise ValueError(f"functional_call got multiple values for keys "
                                 f"{sorted(k for k in names if k in values)}, which are tied. "
                                 f"Consider using tie_weights=False")
            out[other] = values[name]
    return out


@contextlib.contextmanager
def _swapped(module, values):
    """Put ``values`` (dotted name -> tensor) into the modules' stores; restore on exit.

    A parametrized tensor's name gets the value as is, bypassing its parametrizations
    (as torch): it is put in the parametrization cache for the call."""
    saved, cached = [], []
    try:
        with parametrize.cached():
            for name, value in values.items():
                owner_path, _, attr = name.rpartition(".")
                owner = module.get_submodule(owner_path)
                if parametrize.is_parametrized(owner, attr):
                    cached.append((id(owner), attr))
                    parametrize._cache[cached[-1]] = value
                    continue
                saved.append(_swap_one(owner, attr, name, value))
            yield
    finally:
        for key in cached:          # an enclosing cached() block must not keep them
            parametrize._cache.pop(key, None)
        for store, attr, original in reversed(saved):
            store[attr] = original


def _swap_one(owner, attr, name, value):
    """Put ``value`` in the store holding ``attr``; (store, attr, the old value)."""
    store = owner._parameters if attr in owner._parameters else owner._buffers
    if attr not in store:
        raise AttributeError(f"functional_call: {type(owner).__name__} has no parameter or "
                             f"buffer `{attr}` (key {name!r})")
    old = store[attr]
    store[attr] = value
    return store, attr, old


def _check_strict(module, values):
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(names - set(values)), sorted(set(values) - names)
    if missing or unexpected:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                           + (f"Missing key(s): {', '.join(map(repr, missing))}.\n\t"
                              if missing else "")
                           + (f"Unexpected key(s): {', '.join(map(repr, unexpected))}."
                              if unexpected else ""))


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a sequence of dicts, by dotted name)
    replaced for this call only. With ``tie_weights``, replacing one name of a shared
    tensor replaces all its names; with ``strict``, every parameter and buffer must be
    given.

    >>> m = minflow.nn.Linear(2, 1)
    >>> w = {"weight": minflow.ones(1, 2), "bias": minflow.zeros(1)}
    >>> minflow.nn.utils.stateless.functional_call(m, w, (minflow.tensor([[1.0, 2.0]]),))
    tensor([[3.]])
    >>> m.weight is w["weight"]
    False
    """
    values = _merge(parameter_and_buffer_dicts)
    for key, value in values.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"functional_call: expected a Tensor for {key!r}, got "
                            f"{type(value).__name__}")
    if tie_weights:
        values = _with_ties(module, values)
    if strict:
        _check_strict(module, values)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, values):
        return module(*args, **(kwargs or {}))
