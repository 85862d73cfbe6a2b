"""A small pytree: nested tuples, lists and dicts of leaves, flattened to a list of leaves
and a spec to rebuild the same structure from new leaves (as torch.utils._pytree, for the
containers torch.func's arguments use)."""

__all__ = ["tree_flatten", "tree_unflatten"]


def tree_flatten(tree):
    """(leaves in order, spec). Dicts keep their key order, namedtuples their type.

    >>> from minflow.func._tree import tree_flatten, tree_unflatten
    >>> leaves, spec = tree_flatten({"w": 1, "b": (2, [3])})
    >>> leaves, tree_unflatten([4, 5, 6], spec)
    ([1, 2, 3], {'w': 4, 'b': (5, [6])})
    """
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, dict):
        return (type(tree), list(tree), [_flatten(v, leaves) for v in tree.values()])
    if isinstance(tree, (list, tuple)):
        return (type(tree), None, [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return None


def tree_unflatten(leaves, spec):
    """The structure ``spec`` (from tree_flatten) with ``leaves`` in place of its leaves."""
    return _unflatten(iter(leaves), spec)


def _unflatten(leaves, spec):
    if spec is None:
        return next(leaves)
    kind, keys, children = spec
    values = [_unflatten(leaves, child) for child in children]
    if keys is not None:
        return kind(zip(keys, values))
    if kind is not tuple and issubclass(kind, tuple):      # a namedtuple
        return kind(*values)
    return kind(values)
