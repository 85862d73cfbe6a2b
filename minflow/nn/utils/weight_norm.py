"""The hook-based weight_norm (torch.nn.utils.weight_norm, deprecated there in favour of
parametrizations.weight_norm): parameters ``<name>_g`` and ``<name>_v``, and a forward
pre-hook that recomputes ``module.<name>`` before each call."""
import warnings

from ..parameter import Parameter
from .parametrizations import _norm_except_dim, _weight_norm_value

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook: sets ``module.<name> = g * v / ||v||`` (norm over every dim but
    ``dim``; ``dim=None``, stored as -1, for the whole tensor)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm_value(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`minflow.nn.utils.weight_norm` is deprecated in favor of "
                      "`minflow.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Split ``module.<name>`` into a magnitude ``<name>_g`` and a direction ``<name>_v``
    (weight = g * v / ||v||), recomputed by a forward pre-hook; warns FutureWarning as
    torch (``parametrizations.weight_norm`` is the current form).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = minflow.nn.utils.weight_norm(minflow.nn.Linear(20, 40), name="weight")
    >>> m.weight_g.shape, m.weight_v.shape
    (minflow.Size([40, 1]), minflow.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm``: ``<name>`` becomes a Parameter holding g * v / ||v||.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = minflow.nn.utils.weight_norm(minflow.nn.Linear(2, 2))
    >>> list(minflow.nn.utils.remove_weight_norm(m).state_dict())
    ['bias', 'weight']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
