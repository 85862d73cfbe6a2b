"""minflow.func: torch.func's functional_call (the module-as-function entry point)."""
from .nn.utils.stateless import functional_call

__all__ = ["functional_call"]
