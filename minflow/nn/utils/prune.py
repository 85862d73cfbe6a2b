"""Pruning, as torch.nn.utils.prune: zero a fraction of a module's parameter through a mask.

Pruning ``module.weight`` reparametrizes it: the parameter moves to ``weight_orig``, a
buffer ``weight_mask`` holds the mask, and ``weight`` becomes the plain attribute
``weight_orig * weight_mask``, recomputed by a forward pre-hook (the pruning method itself)
before each forward. Gradients reach ``weight_orig`` through the product, so pruned entries
get none. Pruning a tensor again combines the masks (a PruningContainer): the new method
only picks among the entries (or channels) still unpruned. ``remove`` makes it permanent.

    >>> prune = minflow.nn.utils.prune
    >>> lin = minflow.nn.Linear(4, 2)
    >>> _ = prune.l1_unstructured(lin, "weight", amount=0.5)
    >>> sorted(name for name, _ in lin.named_parameters()), int(lin.weight_mask.sum())
    (['bias', 'weight_orig'], 4)
    >>> _ = prune.remove(lin, "weight"); sorted(name for name, _ in lin.named_parameters())
    ['bias', 'weight']
"""
import numbers
from abc import ABC, abstractmethod

from ...core.grad_mode import no_grad
from ...core.namespace import F
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way of computing a mask. Subclasses set ``PRUNING_TYPE`` ("unstructured",
    "structured" with a ``dim``, or "global") and define ``compute_mask``; ``apply``
    prunes a module's tensor with it. An instance is the forward pre-hook that keeps
    ``module.<name>`` equal to ``<name>_orig * <name>_mask``."""

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask (t's shape) for tensor ``t``, pruning on top of ``default_mask``."""

    def apply_mask(self, module):
        """``<name>_orig`` times ``<name>_mask``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, combined with the
        pruning already there; the mask is computed from ``importance_scores`` (default:
        the tensor itself). Returns the method (or container) now hooked on the module."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif tuple(importance_scores.shape) != tuple(orig.shape):
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}, got {tuple(importance_scores.shape)} vs "
                                 f"{tuple(orig.shape)}")
        first = not isinstance(method, PruningContainer)
        if first:       # the parameter moves to <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = F.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with no_grad():
                mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:   # roll back: the parameter returns under its name
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask computed from ``importance_scores`` (default ``t``)."""
        if importance_scores is None:
            importance_scores = t
        elif tuple(importance_scores.shape) != tuple(t.shape):
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {tuple(importance_scores.shape)} vs {tuple(t.shape)}")
        default_mask = F.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` a parameter again, holding the pruned
        values; ``<name>_orig`` and ``<name>_mask`` gone."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 f"removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        orig.data = weight.data
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """``cls(*args, **kwargs)`` for tensor ``name``, combined with the pruning hook already
    on it (taken off the module; ``apply`` hooks the result back on)."""
    old = [(key, hook) for key, hook in module._forward_pre_hooks.items()
           if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(old) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not old:
        return method
    key, old_method = old[0]
    del module._forward_pre_hooks[key]
    if not isinstance(old_method, PruningContainer):
        old_method = PruningContainer(old_method)
    old_method.add_pruning_method(method)
    return old_method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied to one tensor, in order: the last one prunes among the
    entries (unstructured) or channels (structured) that the mask so far keeps."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask on the part of ``t`` that ``default_mask`` keeps."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            where = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     'have the attribute `dim` defined.')
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {t.ndim}")
            others = [d for d in range(t.ndim) if d != dim]
            kept_channels = default_mask.sum(dim=others) != 0
            where = (slice(None),) * dim + (kept_channels,)
        elif method.PRUNING_TYPE == "global":
            where = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        mask[where] = partial.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a reparametrization only)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction of all), the ones ``_chosen``
    picks: their flat indices."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            mask.view(-1)[self._chosen(t, count)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen at random."""

    def _chosen(self, t, count):
        return F.topk(F.rand_like(t).reshape(-1), count).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest absolute value."""

    def _chosen(self, t, count):
        return F.topk(F.abs(t).reshape(-1), count, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _Structured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``: the mask keeps the channels
    ``_kept`` picks (indices or a bool mask), on top of the mask so far."""

    PRUNING_TYPE = "structured"

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        kept = self._kept(t, channels, count)
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)


class RandomStructured(_Structured):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def _kept(self, t, channels, count):
        prob = F.rand(channels)
        return prob > F.kthvalue(prob, count).values

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_Structured):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def _kept(self, t, channels, count):
        dim = self.dim % t.ndim
        norms = F.norm(t, p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        return F.topk(norms, channels - count, largest=True).indices

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError(f"default_mask shape {tuple(default_mask.shape)} must match "
                                 f"self.mask shape {tuple(self.mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _channel_mask(t, dim, kept):
    """Zeros like ``t`` with ones in the channels ``kept`` (indices or a bool mask) along
    ``dim``."""
    mask = F.zeros_like(t)
    mask[(slice(None),) * (dim % t.ndim) + (kept,)] = 1
    return mask


# ---- the functional forms: each prunes module.<name> in place and returns the module -----

def identity(module, name):
    """Reparametrize ``module.<name>`` with an all-ones mask (prunes nothing)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>`` (an int count or a fraction)."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude (or of
    smallest ``importance_scores``).

    >>> lin = minflow.nn.Linear(3, 1, bias=False)
    >>> with minflow.no_grad():
    ...     _ = lin.weight.copy_(minflow.tensor([[0.1, -2.0, 0.5]]))
    >>> minflow.nn.utils.prune.l1_unstructured(lin, "weight", amount=1).weight.tolist()
    [[0.0, -2.0, 0.5]]
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of ``module.<name>`` of smallest
    L``n`` norm (``n`` as ``norm``'s ``p``: a number, inf, -inf or "fro")."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune ``(module, name)`` pairs together: ``pruning_method(**kwargs)`` (unstructured)
    picks among all their entries at once, e.g. the 20% smallest of the whole network."""
    if isinstance(parameters, (str, bytes)) or not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask") if hasattr(m, n + "_mask")
                                         else F.ones_like(getattr(m, n))
                                         for m, n in parameters])
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the '
                        f'`pruning_method`. Found method {pruning_method} of type '
                        f'{method.PRUNING_TYPE}')
    method._tensor_name = "temp"
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    with no_grad():
        final_mask = container.compute_mask(scores.detach(), default_mask.detach())
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, final_mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see BasePruningMethod.remove)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     f"can be removed")


def is_pruned(module):
    """Whether ``module`` or any submodule has a tensor pruned."""
    return any(isinstance(hook, BasePruningMethod) for _, sub in module.named_modules()
               for hook in sub._forward_pre_hooks.values())


# ---- argument checks, as torch's --------------------------------------------------------

def _check_amount(amount):
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (amount < 0 if isinstance(amount, numbers.Integral) else not 0.0 <= amount <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         f"non-negative integer")


def _count_to_prune(amount, size):
    """``amount`` as a count of units out of ``size``: an int as it is, a fraction
    rounded (half to even, as Python's round)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of "
                             f"parameters to prune={size}")
        return int(amount)
    return round(amount * size)


def _check_structured(t, dim):
    if t.ndim <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional "
                         f"tensors. Found tensor of shape {tuple(t.shape)} with {t.ndim} dims")
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")
