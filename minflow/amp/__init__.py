"""``minflow.amp``: automatic mixed precision, as ``torch.amp``.

``autocast`` runs matmul-like ops in float16 and precision-sensitive ones in float32 inside
a region; ``GradScaler`` scales the loss so float16 gradients keep their small values, and
skips steps whose gradients overflowed. A typical step:

>>> model = minflow.nn.Linear(4, 1)
>>> opt = minflow.optim.SGD(model.parameters(), lr=0.1)
>>> scaler = minflow.amp.GradScaler("cpu")
>>> with minflow.autocast("cpu", dtype=minflow.float16):
...     loss = model(minflow.ones(8, 4)).float().pow(2).mean()
>>> scaler.scale(loss).backward()
>>> scaler.step(opt)
>>> scaler.update()
"""
from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype,
                            is_autocast_available, is_autocast_enabled)
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype", "custom_fwd", "custom_bwd"]
