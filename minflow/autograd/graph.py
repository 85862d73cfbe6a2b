"""torch.autograd.graph: hooks on the tensors that autograd saves for backward.

``saved_tensors_hooks(pack_hook, unpack_hook)``: while active, every tensor an op saves for
its backward is stored as ``pack_hook(tensor)``, and turned back with ``unpack_hook`` when
the backward needs it, e.g. to keep activations compressed, on another device, or on disk.
``save_on_cpu`` is the ready-made one that parks them in host memory.

    >>> packed = []
    >>> def pack(t):
    ...     packed.append(t.shape)
    ...     return t
    >>> x = minflow.ones(3, requires_grad=True)
    >>> with minflow.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); packed, x.grad.tolist()
    ([minflow.Size([3]), minflow.Size([3])], [2.0, 2.0, 2.0])
"""
from .node import saved_tensors_hooks_stack

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

_disabled = []          # the error messages of the active disable_saved_tensors_hooks


class saved_tensors_hooks:
    """Context manager: the tensors saved for backward inside it go through ``pack_hook``
    (tensor -> anything) now and ``unpack_hook`` (that -> a tensor of the same values)
    when backward reads them. Nested ones: the innermost applies."""

    def __init__(self, pack_hook, unpack_hook):
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _disabled:
            raise RuntimeError(_disabled[-1])
        saved_tensors_hooks_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        saved_tensors_hooks_stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved for backward in cpu memory (pinned, with ``pin_memory``) and
    copy each back to its device when backward needs it: trades transfers for device
    memory. A no-op for cpu tensors.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> with minflow.autograd.graph.save_on_cpu():
    ...     y = (x.exp() * 2).sum()
    >>> y.backward(); round(x.grad[0].item(), 4)
    5.4366
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            if t.device.type == "cpu":
                return (t.device, t)
            host = t.detach().to("cpu")
            return (t.device, host.pin_memory() if pin_memory else host)

        def unpack(packed):
            device, t = packed
            return t if t.device is device else t.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager in which entering saved_tensors_hooks raises a RuntimeError with
    ``error_message`` (for code that must not have its saved tensors moved)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _disabled.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _disabled.pop()
        return False
