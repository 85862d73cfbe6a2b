"""torch.utils.hooks: ``RemovableHandle``, what every ``register_*_hook`` returns."""
from ..nn.modules._hooks import RemovableHandle

__all__ = ["RemovableHandle"]
