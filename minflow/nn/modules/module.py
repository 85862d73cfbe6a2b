"""Module: the base class of every layer, with PyTorch's registration, traversal, modes,
device/dtype moves, hooks and repr. state_dict / load_state_dict live in _state_dict.py.

Attributes that are Parameters, Modules or registered buffers are kept in three ordered
dicts (``_parameters``, ``_modules``, ``_buffers``) rather than in ``__dict__``, so
traversal finds them in registration order; ``__getattr__`` looks them up there.
"""
import inspect
from collections import OrderedDict

from ...core import dtype as dtypes
from ...core.functional import raise_not_tensor
from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _state_dict
from ._backward_hooks import call_with_backward_hooks
from ._hooks import RemovableHandle

__all__ = ["Module"]


class Module:
    """Base class for neural network layers: subclass it, assign layers and Parameters in
    ``__init__`` (after ``super().__init__()``) and define ``forward``.

    >>> class TwoLayer(minflow.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc1 = minflow.nn.Linear(4, 8)
    ...         self.fc2 = minflow.nn.Linear(8, 2)
    ...     def forward(self, x):
    ...         return self.fc2(self.fc1(x).relu())
    >>> net = TwoLayer()
    >>> [name for name, _ in net.named_parameters()]
    ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
    >>> net(minflow.ones(3, 4)).shape
    minflow.Size([3, 2])
    """

    _version = 1
    training: bool

    def __init__(self):
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    def __call__(self, *args, **kwargs):
        try:
            if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                    or self._backward_pre_hooks):
                return self.forward(*args, **kwargs)
            return self._call_with_hooks(args, kwargs)
        except AttributeError as err:   # a string or None passed where a Tensor goes
            raise_not_tensor(f"{type(self).__name__}.forward",
                             list(inspect.signature(self.forward).parameters), args, kwargs, err)
            raise

    def _call_with_hooks(self, args, kwargs):
        """forward with the pre-hooks before, the hooks after and the backward hooks
        around it, as torch's Module._call_impl."""
        with_kwargs = self.__dict__.get("_hooks_with_kwargs", ())
        for hook_id, hook in tuple(self._forward_pre_hooks.items()):
            if hook_id in with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        try:
            if self._backward_hooks or self._backward_pre_hooks:
                output = call_with_backward_hooks(self, self.forward, args, kwargs)
            else:
                output = self.forward(*args, **kwargs)
        except Exception:
            always = self.__dict__.get("_hooks_always_called", ())
            for hook_id, hook in tuple(self._forward_hooks.items()):
                if hook_id in always:
                    (hook(self, args, kwargs, None) if hook_id in with_kwargs
                     else hook(self, args, None))
            raise
        for hook_id, hook in tuple(self._forward_hooks.items()):
            result = (hook(self, args, kwargs, output) if hook_id in with_kwargs
                      else hook(self, args, output))
            if result is not None:
                output = result
        return output

    # -- registration ------------------------------------------------------------------
    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter, or None for an absent one) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (minflow.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly; to express '{name}' as a "
                             f"function of another Tensor, compute the value in forward()")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a Tensor that is state but not a parameter (e.g. running_mean).

        Persistent buffers are part of ``state_dict``; non-persistent ones only move with
        ``to()``.

        >>> m = minflow.nn.Module()
        >>> m.register_buffer("steps", minflow.tensor(0))
        >>> m.register_buffer("cache", minflow.zeros(2), persistent=False)
        >>> list(m.state_dict()), [n for n, _ in m.named_buffers()]
        (['steps'], ['steps', 'cache'])
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (minflow Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module under ``name`` (``self.<name> = module`` does the same)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {type(module).__name__} is not a Module subclass")
        self._check_new_name(name, "module", self._modules)
        self._modules[name] = module

    register_module = add_module

    def _check_new_name(self, name, kind, own):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if hasattr(self, name) and name not in own:
            raise KeyError(f"attribute '{name}' already exists")

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._forget(name, "_parameters")
            self.register_parameter(name, value)
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (minflow.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Module):
            if "_modules" not in d:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            self._modules[name] = value
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (minflow.nn.Module or None expected)")
            self._modules[name] = None
        elif isinstance(value, Buffer):
            if "_buffers" not in d:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name, "_buffers")
            self.register_buffer(name, value, value.persistent)
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                f"(minflow Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Drop ``name`` from every store but ``keep`` (an attribute changes kind)."""
        d = self.__dict__
        d.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep and store in d:
                d[store].pop(name, None)
        if "_non_persistent_buffers_set" in d:
            d["_non_persistent_buffers_set"].discard(name)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, ()):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        extra = list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(object.__dir__(self)) | set(extra))

    # -- traversal ---------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, each once by default."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                                remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, store, prefix, recurse, remove_duplicate):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, store).items():
                if value is None or (remove_duplicate and value in seen):
                    continue
                seen.add(value)
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) pairs with dotted names, e.g. ``("0.weight", ...)``."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Every Parameter of this module and (with recurse) its descendants, each once.

        >>> sum(p.numel() for p in minflow.nn.Linear(3, 2).parameters())
        8
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target):
        """The descendant at dotted path ``target`` ("" is this module)."""
        module = self
        for part in target.split(".") if target else ():
            if part not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no submodule `{part}` "
                                     f"(looking up {target!r})")
            module = module._modules[part]
        return module

    # -- state ------------------------------------------------------------------------
    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of parameters and persistent buffers by dotted name (see
        _state_dict.py); values are detached unless keep_vars."""
        return _state_dict.state_dict(self, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s values into this module's parameters and buffers in place;
        returns ``(missing_keys, unexpected_keys)`` (see _state_dict.py)."""
        return _state_dict.load_state_dict(self, state_dict, strict, assign)

    def _register_load_state_dict_pre_hook(self, hook):
        """Call ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries: it may rewrite
        the keys in place (e.g. to read an older checkpoint format)."""
        return self._add_state_hook("_load_state_dict_pre_hooks", hook)

    def register_load_state_dict_pre_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries."""
        return self._add_state_hook("_load_state_dict_pre_hooks_with_module", hook)

    def register_load_state_dict_post_hook(self, hook):
        """Call ``hook(module, incompatible_keys)`` once this module and its children are
        loaded; it may change ``missing_keys`` / ``unexpected_keys`` in place before the
        strict check."""
        return self._add_state_hook("_load_state_dict_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook):
        """Call ``hook(module, prefix, keep_vars)`` before this module's state_dict."""
        return self._add_state_hook("_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this module's
        entries are in ``state_dict``; it may change them in place."""
        return self._add_state_hook("_state_dict_hooks", hook)

    _register_state_dict_hook = register_state_dict_post_hook

    def _add_state_hook(self, registry, hook):
        return RemovableHandle.add(self.__dict__.setdefault(registry, OrderedDict()), hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        _state_dict.save_own(self, destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        _state_dict.load_own(self, state_dict, prefix, local_metadata, strict,
                             missing_keys, unexpected_keys, error_msgs)

    # -- modes and gradients -----------------------------------------------------------
    def train(self, mode=True):
        """Set training mode on this module and its descendants (Dropout, BatchNorm care)."""
        if not isinstance(mode, bool):
            raise ValueError(f"train: training mode is expected to be boolean, got {mode!r}")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self):
        """``train(False)``: Dropout becomes the identity, BatchNorm uses running stats."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the ``.grad`` of every parameter: to None, or to zeros in place."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad.detach() if param.grad.grad_fn is not None else param.grad
                grad.requires_grad_(False)
                with no_grad():
                    grad.zero_()
                param.grad = grad

    def apply(self, fn):
        """Call ``fn`` on every descendant (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- devices and dtypes -------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's data by ``fn(tensor)``, keeping the
        Parameter objects (so an optimizer that holds them sees the move)."""
        for module in self.modules() if recurse else (self,):
            with no_grad():
                for param in module._parameters.values():
                    if param is None:
                        continue
                    param.data = fn(param)
                    if param.grad is not None:
                        param.grad = fn(param.grad)
                for name, buf in module._buffers.items():
                    if buf is not None:
                        module._buffers[name] = fn(buf)
        return self

    def to(self, *args, device=None, dtype=None, non_blocking=False, memory_format=None):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(tensor)``, in place.

        A dtype applies to floating point parameters and buffers only (integer buffers
        such as BatchNorm's num_batches_tracked keep theirs); a ``memory_format`` to the 4-
        and 5-d ones only.

        >>> m = minflow.nn.Linear(2, 2).to(minflow.float64)
        >>> m.weight.dtype, type(m.weight).__name__
        (minflow.float64, 'Parameter')
        >>> conv = minflow.nn.Conv2d(2, 4, 3).to(memory_format=minflow.channels_last)
        >>> conv.weight.is_contiguous(memory_format=minflow.channels_last)
        True
        """
        for arg in args:
            if isinstance(arg, Tensor):
                device, dtype = arg.device, arg.dtype
            elif isinstance(arg, dtypes.DType):
                dtype = arg
            else:
                device = arg
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError(f"Module.to: only floating point dtypes are accepted, got "
                                f"{dtype.name}")

        def convert(t):
            target = dtype if dtype is not None and t.dtype.is_floating_point else None
            if memory_format is not None and t.ndim in (4, 5):
                return t.to(device=device, dtype=target, memory_format=memory_format)
            return t.to(device=device, dtype=target)
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Give every parameter and buffer new, uninitialised storage on ``device`` (e.g.
        after building on "meta"); the values are whatever memory held.

        >>> m = minflow.nn.Linear(2, 3, device="meta").to_empty(device="cpu")
        >>> m.weight.device, m.weight.shape
        (device(type='cpu'), minflow.Size([3, 2]))
        """
        from ...core.namespace import F
        return self._apply(lambda t: F.empty(tuple(t.shape), dtype=t.dtype, device=device),
                           recurse)

    def share_memory(self):
        """Move every parameter and buffer to shared memory (``Tensor.share_memory_``), so
        that processes forked later train one set of weights.

        >>> m = minflow.nn.Linear(2, 2).share_memory()
        >>> m.weight.is_shared()
        True
        """
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device=None):
        return self.to("cuda" if device is None else
                       f"cuda:{device}" if isinstance(device, int) else device)

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def bfloat16(self):
        return self.to(dtypes.bfloat16)

    # -- hooks ---------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each forward; a non-None result replaces
        the positional args. With ``with_kwargs``: ``hook(module, args, kwargs)``, returning
        None or (args, kwargs). Returns a handle whose ``remove()`` unregisters it."""
        handle = RemovableHandle.add(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._hook_flags("_hooks_with_kwargs", handle)
        return handle

    def _hook_flags(self, name, handle):
        """Mark the hook of ``handle`` in the id set ``name`` (kept until it is removed)."""
        flags = self.__dict__.setdefault(name, set())
        flags.add(handle.id)
        handle.extra_dicts.append(flags)

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the
        module's inputs have been computed: one entry per positional arg (None for
        non-tensors), and per output tensor. A non-None result replaces grad_input.

        >>> lin, seen = minflow.nn.Linear(2, 1), []
        >>> _ = lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].shape))
        >>> lin(minflow.ones(3, 2, requires_grad=True)).sum().backward()
        >>> seen
        [minflow.Size([3, 1])]
        """
        return RemovableHandle.add(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradients of the module's outputs
        have been computed, before those of its inputs; a non-None result replaces
        grad_output."""
        return RemovableHandle.add(self._backward_pre_hooks, hook, prepend)

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` ("layer.0.weight")."""
        return self._get_member(target, "_parameters", "parameter")

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` ("bn.running_mean")."""
        return self._get_member(target, "_buffers", "buffer")

    def _get_member(self, target, registry, what):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in getattr(module, registry):
            raise AttributeError(f"{type(module).__name__} has no {what} `{name}` (looking up "
                                 f"{target!r})")
        return getattr(module, registry)[name]

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Call ``hook(module, args, output)`` after each forward; a non-None result
        replaces the output. Returns a handle whose ``remove()`` unregisters it.

        >>> m = minflow.nn.ReLU()
        >>> handle = m.register_forward_hook(lambda mod, args, out: out * 2)
        >>> m(minflow.tensor([-1.0, 3.0])).tolist()
        [0.0, 6.0]
        >>> handle.remove(); m(minflow.tensor([-1.0, 3.0])).tolist()
        [0.0, 3.0]

        With ``with_kwargs`` the hook is ``hook(module, args, kwargs, output)``; with
        ``always_call`` it also runs (with output None) when forward raises.
        """
        handle = RemovableHandle.add(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._hook_flags("_hooks_with_kwargs", handle)
        if always_call:
            self._hook_flags("_hooks_always_called", handle)
        return handle

    # -- repr ---------------------------------------------------------------------
    def extra_repr(self):
        """The text inside this module's parentheses in ``repr`` (subclasses override)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _indent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _indent(text, spaces):
    """Indent every line of ``text`` but the first (a child's repr inside its parent's)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])
