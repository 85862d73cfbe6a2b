"""minflow.func: torch.func's functional_call (the module-as-function entry point), the
grad transforms grad and grad_and_value, and vmap."""
from ..nn.utils.stateless import functional_call
from .grad import grad, grad_and_value
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "vmap"]
