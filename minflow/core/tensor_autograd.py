"""The autograd surface of Tensor: requires_grad, grad, grad_fn, backward, detach, hooks.

A base class of Tensor (which holds the slots these methods read); it imports nothing of
the autograd package until a method needs it.
"""

import numpy as np

__all__ = ["TensorAutograd"]


class TensorAutograd:
    """Tensor's autograd attributes and methods (see Tensor)."""

    __slots__ = ()

    @property
    def requires_grad(self):
        """Whether autograd records ops on this tensor; settable on leaves.

        >>> x = minflow.zeros(2)
        >>> x.requires_grad = True
        >>> (x * 2).requires_grad
        True
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records ops on this leaf tensor (in place).

        >>> minflow.tensor([1.0, 2.0]).requires_grad_()
        tensor([1., 2.], requires_grad=True)
        """
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError("requires_grad_: you can only change requires_grad flags of "
                               "leaf tensors; use detach() to get a tensor without grad")
        if requires_grad and not self.dtype.is_differentiable:
            raise RuntimeError(f"requires_grad_: only Tensors of floating point and complex "
                               f"dtype can require gradients, got dtype {self.dtype.name}")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """The accumulated gradient of this leaf (None until a backward reaches it).

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> (w * w).sum().backward()
        >>> w.grad
        tensor([2., 4.])
        """
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, TensorAutograd):
                raise TypeError(f"grad: assigned grad expected to be a Tensor or None but got "
                                f"grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"grad: attempting to assign a gradient of size "
                                   f"{list(value.shape)} to a tensor of size {list(self.shape)}")
        self._grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). A view whose storage was

        changed in place since gets a fresh one, as in torch (see core/inplace.py).

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> (w * 2).grad_fn, w.grad_fn
        (<MulBackward0>, None)
        """
        if self._base is not None and self._view_version is not None \
                and self._view_version != self._version[0]:
            from .inplace import refresh_view
            refresh_view(self)
        return self._grad_fn

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for a leaf).

        >>> minflow.ones(2, requires_grad=True).exp().output_nr
        0
        """
        return self._output_nr

    @property
    def is_leaf(self):
        """Whether no recorded op made this tensor (``grad_fn is None``).

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> w.is_leaf, (w * 2).is_leaf
        (True, False)
        """
        return self.grad_fn is None

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see autograd.backward).

        >>> w = minflow.tensor([3.0], requires_grad=True)
        >>> (w ** 2).sum().backward()
        >>> w.grad
        tensor([6.])
        """
        if (self._data.__class__ is not np.ndarray        # graph mode: backward adds grad ops
                and getattr(self._data, "is_lazy", False)):
            from ..graph.autodiff import graph_backward
            from .autocast import suspended
            with suspended():
                return graph_backward(self, gradient, retain_graph, create_graph, inputs)
        from ..autograd.engine import backward
        backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """A tensor sharing this storage, outside the autograd graph.

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> (w * 2).detach()
        tensor([2.])
        """
        out = self._make(self._data, self.dtype, self.device)
        out._version = self._share_version()
        return out

    def detach_(self):
        """Detach this tensor from the autograd graph in place: it becomes a leaf.

        >>> y = minflow.tensor([1.0], requires_grad=True) * 2
        >>> y.detach_().is_leaf, y.requires_grad
        (True, False)
        """
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError("detach_: cannot detach a view of a tensor that requires grad "
                               "in place; use detach()")
        self._grad_fn = self._view_version = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward.

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> h = w * 2
        >>> h.retain_grad()
        >>> h.sum().backward()
        >>> h.grad
        tensor([1., 1.])
        """
        if not self._requires_grad:
            raise RuntimeError("retain_grad: can't retain_grad on a tensor that has "
                               "requires_grad=False")
        if self.grad_fn is not None:
            self.grad_fn.retain_grad(self)

    @property
    def retains_grad(self):
        """Whether ``retain_grad()`` was called on this non-leaf tensor.

        >>> h = minflow.tensor([1.0], requires_grad=True) * 2
        >>> h.retain_grad()
        >>> h.retains_grad
        True
        """
        return self.grad_fn is not None and self.grad_fn.retains(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient of this tensor is computed.

        The hook may return a new gradient to use instead. Returns a handle whose
        ``remove()`` unregisters the hook.

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = w.register_hook(lambda grad: grad * 10)
        >>> w.sum().backward()
        >>> w.grad
        tensor([10., 10.])
        >>> handle.remove()
        """
        if not self._requires_grad:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that "
                               "doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn.register_hook(self._output_nr, hook)
        from ..autograd.node import grad_accumulator
        return grad_accumulator(self).register_hook(0, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` on this leaf after a backward has accumulated its ``.grad``.

        The hook sees the leaf itself (not its grad), may change it in place and must
        return None; it runs with grad mode off unless ``create_graph=True``. Returns a
        handle whose ``remove()`` unregisters the hook.

        >>> v = minflow.tensor([0.0, 0.0], requires_grad=True)
        >>> handle = v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.5))
        >>> v.backward(minflow.tensor([1.0, 2.0]))
        >>> v
        tensor([-0.5000, -1.0000], requires_grad=True)
        >>> handle.remove()
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        from ..autograd.node import grad_accumulator
        return grad_accumulator(self).register_post_hook(hook)

    def _share_version(self):
        """This tensor's version counter, created on first need (views share it)."""
        if self._version is None:
            self._version = [0]
        return self._version

    @property
    def _version_value(self):
        return 0 if self._version is None else self._version[0]


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook
        hooks.append(hook)

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
