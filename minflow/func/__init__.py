"""minflow.func: torch.func's functional_call (the module-as-function entry point) and the
grad transforms, grad and grad_and_value."""
from ..nn.utils.stateless import functional_call
from .grad import grad, grad_and_value

__all__ = ["functional_call", "grad", "grad_and_value"]
