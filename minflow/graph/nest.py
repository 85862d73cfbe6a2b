"""Nested tensor arguments: flatten tuples / lists / dicts of tensors to a list of tensors
and a structure, and build the structure back from a list (nn.Graph's inputs and outputs).

>>> a, b = minflow.ones(1), minflow.zeros(2)
>>> tensors, spec = minflow.graph.nest.flatten(((a, [b]), {"k": a}, None), "input")
>>> len(tensors), minflow.graph.nest.unflatten(spec, [b, a, b])[0][1][0] is a
(3, True)
>>> minflow.graph.nest.flatten((a, [1.0]), "input")
Traceback (most recent call last):
...
TypeError: input 1 at [0]: expected a Tensor (or a tuple, list or dict of them, or None), got float
"""
from ..core.tensor import Tensor

__all__ = ["flatten", "unflatten", "path_str"]

_TENSOR, _NONE = "tensor", "none"


def flatten(args, what):
    """(tensors, spec) of ``args`` (a tuple of arguments); ``what`` names them in errors
    ("input", "output")."""
    tensors = []
    spec = tuple(_flatten(x, tensors, what, i, ()) for i, x in enumerate(args))
    return tensors, spec


def _flatten(x, tensors, what, position, path):
    if isinstance(x, Tensor):
        tensors.append(x)
        return _TENSOR
    if x is None:
        return _NONE
    if isinstance(x, (tuple, list)):
        return type(x), tuple(_flatten(y, tensors, what, position, path + (i,))
                              for i, y in enumerate(x))
    if isinstance(x, dict):
        return dict, tuple(x), tuple(_flatten(y, tensors, what, position, path + (k,))
                                     for k, y in x.items())
    at = f" at {path_str(path)}" if path else ""
    raise TypeError(f"{what} {position}{at}: expected a Tensor (or a tuple, list or dict of "
                    f"them, or None), got {type(x).__name__}")


def unflatten(spec, tensors):
    """The structure ``spec`` (from ``flatten``) with its tensors taken from ``tensors``."""
    it = iter(tensors)
    return tuple(_build(s, it) for s in spec)


def _build(spec, it):
    if spec == _TENSOR:
        return next(it)
    if spec == _NONE:
        return None
    if spec[0] is dict:
        return {k: _build(s, it) for k, s in zip(spec[1], spec[2])}
    return spec[0](_build(s, it) for s in spec[1])


def leaf_paths(spec, what):
    """A name per tensor of ``spec``: ``input 0``, ``input 1 [0]['x']``..."""
    names = []
    for i, s in enumerate(spec):
        _paths(s, f"{what} {i}", (), names)
    return names


def _paths(spec, head, path, names):
    if spec == _TENSOR:
        names.append(head + (f" {path_str(path)}" if path else ""))
    elif spec != _NONE:
        keys = spec[1] if spec[0] is dict else range(len(spec[1]))
        for k, s in zip(keys, spec[-1]):
            _paths(s, head, path + (k,), names)


def path_str(path):
    """``[0]['x']`` for the path (0, "x")."""
    return "".join(f"[{k!r}]" for k in path)
