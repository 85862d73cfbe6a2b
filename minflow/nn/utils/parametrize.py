"""Parametrizations, as torch.nn.utils.parametrize: a module's tensor computed from others.

``register_parametrization(module, "weight", P())`` moves the parameter ``weight`` to
``module.parametrizations.weight.original`` and turns ``module.weight`` into a property
that returns ``P()(original)`` at each access: training updates ``original``, the layer
sees the parametrized value. The module's class is swapped for a subclass
``Parametrized<Name>`` that carries the property (a property lives on a class), so
the state_dict keys are torch's: ``parametrizations.weight.original`` (or
``original0``, ``original1``... when ``right_inverse`` returns several tensors).
"""
from collections.abc import Sequence
from contextlib import contextmanager
from copy import deepcopy

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_depth = [0]
_cache = {}


@contextmanager
def cached():
    """Within this block each parametrized tensor is computed once, on first access, and
    reused (e.g. a weight read at every step of a recurrent loop).

    >>> P = minflow.nn.utils.parametrize
    >>> m = minflow.nn.Linear(2, 2)
    >>> _ = P.register_parametrization(m, "weight", minflow.nn.Identity())
    >>> with P.cached():
    ...     m.weight is m.weight
    True
    """
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if not _cache_depth[0]:
            _cache.clear()


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_storage(dest, src):
    """``dest.set_(src)``: dest now holds src's data (shape, dtype, device included)."""
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the ``original`` tensor
    (or ``original0``, ``original1``...) they are applied to.

    Registering runs the ``right_inverse`` of each parametrization, last first, on the
    tensor's current value, so that the parametrized tensor starts where it was (when
    they have one).
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            _check_same_kind(original, new)
            with no_grad():
                _set_storage(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            _check_unchanged(self(), shape, dtype, "unparametrized", "parametrized")

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       f"implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_storage(self.original, value)
                return
            if not isinstance(value, Sequence) or len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of "
                                 f"length {self.ntensors}. Got {type(value).__name__}"
                                 + (f" of length {len(value)}" if isinstance(value, Sequence)
                                    else ""))
            for i, tensor in enumerate(value):
                original = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor) or tensor.dtype != original.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{getattr(tensor, 'dtype', type(tensor).__name__)} "
                                     f"while `original{i}` has dtype {original.dtype}")
                _set_storage(original, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _check_same_kind(original, new):
    for what in ("dtype", "device"):
        if getattr(original, what) != getattr(new, what):
            raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the "
                             f"{what}.\noriginal.{what}: {getattr(original, what)}\n"
                             f"right_inverse(original).{what}: {getattr(new, what)}")


def _check_unchanged(value, shape, dtype, before, after):
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    if value.dtype != dtype:
        raise ValueError(f"Registering a parametrization may not change the dtype of the "
                         f"tensor, unless `unsafe` flag is enabled.\n{before} dtype: {dtype}\n"
                         f"{after} dtype: {value.dtype}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"Registering a parametrization may not change the shape of the "
                         f"tensor, unless `unsafe` flag is enabled.\n{before} shape: "
                         f"{list(shape)}\n{after} shape: {list(value.shape)}")


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict().")


def _deepcopy(self, memo):
    """Copy a parametrized module: its __dict__ (the stores, the parametrizations)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module):
    """Swap the module's class for a subclass of it that can hold the properties."""
    cls = type(module)
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """``module.<tensor_name>``: the parametrized value; assigning runs right_inverse."""
    if hasattr(module, tensor_name):
        raise RuntimeError(f"register_parametrization: module already has an attribute "
                           f"named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth[0]:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the value of ``parametrization`` applied to the
    original tensor (a parameter or buffer), kept at
    ``module.parametrizations.<tensor_name>.original``. Registering again on the same
    name chains: the new parametrization applies to the previous result. ``unsafe=True``
    allows changing the shape or dtype.

    >>> P = minflow.nn.utils.parametrize
    >>> class Symmetric(minflow.nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> m = P.register_parametrization(minflow.nn.Linear(3, 3), "weight", Symmetric())
    >>> bool((m.weight == m.weight.T).all()), type(m).__name__
    (True, 'ParametrizedLinear')
    >>> list(m.state_dict())
    ['bias', 'parametrizations.weight.original']
    """
    from ..modules.module import Module
    if not isinstance(parametrization, Module):
        raise TypeError(f"register_parametrization: expected parametrization to be a "
                        f"minflow.nn.Module, got {type(parametrization).__name__}")
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_chained(module, tensor_name, parametrization):
    """A parametrization added to a parametrized tensor keeps its shape and dtype."""
    current = getattr(module, tensor_name)
    value = parametrization(current)
    _check_unchanged(value, current.shape, current.dtype, f"module.{tensor_name}",
                     f"parametrization(module.{tensor_name})")
    if hasattr(parametrization, "right_inverse"):
        try:
            inverse = parametrization.right_inverse(value)
        except NotImplementedError:
            return
        if not isinstance(inverse, Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                             f"{type(inverse).__name__}")
        _check_unchanged(inverse, current.shape, current.dtype, f"module.{tensor_name}",
                         "parametrization.right_inverse(...)")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    >>> P = minflow.nn.utils.parametrize
    >>> m = minflow.nn.Linear(2, 2)
    >>> P.is_parametrized(m), P.is_parametrized(
    ...     P.register_parametrization(m, "weight", minflow.nn.Identity()), "weight")
    (False, True)
    """
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations on ``tensor_name``: it becomes a plain parameter (or
    buffer) again, holding the parametrized value (``leave_parametrized=True``) or the
    original one. The module gets its own class back when nothing else is parametrized.

    >>> P = minflow.nn.utils.parametrize
    >>> m = P.register_parametrization(minflow.nn.Linear(2, 2), "weight", minflow.nn.Identity())
    >>> m = P.remove_parametrizations(m, "weight")
    >>> type(m).__name__, list(m.state_dict())
    ('Linear', ['bias', 'weight'])
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                _set_storage(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations were registered on it.

    >>> P = minflow.nn.utils.parametrize
    >>> m = P.register_parametrization(minflow.nn.Linear(2, 2), "weight", minflow.nn.Identity())
    >>> P.type_before_parametrizations(m).__name__
    'Linear'
    """
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)
