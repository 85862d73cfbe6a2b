"""torch.func.vmap, by running the function once per index of the mapped dimension and
stacking the results: the values and gradients of torch's vmap, not its speed (there are
no batching rules here). The checks of in_dims, out_dims and sizes are torch's.

A loop also runs what torch's vmap refuses (``.item()``, data-dependent control flow);
random ops follow ``randomness`` as in torch: an error, a different draw per sample, or
the same draw for every sample.
"""
import contextlib
import functools

from ..core import random as core_random
from ..core.namespace import F
from ..core.tensor import Tensor
from ._tree import tree_flatten, tree_unflatten

__all__ = ["vmap"]


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its inputs (an int for all, or a
    tuple with an int or None per positional argument, nested as the arguments are);
    the results are stacked along ``out_dims``. ``chunk_size`` changes nothing here.

    >>> x = minflow.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> minflow.func.vmap(minflow.dot, in_dims=(0, None))(x, minflow.tensor([1.0, -1.0]))
    tensor([-1., -1., -1.])
    >>> g = minflow.func.vmap(minflow.func.grad(lambda r: (r ** 2).sum()))(x)
    >>> g.tolist()
    [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"vmap: Only allowed values for randomness are 'error', "
                           f"'different', or 'same'. Got {randomness}")
    if not isinstance(out_dims, (int, tuple, list)) or isinstance(out_dims, bool):
        raise ValueError(f"vmap: `out_dims` must be an int or a python collection of ints "
                         f"representing where in the outputs the vmapped dimension should "
                         f"appear, got {out_dims!r}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, spec = tree_flatten(args)
        dims = _leaf_dims(in_dims, args, len(leaves))
        size = _batch_size(leaves, dims)
        results = []
        with _randomness(randomness) as before_sample:
            for i in range(size):
                before_sample()
                sample = [t.select(d, i) if d is not None else t for t, d in zip(leaves, dims)]
                results.append(func(*tree_unflatten(sample, spec), **kwargs))
        return _stack(results, out_dims)
    return wrapper


def _leaf_dims(in_dims, args, count):
    """The mapped dim of each flattened argument leaf (None: not mapped)."""
    if isinstance(in_dims, int) and not isinstance(in_dims, bool):
        dims = [in_dims] * count
    elif isinstance(in_dims, tuple):
        if len(in_dims) != len(args):
            raise ValueError(f"vmap: in_dims is not compatible with the structure of "
                             f"`inputs`: {len(in_dims)} in_dims for {len(args)} inputs")
        dims = []
        for dim, arg in zip(in_dims, args):
            arg_leaves = tree_flatten(arg)[0]
            if dim is None or isinstance(dim, int):
                dims += [dim] * len(arg_leaves)
            else:
                dim_leaves, dim_spec = tree_flatten(dim)
                if dim_spec != tree_flatten(arg)[1]:
                    raise ValueError(f"vmap: in_dims is not compatible with the structure of "
                                     f"`inputs`: {dim!r} for an input of structure "
                                     f"{type(arg).__name__}")
                dims += dim_leaves
    else:
        raise ValueError(f"vmap: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: "
                         f"{type(in_dims).__name__}")
    return dims


def _batch_size(leaves, dims):
    """The common size of the mapped dims, checked as torch checks it."""
    sizes = []
    for i, (t, d) in enumerate(zip(leaves, dims)):
        if d is None:
            continue
        if not isinstance(t, Tensor):
            raise ValueError(f"vmap: Got in_dim={d} for an input but the input is of type "
                             f"{type(t).__name__}. We cannot vmap over non-Tensor arguments, "
                             f"please use None as the respective in_dim")
        if not -t.ndim <= d < t.ndim:
            raise ValueError(f"vmap: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {t.ndim} so expected in_dim to "
                             f"satisfy -{t.ndim} <= in_dim < {t.ndim}.")
        dims[i] = d % t.ndim
        sizes.append(t.shape[d])
    if not sizes:
        raise ValueError("vmap: at least one input must be a Tensor mapped over (an in_dim "
                         "that is not None)")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _stack(results, out_dims):
    """The per-sample results stacked along their out dims, in the results' structure."""
    flat = [tree_flatten(r) for r in results]
    spec = flat[0][1]
    count = len(flat[0][0])
    if isinstance(out_dims, int):
        dims = [out_dims] * count
    else:
        dims, dims_spec = tree_flatten(tuple(out_dims) if isinstance(out_dims, list)
                                       else out_dims)
        if len(dims) != count:
            raise ValueError(f"vmap: out_dims is not compatible with the structure of "
                             f"`outputs`: {len(dims)} out_dims for {count} outputs")
    stacked = []
    for k, dim in enumerate(dims):
        column = [leaves[k] for leaves, _ in flat]
        if not all(isinstance(t, Tensor) for t in column):
            bad = next(type(t).__name__ for t in column if not isinstance(t, Tensor))
            raise ValueError(f"vmap: `f` must only return Tensors, got type {bad}")
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise NotImplementedError(f"vmap: out_dims entries must be ints, got {dim!r} "
                                      f"(unbatched outputs are not supported)")
        stacked.append(F.stack(column, dim))
    return tree_unflatten(stacked, spec)


@contextlib.contextmanager
def _randomness(mode):
    """For one vmap call: random ops raise ("error"), draw on ("different"), or draw the
    same for every sample ("same": the default generators rewound before each). Yields
    the function to call before each sample."""
    previous = core_random.forbid_random(mode == "error")
    states = core_random.generator_states() if mode == "same" else None
    try:
        yield lambda: states is not None and core_random.restore_generator_states(states)
    finally:
        core_random.forbid_random(previous)
