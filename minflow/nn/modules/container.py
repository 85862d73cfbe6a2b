"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

Children are registered under their index ("0", "1", ...) or key, so parameter names and
state_dict keys are PyTorch's (``"0.weight"``, ``"layers.2.bias"``).
"""
import operator
from collections import OrderedDict

from ...core.tensor import Tensor
from ..parameter import Parameter
from .module import Module, _indent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(container, idx):
    """``idx`` as a non-negative position, or an IndexError naming the container."""
    idx, size = operator.index(idx), len(container)
    if not -size <= idx < size:
        raise IndexError(f"{type(container).__name__}: index {idx} is out of range for "
                         f"length {size}")
    return idx % size


class _ListMixin:
    """Indexing, deletion (renumbering the rest) and iteration over ``_modules``."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return list(self._modules.values())[_index(self, idx)]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(self, idx)), module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(self, idx)]]:
            delattr(self, key)
        self.__dict__["_modules"] = OrderedDict(
            (str(i), m) for i, m in enumerate(self._modules.values()))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self.__dict__["_modules"] = OrderedDict()
        self.extend(items)

    def pop(self, index=-1):
        module = self[index]
        del self[index]
        return module


class Sequential(_ListMixin, Module):
    """Calls its modules in order, each on the previous one's output.

    Built from modules, or from an OrderedDict of name -> module.

    >>> net = minflow.nn.Sequential(minflow.nn.Linear(4, 8), minflow.nn.ReLU())
    >>> net
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): ReLU()
    )
    >>> net(minflow.ones(2, 4)).shape, len(net), type(net[-1]).__name__
    (minflow.Size([2, 8]), 2, 'ReLU')
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return super().__getitem__(idx)

    def __setitem__(self, idx, module):
        setattr(self, list(self._modules)[_index(self, idx)], module)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise TypeError(f"Sequential: can only add another Sequential, got "
                            f"{type(other).__name__}")
        return Sequential(*self, *other)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_ListMixin, Module):
    """A list of modules, registered so that ``parameters()`` and ``to()`` see them.

    >>> layers = minflow.nn.ModuleList([minflow.nn.Linear(2, 2) for _ in range(3)])
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
    )
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __repr__(self):
        # NOTE: PyTorch prints runs of equal reprs once: "(0-2): 3 x Linear(...)"
        blocks = []                          # [first, last, repr]
        for i, module in enumerate(self):
            text = repr(module)
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        if not blocks:
            return f"{self._get_name()}()"
        lines = [f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}"
                 for a, b, text in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(_indent(x, 2) for x in lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys.

    >>> heads = minflow.nn.ModuleDict({"cls": minflow.nn.Linear(4, 3)})
    >>> heads["cls"](minflow.ones(1, 4)).shape, list(heads.keys())
    (minflow.Size([1, 3]), ['cls'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module


def _param_line(key, value, type_name):
    """``(k): Parameter containing: [minflow.float32 of size 2x3]`` as PyTorch prints it
    (ParameterDict names the type as ``minflow.FloatTensor``, as PyTorch's does)."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    size = "x".join(str(s) for s in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}{device}]"


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of Parameters (plain tensors are wrapped), registered as "0", "1", ...

    >>> params = minflow.nn.ParameterList([minflow.ones(2, 3), minflow.zeros(2)])
    >>> [name for name, _ in params.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values=None):
        super().__init__()
        for value in values or ():
            self.append(value)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return self._parameters[str(_index(self, idx))]

    def __setitem__(self, idx, value):
        setattr(self, str(_index(self, idx)), _as_parameter(value))

    def append(self, value):
        setattr(self, str(len(self)), _as_parameter(value))
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(i, p, lambda t: t.dtype) for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of Parameters (plain tensors are wrapped), registered under their keys.

    >>> params = minflow.nn.ParameterDict({"scale": minflow.ones(3)})
    >>> params["scale"].requires_grad, list(params.keys())
    (True, ['scale'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, _as_parameter(value))

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: t.type()) for k, p in self.items())

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")
