"""minflow.func: torch.func's function transforms, over minflow's tape autograd.

    grad, grad_and_value    the gradient of a function returning a scalar
    vjp, jvp                vector-Jacobian and Jacobian-vector products
    jacrev, jacfwd, hessian whole Jacobians and Hessians
    vmap                    a function of one sample, mapped over a batch dimension
    functional_call         a module run with other parameters and buffers
    stack_module_state      the parameters and buffers of several models, stacked (to vmap)

Each transform takes a function and returns a function. They are built on autograd.grad:
reverse mode, with jvp and jacfwd by the double-backward trick (as autograd.functional).
vmap calls the function once per slice along the mapped dims and stacks the results:
torch's values without its batching rules, at the cost of a Python loop.

Transforms nest: ``hessian(f)`` is ``jacfwd(jacrev(f))``, and ``vmap(grad(f))`` gives
per-sample gradients. Inside another transform (or when an input already requires grad)
the results keep their graph, so the outer transform can differentiate them; at the top
level they are plain tensors, as torch's. A tensor a function closes over counts as a
constant at the top level.
"""
from .core.grad_mode import enable_grad, is_grad_enabled
from .core.namespace import F
from .core.tensor import Tensor
from .autograd import functional as _functional
from .autograd.engine import grad as _grad
from .nn.utils.stateless import functional_call

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]

_depth = [0]        # how many transforms are running their function now


class _Nested:
    def __enter__(self):
        _depth[0] += 1

    def __exit__(self, *exc):
        _depth[0] -= 1


def _keep_graph(values):
    """Whether results must stay differentiable: inside another transform, or when an
    input already requires grad (an outer autograd pass differentiates them)."""
    return is_grad_enabled() and (_depth[0] > 0 or any(
        t.requires_grad for t in _leaves(values)))


# ---- pytrees: nested tuples, lists and dicts with tensors (or anything) at the leaves -----

def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [tree] if isinstance(tree, Tensor) else []


def _tree_map(fn, tree):
    """``tree`` with each tensor leaf replaced by ``fn(leaf)``."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_tree_map(fn, item) for item in tree)
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v) for k, v in tree.items()}
    return fn(tree) if isinstance(tree, Tensor) else tree


def _rebuild(tree, values):
    """``tree`` with its tensor leaves replaced, in order, by ``values`` (an iterator)."""
    return _tree_map(lambda _: next(values), tree)


# ---- grad and grad_and_value -------------------------------------------------------------

def _argnums(argnums, nargs, where):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or any(not isinstance(i, int) or not -nargs <= i < nargs for i in nums):
        raise RuntimeError(f"{where}: Got argnums={argnums!r}, expected an int or a non-empty "
                           f"tuple of ints in [-{nargs}, {nargs}) for {nargs} positional "
                           f"arguments")
    return tuple(i % nargs for i in nums)


def _track(t, graph, where):
    """An input to differentiate: a view keeping the outer graph, or a fresh leaf."""
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{where}: only Tensors of floating point dtype can require "
                           f"gradients, got one of dtype {t.dtype.name}")
    return t.view_as(t) if graph and t.requires_grad else t.detach().requires_grad_()


def _result(t, graph):
    return t if graph or not isinstance(t, Tensor) else t.detach()


def grad_and_value(func, argnums=0, has_aux=False):
    """grad_and_value(func, argnums=0, has_aux=False) -> function returning (grad, value)

    As ``grad``, and also the value of ``func`` (with ``has_aux``: (value, aux)).

    >>> g, value = minflow.func.grad_and_value(lambda x: (x ** 2).sum())(minflow.tensor([1., 2.]))
    >>> g.tolist(), value.item()
    ([2.0, 4.0], 5.0)
    """
    def wrapper(*args, **kwargs):
        where = "grad_and_value(f)(*args)"
        nums = _argnums(argnums, len(args), where)
        graph = _keep_graph([args[i] for i in nums])
        args = list(args)
        with enable_grad(), _Nested():
            for i in nums:
                args[i] = _tree_map(lambda t: _track(t, graph, where), args[i])
            out = func(*args, **kwargs)
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{where}: output of function f should be a tuple: "
                                   f"(output, aux) if has_aux is True")
            out, aux = out
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{where}: Expected f(*args) to return a Tensor, got "
                               f"{type(out).__name__}")
        if out.numel() != 1 or out.ndim != 0:
            raise RuntimeError(f"{where}: Expected f(*args) to return a scalar Tensor, got "
                               f"tensor with {out.ndim} dims. Maybe you wanted to use the vjp "
                               f"or jacrev APIs instead?")
        inputs = [leaf for i in nums for leaf in _leaves(args[i])]
        found = _grad(out, inputs, retain_graph=graph, create_graph=graph, allow_unused=True) \
            if out.requires_grad else (None,) * len(inputs)
        found = iter([F.zeros_like(x) if g is None else _result(g, graph)
                      for g, x in zip(found, inputs)])
        grads = tuple(_rebuild(args[i], found) for i in nums)
        grads = grads[0] if isinstance(argnums, int) else grads
        value = _result(out, graph)
        if has_aux:
            return grads, (value, _tree_map(lambda t: _result(t, graph), aux))
        return grads, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """grad(func, argnums=0, has_aux=False) -> function returning the gradient

    The gradient of ``func`` (which returns a 0-d tensor) with respect to its positional
    argument ``argnums`` (an int, or a tuple of ints for a tuple of gradients), each shaped
    like its argument (nested tuples, lists and dicts of tensors too). With ``has_aux``
    ``func`` returns (output, aux) and the result is (gradient, aux).

    >>> minflow.func.grad(lambda x: (x ** 3).sum())(minflow.tensor([1.0, 2.0])).tolist()
    [3.0, 12.0]
    >>> minflow.func.grad(minflow.func.grad(lambda x: x ** 3))(minflow.tensor(2.0)).item()
    12.0
    """
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


# ---- vjp and jvp ---------------------------------------------------------------------------

def vjp(func, *primals, has_aux=False):
    """vjp(func, *primals, has_aux=False) -> (output, vjp_fn) (or (output, vjp_fn, aux))

    ``func``'s output at ``primals``, and a function taking cotangents shaped like the
    output and returning the tuple of their vector-Jacobian products, one per primal.

    >>> out, vjp_fn = minflow.func.vjp(lambda x: x ** 2, minflow.tensor([1.0, 2.0]))
    >>> vjp_fn(minflow.ones(2))[0].tolist()
    [2.0, 4.0]
    """
    where = "vjp(f, *primals)"
    graph = _keep_graph(primals)
    with enable_grad(), _Nested():
        primals = _tree_map(lambda t: _track(t, graph, where), primals)
        out = func(*primals)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(f"{where}: output of function f should be a tuple: "
                               f"(output, aux) if has_aux is True")
        out, aux = out
    outputs, inputs = _leaves(out), _leaves(primals)
    if not outputs:
        raise RuntimeError(f"{where}: Expected f to be a function that has Tensor outputs")

    def vjp_fn(cotangents):
        keep = _keep_graph(cotangents)
        cots = _leaves(cotangents)
        if len(cots) != len(outputs):
            raise RuntimeError(f"{where}: Expected pytree structure of cotangents to be the "
                               f"same as pytree structure of outputs to the function, got "
                               f"{len(cots)} tensors for {len(outputs)} outputs")
        pairs = [(o, c) for o, c in zip(outputs, cots) if o.requires_grad]
        found = _grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=True,
                      create_graph=graph or keep, allow_unused=True) if pairs \
            else (None,) * len(inputs)
        found = iter([F.zeros_like(x) if g is None else _result(g, graph or keep)
                      for g, x in zip(found, inputs)])
        return tuple(_rebuild(primal, found) for primal in primals)
    out = _tree_map(lambda t: _result(t, graph), out)
    if has_aux:
        return out, vjp_fn, _tree_map(lambda t: _result(t, graph), aux)
    return out, vjp_fn


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
    inputs, directions = _leaves(primals), _leaves(tangents)
    if len(inputs) != len(directions) or any(
            tuple(a.shape) != tuple(b.shape) for a, b in zip(inputs, directions)):
        raise RuntimeError(f"{where}: Expected primals and tangents to have the same "
                           f"structure and shapes")
    graph = _keep_graph((primals, tangents))
    with enable_grad(), _Nested():
        primals = _tree_map(lambda t: _track(t, graph, where), primals)
        out = func(*primals)
    aux = None
    if has_aux:
        out, aux = out
    inputs, outputs = _leaves(primals), _leaves(out)
    with enable_grad():
        dummies = [F.zeros_like(o).requires_grad_() for o in outputs]
        pairs = [(o, u) for o, u in zip(outputs, dummies) if o.requires_grad]
        back = _grad([o for o, _ in pairs], inputs, [u for _, u in pairs], retain_graph=True,
                     create_graph=True, allow_unused=True) if pairs else (None,) * len(inputs)
        used = [(g, v) for g, v in zip(back, directions) if g is not None]
        forward = _grad([g for g, _ in used], dummies, [v for _, v in used],
                        retain_graph=graph, create_graph=graph, allow_unused=True) if used \
            else (None,) * len(dummies)
    found = iter([F.zeros_like(o) if g is None else _result(g, graph)
                  for g, o in zip(forward, outputs)])
    result = (_tree_map(lambda t: _result(t, graph), out), _rebuild(out, found))
    return result + (_tree_map(lambda t: _result(t, graph), aux),) if has_aux else result


# ---- Jacobians and Hessians ----------------------------------------------------------------

def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """jacrev(func, argnums=0, has_aux=False, chunk_size=None) -> function returning J

    The Jacobian of ``func`` with respect to argument ``argnums``, of shape
    output.shape + input.shape (a tuple over argnums for a tuple; over outputs for a tuple
    output), by reverse mode: one vector-Jacobian product per output element.
    ``chunk_size`` is accepted for torch's signature.

    >>> minflow.func.jacrev(lambda x: x ** 2)(minflow.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    def wrapper(*args, **kwargs):
        where = "jacrev(f, argnums)(*args)"
        nums = _argnums(argnums, len(args), where)
        graph = _keep_graph([args[i] for i in nums])
        aux = []

        def of_inputs(*inputs):
            full = list(args)
            for i, x in zip(nums, inputs):
                full[i] = x
            with _Nested():
                out = func(*full, **kwargs)
            if has_aux:
                out, extra = out
                aux.append(extra)
            return out
        inputs = tuple(args[i] for i in nums)
        for x in inputs:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{where}: expected the differentiated arguments to be "
                                   f"Tensors, got {type(x).__name__}")
        # NOTE: jacobian() lays results out as torch.func does when an int argnums passes
        # a tensor (one Jacobian per output) and a tuple argnums a tuple (one per argument)
        jac = _functional.jacobian(of_inputs, inputs[0] if isinstance(argnums, int)
                                   else inputs, create_graph=graph)
        if has_aux:
            return jac, _tree_map(lambda t: _result(t, graph), aux[0])
        return jac
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


# ---- vmap ----------------------------------------------------------------------------------

def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """vmap(func, in_dims=0, out_dims=0, randomness='error', chunk_size=None)

    ``func`` written for one sample, mapped over a batch: each positional argument is
    sliced along its ``in_dims`` entry (an int, or None for an argument shared by every
    sample; nested like the argument for tuples, lists and dicts), ``func`` runs on each
    slice, and the outputs (tensors) are stacked along ``out_dims``. Keyword arguments are
    not mapped. The samples run one after another, so random ops draw per sample (torch's
    randomness='different'). ``chunk_size`` is accepted for torch's signature.

    >>> minflow.func.vmap(lambda x, y: x @ y, in_dims=(0, None))(
    ...     minflow.ones(3, 2), minflow.ones(2)).tolist()
    [2.0, 2.0, 2.0]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"vmap: Only allowed 'error', 'different', or 'same' for "
                           f"randomness, got {randomness!r}")

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`: in_dims has "
                             f"{len(dims)} elements but there are {len(args)} inputs")
        mapped = [pair for arg, dim in zip(args, dims) for pair in _mapped(arg, dim)]
        if not mapped:
            raise ValueError(f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): at least one "
                             f"input must be batched: in_dims is all None, or no input is "
                             f"a Tensor")
        sizes = []
        for t, dim in mapped:
            if not -t.ndim <= dim < max(t.ndim, 1) or t.ndim == 0:
                raise ValueError(f"vmap: in_dim {dim} is out of range for a Tensor of "
                                 f"{t.ndim} dims")
            sizes.append(t.shape[dim])
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        results = [func(*[_select(arg, dim, i) for arg, dim in zip(args, dims)], **kwargs)
                   for i in range(sizes[0])]
        return _stack_outputs(results, out_dims)
    return wrapper


def _mapped(arg, dim):
    """(tensor, dim) for each tensor of ``arg`` that ``dim`` (nested like arg) maps."""
    if dim is None:
        return []
    if isinstance(dim, int):
        leaves = _leaves(arg)
        if not isinstance(arg, (Tensor, tuple, list, dict)):
            raise ValueError(f"vmap: Got in_dim={dim} for an input but the input is of type "
                             f"{type(arg).__name__}. We cannot vmap over non-Tensor "
                             f"arguments, please use None as the respective in_dim")
        return [(t, dim) for t in leaves]
    if isinstance(arg, (tuple, list)) and isinstance(dim, (tuple, list)) \
            and len(arg) == len(dim):
        return [pair for a, d in zip(arg, dim) for pair in _mapped(a, d)]
    if isinstance(arg, dict) and isinstance(dim, dict) and arg.keys() == dim.keys():
        return [pair for k in arg for pair in _mapped(arg[k], dim[k])]
    raise ValueError(f"vmap: in_dims {dim!r} is not compatible with the structure of the "
                     f"input ({type(arg).__name__})")


def _select(arg, dim, i):
    """Sample ``i`` of ``arg``: each tensor mapped by ``dim`` indexed along it."""
    if dim is None:
        return arg
    if isinstance(dim, int):
        return _tree_map(lambda t: t.select(dim, i), arg)
    if isinstance(dim, dict):
        return {k: _select(arg[k], dim[k], i) for k in arg}
    return type(arg)(_select(a, d, i) for a, d in zip(arg, dim))


def _stack_outputs(results, out_dims):
    first = results[0]
    if isinstance(first, Tensor):
        if not isinstance(out_dims, int) and out_dims is not None:
            out_dims = out_dims[0] if isinstance(out_dims, tuple) and len(out_dims) == 1 \
                else out_dims
        return _stack(results, out_dims)
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        if len(dims) != len(first):
            raise ValueError(f"vmap: out_dims {out_dims!r} is not compatible with the "
                             f"{len(first)} outputs of the function")
        return type(first)(_stack_outputs([r[k] for r in results], d)
                           for k, d in enumerate(dims))
    if isinstance(first, dict):
        dims = out_dims if isinstance(out_dims, dict) else dict.fromkeys(first, out_dims)
        return {k: _stack_outputs([r[k] for r in results], dims[k]) for k in first}
    raise ValueError(f"vmap: `func` must only return Tensors, got type {type(first)}")


def _stack(tensors, dim):
    if dim is None:         # an unbatched output: the same for every sample
        return tensors[0]
    return F.stack(tensors, dim)


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
