"""state_dict / load_state_dict for Module, with PyTorch's keys, checks and messages.

Keys are dotted paths (``"0.weight"``, ``"encoder.layers.1.norm1.bias"``): each module
saves its own parameters, then its persistent buffers, then recurses into its children.
Loading copies values in place under no_grad, so the Parameter objects (and any optimizer
that holds them) stay the same.
"""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ..parameter import Parameter

__all__ = ["state_dict", "load_state_dict", "IncompatibleKeys"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find, and those it did not use
    (torch's name, which its repr shows)."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys


def _own_state(module):
    """This module's parameters and persistent buffers (not None), in save order."""
    state = [(k, v) for k, v in module._parameters.items() if v is not None]
    state += [(k, v) for k, v in module._buffers.items()
              if v is not None and k not in module._non_persistent_buffers_set]
    return state


def save_own(module, destination, prefix, keep_vars):
    for name, value in _own_state(module):
        destination[prefix + name] = value if keep_vars else value.detach()


def state_dict(module, destination, prefix, keep_vars):
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    for hook in tuple(_hooks(module, "_state_dict_pre_hooks")):
        hook(module, prefix, keep_vars)
    metadata = getattr(destination, "_metadata", None)
    local_metadata = {"version": module._version}
    if metadata is not None:
        metadata[prefix[:-1]] = local_metadata
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
    for hook in tuple(_hooks(module, "_state_dict_hooks")):
        result = hook(module, destination, prefix, local_metadata)
        if result is not None:      # the older hook API may return a new dict
            destination = result
    return destination


def _hooks(module, registry):
    return module.__dict__.get(registry, {}).values()


def load_own(module, state, prefix, local_metadata, strict, missing, unexpected, errors):
    """Copy the entries of ``state`` under ``prefix`` into ``module``'s own tensors."""
    own = dict(_own_state(module))
    for name, current in own.items():
        key = prefix + name
        if key not in state:
            missing.append(key)
            continue
        value = state[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected a minflow '
                          f'Tensor from checkpoint but received {type(value)}')
        elif tuple(value.shape) != tuple(current.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                          f"from checkpoint, the shape in current model is {current.shape}.")
        else:
            _copy(module, name, current, value, local_metadata.get("assign", False))
    for key in state:
        if key.startswith(prefix):
            head = key[len(prefix):].split(".", 1)[0]
            if head not in module._modules and head not in own:
                unexpected.append(key)


def _copy(module, name, current, value, assign):
    with no_grad():
        if not assign:
            current.copy_(value)
        elif isinstance(current, Parameter):
            setattr(module, name, Parameter(value, requires_grad=current.requires_grad))
        else:
            module._buffers[name] = value


def load_state_dict(module, state, strict, assign):
    if not isinstance(state, Mapping):
        raise TypeError(f"load_state_dict: expected state_dict to be dict-like, got "
                        f"{type(state).__name__}")
    missing, unexpected, errors = [], [], []
    metadata = getattr(state, "_metadata", None) or {}

    def load(mod, local, prefix):
        local_metadata = dict(metadata.get(prefix[:-1], {}), assign=assign)
        for hook in tuple(_hooks(mod, "_load_state_dict_pre_hooks")):
            hook(local, prefix, local_metadata, True, missing, unexpected, errors)
        for hook in tuple(_hooks(mod, "_load_state_dict_pre_hooks_with_module")):
            hook(mod, local, prefix, local_metadata, True, missing, unexpected, errors)
        mod._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected,
                                  errors)
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)},
                     child_prefix)
        for hook in tuple(_hooks(mod, "_load_state_dict_post_hooks")):
            if hook(mod, keys) is not None:
                raise RuntimeError("load_state_dict post hooks should return None (they may "
                                   "change the incompatible keys in place)")

    keys = _IncompatibleKeys(missing, unexpected)
    load(module, dict(state), "")
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    return keys
