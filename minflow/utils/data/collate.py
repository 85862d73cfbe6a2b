"""``default_collate`` (a list of samples -> a batch) and ``default_convert``, as in torch."""
import collections.abc
import copy

import numpy as np

from ...core.tensor import Tensor
from ...core.namespace import F
from ...core import dtype as dtypes

__all__ = ["default_collate", "default_convert"]

_NOT_NUMERIC = "SaUO"       # numpy dtype kinds with no tensor: bytes, str, object
_UNSUPPORTED = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                "strings, dicts or lists; found {}")


def default_collate(batch):
    """Stack a list of samples into a batch, recursing into tuples, lists and dicts.

    Tensors and numpy arrays are stacked along a new first dimension (every sample must
    have the same shape); Python ints become an int64 tensor, floats a float64 tensor,
    bools a bool tensor; strings stay as they came (a list of them, or a tuple where they
    were fields of the samples). A tuple of fields becomes a list of batched fields, a dict
    a dict, a namedtuple a namedtuple.

    >>> from minflow.utils.data import default_collate
    >>> default_collate([(1, 0.5, "a"), (2, 1.5, "b")])
    [tensor([1, 2]), tensor([0.5000, 1.5000], dtype=minflow.float64), ('a', 'b')]
    >>> default_collate([{"x": np.zeros(2)}, {"x": np.ones(2)}])["x"].shape
    minflow.Size([2, 2])
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_same_shapes([t.shape for t in batch], "tensors")
        return F.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in _NOT_NUMERIC:
            raise TypeError(_UNSUPPORTED.format(f"numpy arrays of dtype {elem.dtype}"))
        _check_same_shapes([a.shape for a in batch], "numpy arrays")
        return F.as_tensor(np.stack(batch))
    if isinstance(elem, (np.bool_, np.number)):
        return F.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return F.tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return F.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _collate_mapping(elem, batch)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):        # a namedtuple
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequence(elem, batch)
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def _check_same_shapes(shapes, what):
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise RuntimeError(f"default_collate: cannot stack {what} of unequal shapes: "
                               f"element 0 has shape {list(shapes[0])}, element {i} has "
                               f"shape {list(shape)}; pad them to one shape or pass a "
                               f"collate_fn")


def _collate_mapping(elem, batch):
    fields = {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, collections.abc.MutableMapping):
        out = copy.copy(elem)                # keeps the mapping's type and extra state
        out.update(fields)
        return out
    try:
        return type(elem)(fields)
    except TypeError:                        # a mapping type that cannot be built so
        return fields


def _collate_sequence(elem, batch):
    size = len(elem)
    for i, sample in enumerate(batch):
        if len(sample) != size:
            raise RuntimeError(f"default_collate: each element in list of batch should be "
                               f"of equal size; element 0 has {size} fields, element {i} "
                               f"has {len(sample)}")
    fields = [default_collate(field) for field in zip(*batch)]     # tuples, as torch's
    if isinstance(elem, tuple):
        return fields                        # torch returns a list for tuples too
    if isinstance(elem, collections.abc.MutableSequence):
        out = copy.copy(elem)
        out[:] = fields
        return out
    try:
        return type(elem)(fields)
    except TypeError:
        return fields


def default_convert(data):
    """Turn numpy arrays (and numpy scalars) in ``data`` into tensors, recursively.

    The DataLoader's default for ``batch_size=None``, where samples are not batched.

    >>> minflow.utils.data.default_convert({"x": np.arange(2), "name": "a"})
    {'x': tensor([0, 1]), 'name': 'a'}
    """
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in _NOT_NUMERIC else F.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return F.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        if isinstance(data, collections.abc.MutableMapping):
            out = copy.copy(data)
            out.update(converted)
            return out
        return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data
