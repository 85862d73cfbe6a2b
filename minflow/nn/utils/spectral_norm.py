"""The hook-based spectral_norm (torch.nn.utils.spectral_norm): parameter ``<name>_orig``,
buffers ``<name>_u`` and ``<name>_v``, and a forward pre-hook that sets
``module.<name> = <name>_orig / sigma`` before each call, advancing the power iteration
in training mode."""
from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...ops.distance import normalize
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"spectral_norm: Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                plain = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(F.mv(plain.T, u), dim=0, eps=self.eps))
                    u.copy_(normalize(F.mv(plain, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = F.dot(u, F.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            rows, cols = fn.reshape_weight_to_matrix(weight).shape
            kw = {"dtype": weight.dtype, "device": weight.device}
            u = normalize(F.randn(rows, **kw), dim=0, eps=fn.eps)
            v = normalize(F.randn(cols, **kw), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm before each forward, estimated by
    power iteration (one more step per training-mode call) on the buffers ``<name>_u``,
    ``<name>_v``; the trained parameter is ``<name>_orig``. ``dim``: 1 for ConvTranspose,
    else 0.

    >>> m = minflow.nn.utils.spectral_norm(minflow.nn.Linear(20, 40))
    >>> list(m.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: ``<name>`` becomes a Parameter holding the normalised weight.

    >>> m = minflow.nn.utils.spectral_norm(minflow.nn.Linear(2, 2))
    >>> list(minflow.nn.utils.remove_spectral_norm(m).state_dict())
    ['bias', 'weight']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
