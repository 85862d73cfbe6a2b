"""Tensor.unfold (sliding windows as a view), sum_to_size and split_with_sizes.

unfold is a primitive view op: its kernel is a strided view of the input (kernels/generic/
shape_extra.py), its backward ``unfold_grad`` adds each window's gradient back where the
window came from (autograd/grads/shape_extra.py). The other two are composites.
"""
import operator

from ..core.dispatch import apply
from ..core.functional import public, tensor_method
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .registry import Attr, define_op

_UNFOLD_ATTRS = [Attr("dimension", "int"), Attr("size", "int", min=0), Attr("step", "int")]


def unfold_shape(shape, dimension, size, step):
    """The shape of ``unfold``: dim ``dimension`` counts windows, a last dim of ``size``."""
    if step <= 0:
        raise RuntimeError(f"unfold: step is {step} but must be > 0")
    length = shape[dimension] if shape else 1
    if size > length:
        raise RuntimeError(f"unfold: maximum size for tensor at dimension {dimension} is "
                           f"{length} but size is {size}")
    if not shape:
        return (size,)
    out = list(shape)
    out[dimension] = (length - size) // step + 1
    return tuple(out) + (size,)


def _unfold_infer(input, dimension, size, step):
    return unfold_shape(tuple(input._data.shape), dimension, size, step), input.dtype


def _unfold_grad_infer(grad_out, input_size, dimension, size, step):
    expected = unfold_shape(tuple(input_size), dimension, size, step)
    if tuple(grad_out._data.shape) != expected:
        raise RuntimeError(f"unfold_grad: expected grad_out of shape {list(expected)}, got "
                           f"{list(grad_out._data.shape)}")
    return tuple(input_size), grad_out.dtype


UNFOLD = define_op("unfold", ["input"], attrs=_UNFOLD_ATTRS, infer=_unfold_infer,
                   traits=("view", "no_side_effect"),
                   doc="Windows of ``size`` every ``step`` along ``dimension``, as a view.")
UNFOLD_GRAD = define_op("unfold_grad", ["grad_out"], attrs=[Attr("input_size", "ints")] +
                        _UNFOLD_ATTRS, infer=_unfold_grad_infer,
                        traits=("opaque", "no_side_effect"),
                        doc="Zeros of input_size plus each window's gradient added where the "
                            "window was read: unfold's backward.")


@tensor_method("unfold")
def unfold(self, dimension, size, step):
    """unfold(dimension, size, step) -> Tensor

    Every window of ``size`` elements along ``dimension``, ``step`` apart: that dim then
    counts the windows, and a new last dim of ``size`` holds each one. A view, as in torch
    (windows may overlap); the gradient of overlapping elements adds up.

    >>> minflow.arange(7.0).unfold(0, 3, 2).tolist()
    [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [4.0, 5.0, 6.0]]
    """
    for name, value in (("dimension", dimension), ("size", size), ("step", step)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"unfold: expected {name} to be an int, got "
                            f"{type(value).__name__}")
    dimension = wrap_dim(dimension, max(self.ndim, 1), "unfold")
    return apply(UNFOLD, (self,), {"dimension": dimension, "size": size, "step": step})


@tensor_method("sum_to_size")
def sum_to_size(self, *size):
    """sum_to_size(*size) -> Tensor

    Sum ``self`` down to ``size``, a shape it broadcasts from: leading dims and dims
    where ``size`` has 1 are summed (the reverse of ``expand``).

    >>> minflow.ones(2, 3).sum_to_size(1, 3).tolist()
    [[2.0, 2.0, 2.0]]
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(operator.index(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"sum_to_size: size {list(size)} is not expandable to size "
                           f"{list(shape)}")
    out = F.sum(self, tuple(range(lead))) if lead else self
    dims = tuple(d for d, (s, n) in enumerate(zip(size, shape[lead:])) if s == 1 and n != 1)
    return F.sum(out, dims, keepdim=True) if dims else out


@public(method=True)
def split_with_sizes(input, split_sizes, dim=0):
    """split_with_sizes(input, split_sizes, dim=0) -> tuple of views

    Pieces of the given sizes along ``dim``; the sizes must add up to that dim's size.

    >>> [p.tolist() for p in minflow.arange(5).split_with_sizes([2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"split_with_sizes: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if not isinstance(split_sizes, (tuple, list)):
        raise TypeError(f"split_with_sizes: expected split_sizes to be a list of ints, got "
                        f"{type(split_sizes).__name__}")
    return F.split(input, list(split_sizes), dim)


public(split_with_sizes, name="unsafe_split_with_sizes", method=True)    # torch's spelling
