"""torch.func's grad and grad_and_value, on the eager tape.

``grad(f)(x)`` runs ``f`` on a fresh leaf standing for ``x`` (or, where ``x`` itself requires
grad, on a differentiable alias of it) and returns df/dx by ``autograd.grad`` with
create_graph: so grads nest (``grad(grad(f))``) and stay differentiable with respect to
tensors from outside the transform (a model's parameters that ``f`` closes over, as in a
gradient penalty or MAML). A result that depends on no such tensor is returned detached,
as torch's is.
"""
import functools

from ..autograd.engine import grad as autograd_grad
from ..autograd.node import AccumulateGrad, _sequence
from ..core.grad_mode import enable_grad, is_grad_enabled
from ..core.namespace import F
from ..core.tensor import Tensor
from ._tree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value"]


def grad(func, argnums=0, has_aux=False):
    """The function computing the gradient of ``func``'s scalar output with respect to
    its positional arguments ``argnums`` (an int or a tuple; each a Tensor or a pytree
    of Tensors). With ``has_aux``, ``func`` returns (output, aux) and so does the result.

    >>> x = minflow.tensor([1.0, 2.0])
    >>> minflow.func.grad(lambda x: (x ** 3).sum())(x)
    tensor([ 3., 12.])
    >>> minflow.func.grad(minflow.func.grad(lambda x: x.sin()))(minflow.tensor(0.5))
    tensor(-0.4794)
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def grad_and_value(func, argnums=0, has_aux=False):
    """As ``grad``, returning (gradients, output), or (gradients, (output, aux)) with
    ``has_aux``.

    >>> g, value = minflow.func.grad_and_value(lambda x: (x * x).sum())(minflow.tensor([3.0]))
    >>> g, value
    (tensor([6.]), tensor(9.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _positions(argnums, len(args))
        scope = _Scope()
        release = scope.release
        with enable_grad():
            args, leaves, specs = _track(args, positions, scope)
            output, aux = _split_output(func(*args, **kwargs), has_aux)
            grads = _grads(output, leaves)
        grads = [release(g) for g in grads]
        trees, at = [], 0
        for spec, count in specs:
            trees.append(tree_unflatten(grads[at:at + count], spec))
            at += count
        grads = trees[0] if isinstance(argnums, int) else tuple(trees)
        output = release(output)
        if not has_aux:
            return grads, output
        aux_leaves, aux_spec = tree_flatten(aux)
        return grads, (output, tree_unflatten([release(t) for t in aux_leaves], aux_spec))
    return wrapper


class _Scope:
    """One transform's run: the fresh leaves (or aliases) it differentiates with respect
    to, and the node sequence number it started at (nodes below were made outside)."""

    def __init__(self):
        self.start = next(_sequence)
        self.outer_grad = is_grad_enabled()
        self.fresh = set()

    def track(self, t, where):
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{where}: expected the differentiated inputs to be Tensors, "
                               f"got {type(t).__name__}")
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"{where}: only Tensors of floating point dtype can require "
                               f"gradients, got {t.dtype.name}")
        tracked = t.view_as(t) if t.requires_grad else t.detach().requires_grad_()
        self.fresh.add(id(tracked))
        return tracked

    def release(self, t):
        """t without the transform's own graph, unless it reaches outside."""
        if isinstance(t, Tensor) and t.requires_grad and not (
                self.outer_grad and _reaches_outside(t, self.fresh, self.start)):
            return t.detach()
        return t


def _positions(argnums, count):
    """argnums as a tuple of non-negative positions, checked as torch checks them."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        chosen = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) for a in argnums):
        if not argnums:
            raise RuntimeError("grad: argnums must be non-empty")
        chosen = argnums
    else:
        raise RuntimeError(f"grad: argnums must be int or Tuple[int, ...], got: "
                           f"{type(argnums).__name__}")
    for a in chosen:
        if not -count <= a < count:
            raise RuntimeError(f"grad: Got argnum={a}, but only {count} positional inputs")
    return tuple(a % count for a in chosen)


def _track(args, positions, scope):
    """args with each tensor at ``positions`` replaced by the leaf (or alias) that the
    gradient is taken with respect to (``scope.track``); those leaves; the (spec, count)
    of each tree."""
    args, leaves, specs = list(args), [], []
    for position in positions:
        tree_leaves, spec = tree_flatten(args[position])
        tracked = []
        for t in tree_leaves:
            if not isinstance(t, Tensor):
                raise ValueError(f"grad: expected the arguments at argnums to be Tensors "
                                 f"(or pytrees of them), got {type(t).__name__}")
            tracked.append(scope.track(t, "grad"))
        args[position] = tree_unflatten(tracked, spec)
        leaves += tracked
        specs.append((spec, len(tracked)))
    return args, leaves, specs


def _split_output(result, has_aux):
    """(output, aux) of func's result, checked to be a scalar Tensor (and a pair)."""
    aux = None
    if has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                               "tuple: (output, aux) if has_aux is True")
        result, aux = result
    if not isinstance(result, Tensor):
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                           f"got {type(result).__name__}")
    if result.ndim != 0:
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {result.ndim} dims. Maybe you wanted to "
                           f"use the vjp or jacrev APIs instead?")
    return result, aux


def _grads(output, leaves):
    """d output / d leaves, differentiable; zeros for leaves output does not use."""
    if output.requires_grad:
        found = autograd_grad(output, leaves, create_graph=True, allow_unused=True)
    else:
        found = [None] * len(leaves)
    return [F.zeros_like(t) if g is None else g for t, g in zip(leaves, found)]


def _reaches_outside(t, fresh, start):
    """Whether t's graph reaches a tensor from outside the transform: a node made before
    it started, or a leaf other than the transform's own."""
    if t.grad_fn is None:
        return id(t) not in fresh
    stack, seen = [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.leaf_ref()) not in fresh:
                return True
            continue
        if node.seq < start:
            return True
        stack.extend(edge[0] for edge in node.next_edges if edge is not None)
    return False
