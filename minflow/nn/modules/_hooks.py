"""RemovableHandle: what ``register_forward_hook`` and friends return."""
import itertools

__all__ = ["RemovableHandle"]

_next_id = itertools.count()


class RemovableHandle:
    """Holds a hook's key in its registry; ``remove()`` (or leaving a ``with`` block)
    unregisters the hook. Removing twice is harmless."""

    def __init__(self, hooks, hook_id):
        self.hooks_dict, self.id = hooks, hook_id
        self.extra_dicts = []       # sets of hook ids flagged (with_kwargs...), cleared on removal

    @classmethod
    def add(cls, hooks, hook, prepend=False):
        """Register ``hook`` in the ordered dict ``hooks`` (first if prepend)."""
        if not callable(hook):
            raise TypeError(f"register hook: expected a callable, got {type(hook).__name__}")
        handle = cls(hooks, next(_next_id))
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def remove(self):
        self.hooks_dict.pop(self.id, None)
        for flags in self.extra_dicts:
            flags.discard(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
