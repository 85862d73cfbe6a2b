"""torch.func's vjp, jvp, jacrev, jacfwd, hessian and stack_module_state, on the eager tape.

As ``grad``, each runs the function on fresh leaves standing for its inputs (or on
differentiable aliases of inputs that already require grad), computes with create_graph
so that transforms nest (``hessian`` is ``jacfwd(jacrev(f))``), and returns results
detached unless they reach tensors from outside the transform. jvp and jacfwd use the
double-backward trick (minflow's autograd is reverse mode), as autograd.functional does.
"""
import functools

from ..autograd import functional as _functional
from ..autograd.engine import grad as autograd_grad
from ..core.grad_mode import enable_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from ._tree import tree_flatten, tree_unflatten
from .grad import _positions, _Scope

__all__ = ["vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "functionalize",
           "stack_module_state", "replace_all_batch_norm_modules_"]


def _tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) if isinstance(x, Tensor) else x for x in leaves], spec)


def _tensor_leaves(tree):
    return [x for x in tree_flatten(tree)[0] if isinstance(x, Tensor)]


def _split_aux(out, has_aux, where):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           f"if has_aux is True")
    return out


def vjp(func, *primals, has_aux=False):
    """vjp(func, *primals, has_aux=False) -> (output, vjp_fn) (or (output, vjp_fn, aux))

    ``func``'s output at ``primals``, and a function taking cotangents shaped like the
    output and returning the tuple of their vector-Jacobian products, one per primal.

    >>> out, vjp_fn = minflow.func.vjp(lambda x: x ** 2, minflow.tensor([1.0, 2.0]))
    >>> vjp_fn(minflow.ones(2))[0].tolist()
    [2.0, 4.0]
    """
    where = "vjp(f, *primals)"
    scope = _Scope()
    with enable_grad():
        primals = _tree_map(lambda t: scope.track(t, where), primals)
        out, aux = _split_aux(func(*primals), has_aux, where)
    outputs, inputs = _tensor_leaves(out), _tensor_leaves(primals)
    if not outputs:
        raise RuntimeError(f"{where}: Expected f to be a function that has Tensor outputs")

    def vjp_fn(cotangents):
        cots = _tensor_leaves(cotangents)
        if len(cots) != len(outputs):
            raise RuntimeError(f"{where}: Expected pytree structure of cotangents to be the "
                               f"same as pytree structure of outputs to the function, got "
                               f"{len(cots)} tensors for {len(outputs)} outputs")
        pairs = [(o, c) for o, c in zip(outputs, cots) if o.requires_grad]
        with enable_grad():
            found = autograd_grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                                  retain_graph=True, create_graph=True, allow_unused=True) \
                if pairs else (None,) * len(inputs)
        found = [F.zeros_like(x) if g is None else scope.release(g)
                 for g, x in zip(found, inputs)]
        leaves = iter(found)
        return tuple(_tree_map(lambda _: next(leaves), primal) for primal in primals)
    result = (_tree_map(scope.release, out), vjp_fn)
    return result + (_tree_map(scope.release, aux),) if has_aux else result


def jvp(func, primals, tangents, *, has_aux=False):
    """jvp(func, primals, tangents, has_aux=False) -> (output, jvp_out) (or with aux)

    ``func``'s output at the tuple ``primals`` and its Jacobian-vector product with the
    tuple ``tangents`` (shaped like the primals), by the double-backward trick.

    >>> minflow.func.jvp(lambda x: x ** 2, (minflow.tensor([1., 2.]),),
    ...                  (minflow.tensor([1., 1.]),))[1].tolist()
    [2.0, 4.0]
    """
    where = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError(f"{where}: Expected primals and tangents to be tuples, got "
                           f"{type(primals).__name__} and {type(tangents).__name__}")
    inputs, directions = _tensor_leaves(primals), _tensor_leaves(tangents)
    if len(inputs) != len(directions) or any(
            tuple(a.shape) != tuple(b.shape) for a, b in zip(inputs, directions)):
        raise RuntimeError(f"{where}: Expected primals and tangents to have the same "
                           f"structure and shapes")
    scope = _Scope()
    with enable_grad():
        primals = _tree_map(lambda t: scope.track(t, where), primals)
        out, aux = _split_aux(func(*primals), has_aux, where)
        inputs, outputs = _tensor_leaves(primals), _tensor_leaves(out)
        dummies = [F.zeros_like(o).requires_grad_() for o in outputs]
        pairs = [(o, u) for o, u in zip(outputs, dummies) if o.requires_grad]
        back = autograd_grad([o for o, _ in pairs], inputs, [u for _, u in pairs],
                             retain_graph=True, create_graph=True, allow_unused=True) \
            if pairs else (None,) * len(inputs)
        used = [(g, v) for g, v in zip(back, directions) if g is not None]
        forward = autograd_grad([g for g, _ in used], dummies, [v for _, v in used],
                                retain_graph=True, create_graph=True, allow_unused=True) \
            if used else (None,) * len(dummies)
    found = iter([F.zeros_like(o) if g is None else scope.release(g)
                  for g, o in zip(forward, outputs)])
    result = (_tree_map(scope.release, out), _tree_map(lambda _: next(found), out))
    return result + (_tree_map(scope.release, aux),) if has_aux else result


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """jacrev(func, argnums=0, has_aux=False, chunk_size=None) -> function returning J

    The Jacobian of ``func`` with respect to argument ``argnums``, of shape
    output.shape + input.shape (a tuple over argnums for a tuple; over outputs for a tuple
    output), by reverse mode: one vector-Jacobian product per output element.
    ``chunk_size`` changes nothing here.

    >>> minflow.func.jacrev(lambda x: x ** 2)(minflow.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        where = "jacrev(f, argnums)(*args)"
        positions = _positions(argnums, len(args))
        scope = _Scope()
        aux = []

        def of_inputs(*inputs):
            full = list(args)
            for i, x in zip(positions, inputs):
                full[i] = x
            out, extra = _split_aux(func(*full, **kwargs), has_aux, where)
            aux.append(extra)
            return out
        with enable_grad():
            inputs = tuple(scope.track(args[i], where) for i in positions)
            # NOTE: jacobian() lays results out as torch.func does when an int argnums
            # passes a tensor (one Jacobian per output) and a tuple argnums a tuple
            jac = _functional.jacobian(of_inputs, inputs[0] if isinstance(argnums, int)
                                       else inputs, create_graph=True)
        jac = _tree_map(scope.release, jac)
        return (jac, _tree_map(scope.release, aux[0])) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """jacfwd(func, argnums=0, has_aux=False, randomness='error') -> function returning J

    The Jacobian of ``func``, as ``jacrev`` (the same values: minflow's autograd is reverse
    mode, so this runs reverse mode too).

    >>> minflow.func.jacfwd(lambda x: x.sin())(minflow.tensor([0.0])).tolist()
    [[1.0]]
    """
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """hessian(func, argnums=0) -> function returning the Hessian of a scalar ``func``

    ``jacfwd(jacrev(func, argnums), argnums)``: shape input.shape + input.shape.

    >>> minflow.func.hessian(lambda x: (x ** 3).sum())(minflow.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)


def stack_module_state(models):
    """stack_module_state(models) -> (params, buffers)

    The parameters and buffers of models of one class, each stacked by name along a new
    first dim: with ``functional_call`` and ``vmap`` they run an ensemble in one call.
    Stacked parameters are new leaves that require grad where the models' do.

    >>> models = [minflow.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = minflow.func.stack_module_state(models)
    >>> params["weight"].shape, params["weight"].is_leaf
    (minflow.Size([4, 2, 3]), True)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named):
        tensors = [dict(named(m)) for m in models]
        result = {}
        for name in tensors[0]:
            values = [t[name] for t in tensors]
            leaf = F.stack([v.detach() for v in values])
            result[name] = leaf.requires_grad_() if all(v.requires_grad for v in values) \
                else leaf
        return result
    return (stacked(lambda m: m.named_parameters()), stacked(lambda m: m.named_buffers()))


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian of func at the
    primals applied to the tangents (each of its primal's shape), as torch.func.linearize.

    >>> out, jvp_fn = minflow.func.linearize(minflow.sin, minflow.tensor([0.0, 1.0]))
    >>> [round(v, 4) for v in jvp_fn(minflow.ones(2)).tolist()]
    [1.0, 0.5403]
    """
    output = _tree_map(lambda t: t.detach(), func(*primals))

    def jvp_fn(*tangents):
        if len(tangents) != len(primals):
            raise RuntimeError(f"linearize: expected {len(primals)} tangents, one per primal, "
                               f"got {len(tangents)}")
        for i, (p, t) in enumerate(zip(tree_flatten(primals)[0], tree_flatten(tangents)[0])):
            if isinstance(p, Tensor) and tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(f"linearize: tangent {i} has shape {list(t.shape)}, "
                                   f"expected its primal's {list(p.shape)}")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn


def functionalize(func, *, remove="mutations"):
    """``func`` itself: torch.func.functionalize rewrites in-place ops out of a function
    for its compilers without changing what it computes, and minflow runs the function
    eagerly, so its results are the same.

    >>> minflow.func.functionalize(minflow.exp) is minflow.exp
    True
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize: remove must be 'mutations' or "
                           f"'mutations_and_views', got {remove!r}")
    return func


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm in ``root`` use batch statistics only (no running
    statistics), in place, as torch.func does before vmapping a model; returns root."""
    from ..nn.modules.batchnorm import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = module.running_var = module.num_batches_tracked = None
            module.track_running_stats = False
    return root
