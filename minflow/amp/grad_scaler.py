"""``GradScaler``: dynamic loss scaling for float16 training, as ``torch.amp.GradScaler``.

The loss is multiplied by a scale before backward so small float16 gradients do not flush
to zero; ``step`` divides the gradients by it again and skips the optimizer step when any
is inf or NaN; ``update`` halves the scale after such a step and doubles it after
``growth_interval`` clean ones.

>>> w = minflow.nn.Parameter(minflow.ones(2))
>>> opt = minflow.optim.SGD([w], lr=0.1)
>>> scaler = minflow.amp.GradScaler("cpu", init_scale=1024.0)
>>> scaler.scale((w * 3).sum()).backward()
>>> w.grad                                      # scaled gradients
tensor([3072., 3072.])
>>> scaler.step(opt)                            # unscaled, finite: SGD steps
>>> scaler.update()
>>> w.detach(), scaler.get_scale()
(tensor([0.7000, 0.7000]), 1024.0)
"""
import warnings

import numpy as np

import minflow
from ..core import dtype as dtypes
from ..core.device import cuda_is_available
from ..core.tensor import Tensor

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Scales losses and unscales gradients (see the module docstring).

    >>> scaler = minflow.amp.GradScaler("cpu", init_scale=8.0)
    >>> scaler.scale(minflow.tensor(0.5))
    tensor(4.)
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if device not in ("cpu", "cuda"):
            raise RuntimeError(f"GradScaler: expected device 'cpu' or 'cuda', got {device!r}")
        if enabled and device == "cuda" and not cuda_is_available():
            warnings.warn("minflow.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device = device
        self._enabled = enabled
        self._init_scale = float(init_scale)
        self._scale = None                  # the scale as a Python float once first used
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer = {}            # id(optimizer) -> {"stage", "found_inf"}

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists / tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = self._init_scale
        if isinstance(outputs, Tensor):
            return outputs * self._scale_tensor(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _scale_tensor(self, device):
        return minflow.tensor(self._scale, dtype=dtypes.float32, device=device)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer),
                                              {"stage": _READY, "found_inf": None})

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place, noting inf / NaN."""
        if not self._enabled:
            return
        self._check_scale_used("unscale_")
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / self._scale
        found = False
        with minflow.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    param.grad.mul_(inverse)
                    found = found or not bool(minflow.isfinite(param.grad).all())
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done already) and run ``optimizer.step`` if every gradient is
        finite; returns what it returns, or None when the step is skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_used("step")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Set the next scale: ``new_scale`` if given, else back off after an inf / NaN
        step and grow after ``growth_interval`` clean ones."""
        if not self._enabled:
            return
        self._check_scale_used("update")
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor)
                                else new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values()
                     if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            # float32 arithmetic, as the scale is a float32 tensor in torch: a scale that
            # would overflow to inf does not grow
            scale = np.float32(self._scale)
            if any(found):
                self._scale = float(scale * np.float32(self._backoff_factor))
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                with np.errstate(over="ignore"):
                    grown = scale * np.float32(self._growth_factor)
                if np.isfinite(grown):
                    self._scale = float(grown)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer = {}

    def _check_scale_used(self, name):
        if self._scale is None:
            raise RuntimeError(f"Attempted {name} but _scale is None.  This may indicate "
                               f"your script did not use scaler.scale(loss or outputs) "
                               f"earlier in the iteration.")

    # ---- the scale and its settings ----------------------------------------------------
    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def state_dict(self):
        """The scale and its settings (empty when disabled), with torch's keys."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale = self._init_scale
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
