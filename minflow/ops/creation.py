"""Creation ops (full, arange, linspace, eye, random draws) and the factory functions."""
import math
import warnings

import numpy as np

from ..autograd.node import GradFunction, _edge, custom_node
from ..core import dtype as dtypes
from ..core.device import Device, MetaArray, default_device, array_module, check_available, cuda_context
from ..core.dispatch import apply
from ..core.functional import public, tensor_method
from ..core.grad_mode import no_grad, state as grad_state
from ..core.memory_format import layout_like, preserve_format
from ..core.namespace import F
from ..core.tensor import Tensor
from ..core.tensor_options import tensor_options
from .infer import broadcast_shapes, check_shape
from .registry import Attr, define_op, get_op

CREATE = ("creation", "no_grad")


def _shape_attr(size, where, size_kw=None):
    """``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, 3])`` and ``zeros(size=(2, 3))`` all
    give (2, 3)."""
    if size_kw is not None:
        if size:
            raise TypeError(f"{where}: got size both as arguments and as size=")
        size = (size_kw,)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{where}: expected size to be ints, got {s!r}")
        if s < 0:
            raise RuntimeError(f"{where}: negative dimension {s} in size {list(size)}")
        shape.append(s)
    return tuple(shape)


def _device(device):
    return default_device(device)


def _shape_dtype(shape, dtype, **_):
    return shape, dtype


define_op("full", [], attrs=[Attr("shape", "ints"), Attr("fill_value", "scalar"),
                             Attr("dtype", "dtype"), Attr("device", "device")],
          infer=_shape_dtype, traits=CREATE, dtype_from="dtype",
          doc="A tensor of the given shape filled with fill_value.")
define_op("empty", [], attrs=[Attr("shape", "ints"), Attr("dtype", "dtype"),
                              Attr("device", "device")],
          infer=_shape_dtype, traits=CREATE, dtype_from="dtype",
          doc="An uninitialised tensor of the given shape.")


def _arange_infer(start, end, step, dtype, device):
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not dtype.is_floating_point and int(step) == 0:      # torch: a ValueError here
        raise ValueError(f"step must be nonzero (step {step} is 0 as {dtype.name})")
    if not all(math.isfinite(x) for x in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError(f"upper bound and larger bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step})")
    return (arange_length(start, end, step, dtype),), dtype


def arange_length(start, end, step, dtype):
    """torch's length: ceil((end - start) / step) in doubles, or for int64 in integers on
    the truncated bounds (C++ division)."""
    if dtype.name != "int64":
        return max(0, math.ceil((end - start) / step))
    start, end, step = int(start), int(end), int(step)
    span = end - start + step - (1 if step > 0 else -1)
    return abs(span) // abs(step) if (span > 0) == (step > 0) else 0


define_op("arange", [], attrs=[Attr("start", "float"), Attr("end", "float"), Attr("step", "float"),
                               Attr("dtype", "dtype"), Attr("device", "device")],
          infer=_arange_infer, traits=CREATE, dtype_from="dtype",
          doc="Values from start (inclusive) to end (exclusive) spaced by step.")
define_op("linspace", [], attrs=[Attr("start", "float"), Attr("end", "float"),
                                 Attr("steps", "int", min=0), Attr("dtype", "dtype"),
                                 Attr("device", "device")],
          infer=lambda start, end, steps, dtype, device: ((steps,), dtype),
          traits=CREATE, dtype_from="dtype", doc="steps values evenly spaced from start to end.")
define_op("eye", [], attrs=[Attr("n", "int", min=0), Attr("m", "int", min=0),
                            Attr("dtype", "dtype"), Attr("device", "device")],
          infer=lambda n, m, dtype, device: ((n, m), dtype), traits=CREATE, dtype_from="dtype",
          doc="An n x m matrix with ones on the diagonal.")
_RANDOM_ATTRS = [Attr("shape", "ints"), Attr("dtype", "dtype"), Attr("device", "device"),
                 Attr("generator", "any", None, optional=True)]
define_op("uniform", [], attrs=[Attr("low", "float", 0.0), Attr("high", "float", 1.0)]
          + _RANDOM_ATTRS, infer=_shape_dtype, traits=CREATE + ("random",), dtype_from="dtype",
          doc="Samples from U[low, high).")
define_op("normal", [], attrs=[Attr("mean", "float", 0.0), Attr("std", "float", 1.0, min=0.0)]
          + _RANDOM_ATTRS, infer=_shape_dtype, traits=CREATE + ("random",), dtype_from="dtype",
          doc="Samples from N(mean, std^2).")
def _randint_infer(low, high, shape, dtype, **_):
    if low >= high:
        raise RuntimeError(f"random_ from {low} to {high} is empty (low >= high)")
    if dtype.category == 1:
        info = np.iinfo(dtype.np)
        for name, value in (("from", low), ("to - 1", high - 1)):
            if not info.min <= value <= info.max:
                raise RuntimeError(f"{name} is out of bounds for {dtype.name}: expected a "
                                   f"value in [{info.min}, {info.max}], got {value}")
    return shape, dtype


define_op("randint", [], attrs=[Attr("low", "int"), Attr("high", "int")] + _RANDOM_ATTRS,
          infer=_randint_infer, traits=CREATE + ("random",), dtype_from="dtype",
          doc="Integers drawn uniformly from [low, high).")


def _create(op_name, requires_grad, **attrs):
    return _create_done(apply(get_op(op_name), (), attrs), requires_grad)


def _create_done(out, requires_grad):
    if requires_grad:
        out.requires_grad_()
    return out


def _float_dtype(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)


def complex_draw(op_name, shape, dtype, device, requires_grad, **attrs):
    """Complex samples whose real and imaginary parts are drawn alike (``op_name`` with
    ``attrs``), side by side as view_as_complex reads them; as torch's."""
    parts = _create(op_name, False, shape=shape + (2,), dtype=dtypes.to_real(
        dtypes.as_dtype(dtype)), device=_device(device), **attrs)
    return _create_done(F.view_as_complex(parts), requires_grad)


def _random_float_dtype(dtype, where):
    dtype = _float_dtype(dtype)
    if not dtype.is_floating_point:
        raise dtypes.DTypeError(f"{where}: expected a floating dtype, got {dtype.name} (use "
                                f"randint for integers)")
    return dtype


@public
@tensor_options
def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False):
    """zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    >>> minflow.zeros(2, 3).shape
    minflow.Size([2, 3])
    """
    return _create("full", requires_grad, shape=_shape_attr(shape, "zeros", size), fill_value=0,
                   dtype=_float_dtype(dtype), device=_device(device))


@public
@tensor_options
def ones(*shape, size=None, dtype=None, device=None, requires_grad=False):
    """ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor

    >>> minflow.ones(2).tolist()
    [1.0, 1.0]
    """
    return _create("full", requires_grad, shape=_shape_attr(shape, "ones", size), fill_value=1,
                   dtype=_float_dtype(dtype), device=_device(device))


@public
@tensor_options
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor

    The dtype defaults to that of ``fill_value`` (bool, int64 or the default float).

    >>> minflow.full((2,), 7).tolist()
    [7, 7]
    """
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = dtypes.scalar_dtype(fill_value) if dtype is None else dtypes.as_dtype(dtype)
    fill_value = dtypes.checked_scalar(fill_value, dtype, "full")
    return _create("full", requires_grad, shape=_shape_attr((size,), "full"),
                   fill_value=fill_value, dtype=dtype, device=_device(device))


@public
@tensor_options
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """scalar_tensor(s, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A 0-D tensor holding the number ``s``, of the default float dtype unless ``dtype``.

    >>> minflow.scalar_tensor(3), minflow.scalar_tensor(3, dtype=minflow.int64)
    (tensor(3.), tensor(3))
    """
    if isinstance(s, Tensor):
        s = s.item()
    return full((), s, dtype=_float_dtype(dtype), device=device, requires_grad=requires_grad)


@public
@tensor_options
def empty(*shape, size=None, dtype=None, device=None, requires_grad=False):
    """empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor (uninitialised)

    >>> minflow.empty(3).shape
    minflow.Size([3])
    """
    return _create("empty", requires_grad, shape=_shape_attr(shape, "empty", size),
                   dtype=_float_dtype(dtype), device=_device(device))


@public
@tensor_options
def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """arange(start=0, end, step=1, *, dtype=None, device=None) -> Tensor

    int64 when start, end and step are all ints, else the default float.

    >>> minflow.arange(4).tolist()
    [0, 1, 2, 3]
    """
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    values = [int(v) if isinstance(v, bool) else v for v in values]     # torch takes bools
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, int) for v in values) else \
            dtypes.get_default_dtype()
    return _create("arange", requires_grad, start=values[0], end=values[1], step=values[2],
                   dtype=dtypes.as_dtype(dtype), device=_device(device))


@public
@tensor_options
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """linspace(start, end, steps, *, dtype=None, device=None) -> Tensor

    >>> minflow.linspace(0, 1, 3).tolist()
    [0.0, 0.5, 1.0]
    """
    start, end, steps = (v.item() if isinstance(v, Tensor) else v for v in (start, end, steps))
    return _create("linspace", requires_grad, start=start, end=end, steps=steps,
                   dtype=_float_dtype(dtype), device=_device(device))


@public
@tensor_options
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """eye(n, m=None, *, dtype=None, device=None) -> Tensor

    >>> minflow.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _create("eye", requires_grad, n=n, m=n if m is None else m,
                   dtype=_float_dtype(dtype), device=_device(device))


@public
@tensor_options
def rand(*shape, size=None, generator=None, dtype=None, device=None,
         requires_grad=False):
    """rand(*size, generator=None, dtype=None, device=None) -> Tensor, samples of U[0, 1)

    A complex dtype draws the real and imaginary parts each from U[0, 1), as torch.

    >>> minflow.rand(2, 2).shape
    minflow.Size([2, 2])
    """
    if dtype is not None and dtypes.as_dtype(dtype).is_complex:
        return complex_draw("uniform", _shape_attr(shape, "rand", size), dtype, device,
                             requires_grad, generator=generator)
    return _create("uniform", requires_grad, shape=_shape_attr(shape, "rand", size),
                   dtype=_random_float_dtype(dtype, "rand"), device=_device(device),
                   generator=generator)


@public
@tensor_options
def randn(*shape, size=None, generator=None, dtype=None, device=None,
          requires_grad=False):
    """randn(*size, generator=None, dtype=None, device=None) -> Tensor, samples of N(0, 1)

    A complex dtype draws the real and imaginary parts each of variance 1/2 (so E|z|^2 = 1),
    as torch.

    >>> minflow.randn(3).shape, minflow.randn(2, dtype=minflow.cfloat).dtype
    (minflow.Size([3]), minflow.complex64)
    """
    if dtype is not None and dtypes.as_dtype(dtype).is_complex:
        return complex_draw("normal", _shape_attr(shape, "randn", size), dtype, device,
                             requires_grad, std=0.5 ** 0.5, generator=generator)
    return _create("normal", requires_grad, shape=_shape_attr(shape, "randn", size),
                   dtype=_random_float_dtype(dtype, "randn"), device=_device(device),
                   generator=generator)


@public
@tensor_options
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """randint(low=0, high, size, *, generator=None, dtype=int64, device=None) -> Tensor

    >>> minflow.randint(0, 10, (3,)).dtype
    minflow.int64
    """
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint: expected size, e.g. randint(0, 10, (3,))")
        low, high, size = 0, low, high
    return _create("randint", requires_grad, low=low, high=high,
                   shape=_shape_attr((size,), "randint"),
                   dtype=dtypes.int64 if dtype is None else dtypes.as_dtype(dtype),
                   device=_device(device), generator=generator)


@public
@tensor_options
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """normal(mean, std, size=None, *, generator=None) -> Tensor, samples of N(mean, std^2)

    ``mean`` and ``std`` are numbers (then ``size`` is needed) or tensors, broadcast
    together. As in torch, the samples require grad where a tensor mean or std does, and
    the grads they send back are zero: the sampling is not reparameterized.

    >>> minflow.normal(0.0, 2.0, (4,)).shape
    minflow.Size([4])
    >>> minflow.normal(minflow.zeros(2, 1), minflow.ones(3)).shape
    minflow.Size([2, 3])
    """
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        return _normal_tensors(mean, std, generator)
    if size is None:
        raise TypeError("normal: expected size when mean and std are numbers, e.g. "
                        "normal(0.0, 1.0, (3,))")
    if dtype is not None and dtypes.as_dtype(dtype).is_complex:     # parts of N(mean, std^2/2)
        return complex_draw("normal", _shape_attr((size,), "normal"), dtype, device,
                             requires_grad, mean=mean, std=std * 0.5 ** 0.5,
                             generator=generator)
    return _create("normal", requires_grad, mean=mean, std=std,
                   shape=_shape_attr((size,), "normal"),
                   dtype=_random_float_dtype(dtype, "normal"), device=_device(device),
                   generator=generator)


def _normal_tensors(mean, std, generator):
    tensors = [t.detach() for t in (mean, std) if isinstance(t, Tensor)]
    dtype = dtypes.result_type(*tensors)
    if not dtype.is_floating_point:
        raise dtypes.DTypeError(f"normal: expected floating mean and std, got {dtype.name}")
    shapes = [tuple(t.shape) for t in tensors]
    shape = broadcast_shapes(*shapes)
    if isinstance(std, Tensor) and std.numel() and F.amin(std.detach()).item() < 0:
        raise RuntimeError("normal: expected all elements of std >= 0.0")
    noise = randn(shape, generator=generator, dtype=dtype, device=tensors[0].device)
    out = F.add(F.mul(noise, std.detach() if isinstance(std, Tensor) else std),
                mean.detach() if isinstance(mean, Tensor) else mean)
    inputs = [t for t in (mean, std) if isinstance(t, Tensor) and t._requires_grad]
    if inputs and grad_state.grad_enabled:
        _zero_grad_node(out, inputs, 1 * isinstance(mean, Tensor) + 2 * isinstance(std, Tensor))
    return out


class _NormalGrad(GradFunction):
    """torch's NormalBackward1/2/3 (tensor mean, std, or both): zero grads."""

    def node_name(self, ctx):
        return f"NormalBackward{ctx.overload}"

    def apply(self, ctx, grad_out):
        return tuple(F.zeros(shape, dtype=dtype, device=device)
                     for shape, dtype, device in ctx.input_metas)


def _zero_grad_node(out, inputs, overload):
    node = custom_node(_NormalGrad(), "normal", [_edge(t) for t in inputs],
                       ((out._data.shape, out.dtype, out.device),))
    node.ctx.overload = overload
    node.ctx.input_metas = [(t._data.shape, t.dtype, t.device) for t in inputs]
    out._grad_fn, out._output_nr, out._requires_grad = node, 0, True


def _like(fn):
    @tensor_options(name=f"{fn.__name__}_like")
    def like(input, *, dtype=None, device=None, requires_grad=False,
             memory_format=preserve_format):
        out = fn(input._data.shape, dtype=input.dtype if dtype is None else dtype,
                 device=input.device if device is None else device,
                 requires_grad=requires_grad)
        return _laid_out(out, input, memory_format, name)
    name = f"{fn.__name__}_like"
    like.__name__ = like.__qualname__ = name
    like.__doc__ = (f"{name}(input, *, dtype=None, device=None, requires_grad=False, "
                    f"memory_format=minflow.preserve_format) -> Tensor shaped like input, as "
                    f"``{fn.__name__}``.\n\n"
                    f">>> minflow.{name}(minflow.ones(2)).shape\nminflow.Size([2])")
    return public(like)


def _laid_out(out, input, memory_format, where):
    """A new tensor like ``input`` in ``memory_format`` (see layout_like), still a leaf."""
    if memory_format is preserve_format and input.ndim < 4:
        return out
    requires_grad = out.requires_grad
    with no_grad():
        out = layout_like(out, input, memory_format, where)
    return out.requires_grad_(requires_grad)


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
rand_like, randn_like = _like(rand), _like(randn)


@public
@tensor_options
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=preserve_format):
    """full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
    memory_format=minflow.preserve_format) -> Tensor

    >>> minflow.full_like(minflow.ones(2), 5).tolist()
    [5.0, 5.0]
    """
    out = full(input.shape, fill_value, dtype=input.dtype if dtype is None else dtype,
               device=input.device if device is None else device, requires_grad=requires_grad)
    return _laid_out(out, input, memory_format, "full_like")


@public
@tensor_options
def randint_like(input, low=0, high=None, *, dtype=None, device=None):
    """randint_like(input, low=0, high) -> Tensor of random ints shaped like input.

    >>> _ = minflow.manual_seed(0)
    >>> minflow.randint_like(minflow.zeros(2, 3), 10).tolist()
    [[8.0, 6.0, 5.0], [2.0, 3.0, 0.0]]
    """
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=input.dtype if dtype is None else dtype,
                   device=input.device if device is None else device)


@tensor_method("new_zeros")
@tensor_options
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """``zeros(*size)`` with ``self``'s dtype and device unless given.

    >>> minflow.tensor([1], dtype=minflow.int32).new_zeros(2, 2)
    tensor([[0, 0],
            [0, 0]], dtype=minflow.int32)
    """
    return zeros(*size, **_new_kwargs(self, dtype, device, requires_grad))


@tensor_method("new_ones")
@tensor_options
def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    """``ones(*size)`` with ``self``'s dtype and device unless given.

    >>> minflow.zeros(1, dtype=minflow.float64).new_ones(3)
    tensor([1., 1., 1.], dtype=minflow.float64)
    """
    return ones(*size, **_new_kwargs(self, dtype, device, requires_grad))


@tensor_method("new_empty")
@tensor_options
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """``empty(*size)`` with ``self``'s dtype and device unless given.

    >>> minflow.zeros(1, dtype=minflow.float16).new_empty(2, 3).dtype
    minflow.float16
    """
    return empty(*size, **_new_kwargs(self, dtype, device, requires_grad))


@public
@tensor_options
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """empty_strided(size, stride, *, dtype=None, device=None) -> Tensor (uninitialised)

    A tensor of ``size`` laid out with ``stride`` (in elements) over memory of its own.

    >>> minflow.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    size = check_shape("empty_strided", "size", size)
    stride = check_shape("empty_strided", "stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: dimensionality of sizes ({len(size)}) must match "
                           f"dimensionality of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided: expected non-negative strides, got {list(stride)}")
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = empty(extent, dtype=dtype, device=device)
    xp = array_module(base.device.type)
    itemsize = base.dtype.itemsize
    array = xp.lib.stride_tricks.as_strided(base._data, size,
                                            tuple(s * itemsize for s in stride))
    out = Tensor._make(array, base.dtype, base.device)
    return out.requires_grad_() if requires_grad else out


@tensor_method("new_empty_strided")
@tensor_options
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """``empty_strided(size, stride)`` with ``self``'s dtype and device unless given.

    >>> minflow.ones(1, dtype=minflow.float64).new_empty_strided((2, 2), (1, 2)).dtype
    minflow.float64
    """
    return empty_strided(size, stride, **_new_kwargs(self, dtype, device, requires_grad))


@tensor_method("new_full")
@tensor_options
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``full(size, fill_value)`` with ``self``'s dtype and device unless given.

    >>> minflow.tensor([1, 2]).new_full((2,), 7)
    tensor([7, 7])
    """
    return full(size, fill_value, **_new_kwargs(self, dtype, device, requires_grad))


@tensor_method("new_tensor")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``tensor(data)`` (a copy) with ``self``'s dtype and device unless given.

    >>> minflow.zeros(1, dtype=minflow.float64).new_tensor([1, 2]).dtype
    minflow.float64
    """
    return tensor(data, **_new_kwargs(self, dtype, device, requires_grad))


@tensor_method("new")
def new(self, *args, device=None):
    """The legacy constructor with ``self``'s dtype and device: ``new()`` is empty,
    ``new(*sizes)`` / ``new(Size)`` uninitialised (here zero-filled), ``new(data)`` a copy
    of a sequence, ``new(tensor)`` that tensor, detached (sharing its data).

    >>> x = minflow.zeros(1, dtype=minflow.float64)
    >>> x.new(2, 3).shape, x.new([1, 2])
    (minflow.Size([2, 3]), tensor([1., 2.], dtype=minflow.float64))
    """
    from ..core.legacy import legacy_new
    return legacy_new("new", self.dtype, args, self.device if device is None else device)


def _new_kwargs(self, dtype, device, requires_grad):
    return {"dtype": self.dtype if dtype is None else dtype,
            "device": self.device if device is None else device,
            "requires_grad": requires_grad}


# -- from data -----------------------------------------------------------------------------
def _array_from_data(data, dtype, where):
    """``data`` as a numpy array and the dtype torch would infer for it (or ``dtype``)."""
    if isinstance(data, Tensor):
        arr = data.detach().cpu().numpy()
    elif isinstance(data, np.ndarray):
        arr = data
    else:
        try:
            arr = np.asarray(_leaves_to_numpy(data))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{where}: " + (_ragged(data) or f"could not build a tensor from "
                                             f"{type(data).__name__}: {err}")) from None
        if arr.dtype == object or arr.dtype.kind in "USV":
            # torch's classes: a string as the data, strings in it, anything else (None)
            error = (TypeError if isinstance(data, (str, bytes)) else
                     ValueError if arr.dtype.kind in "USV" else RuntimeError)
            raise error(f"{where}: could not build a tensor from {type(data).__name__} "
                        f"(ragged nested sequence or unsupported elements)")
        if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
            raise OverflowError(f"{where}: Python int too large for int64")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if (arr.dtype.kind == "c" and not dtype.is_complex
                and not isinstance(data, (Tensor, np.ndarray))):
            raise TypeError(f"{where}: must be real number, not complex (data holds complex "
                            f"numbers, dtype is {dtype.name})")
        if not isinstance(data, (Tensor, np.ndarray)) and arr.dtype.kind in "iu" and arr.size:
            for value in (arr.min(), arr.max()):    # as torch, which converts each number
                dtypes.checked_scalar(value, dtype, where)
        return arr, dtype
    if isinstance(data, (Tensor, np.ndarray)):
        return arr, _numpy_dtype(arr.dtype, where)
    return arr, _inferred_dtype(data, where)


def _ragged(data, dim=0):
    """torch's message for nested lists of unequal lengths (token lists of a batch, say),
    "expected sequence of length 2 at dim 1 (got 1)", with a hint; None if none differ."""
    rows = [x for x in data if isinstance(x, (list, tuple))] if isinstance(
        data, (list, tuple)) else []
    if not rows:
        return None
    for row in rows:
        if len(row) != len(rows[0]):
            return (f"expected sequence of length {len(rows[0])} at dim {dim + 1} (got "
                    f"{len(row)}); pad the sequences to one length first (nn.utils.rnn."
                    f"pad_sequence)")
    for row in rows:
        message = _ragged(row, dim + 1)
        if message:
            return message
    return None


def _leaves_to_numpy(data):
    """Nested lists with tensors among the leaves: each tensor as a numpy scalar. As in
    torch, a tensor in a list is one number (of any shape, one element)."""
    if isinstance(data, Tensor):
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data.detach().cpu().numpy().reshape(())
    if isinstance(data, (list, tuple)) and any(isinstance(x, (Tensor, list, tuple))
                                               for x in data):
        return [_leaves_to_numpy(x) for x in data]
    return data


def _inferred_dtype(data, where):
    """torch's rule for Python data: promote over the leaves, where a Python float is the
    default dtype, an int int64, a bool bool, and numpy scalars / tensors keep theirs."""
    if isinstance(data, (list, tuple, range)):
        kinds = set(map(type, data))        # NOTE: a C-speed pass; most data is plain numbers
        if kinds <= _PY_SCALARS:
            return (dtypes.get_default_dtype() if float in kinds or not kinds else
                    dtypes.int64 if int in kinds else dtypes.bool)
        found = None
        for x in data:
            d = _inferred_dtype(x, where)
            found = d if found is None else dtypes.promote_types(found, d)
        return found
    if isinstance(data, (Tensor, np.ndarray, np.generic)) and not isinstance(data, np.bool_):
        return _numpy_dtype(np.dtype(data.dtype.np if isinstance(data, Tensor) else data.dtype),
                            where)
    return dtypes.scalar_dtype(data)


_PY_SCALARS = {float, int, bool}


def _numpy_dtype(np_dtype, where):
    try:
        return dtypes.from_numpy_dtype(np_dtype)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None


def _place(arr, dtype, device):
    if device.type == "meta":
        return MetaArray(arr.shape, dtype.np)
    if device.type == "cuda":
        check_available(device)
        with cuda_context(device):
            return array_module("cuda").asarray(arr, dtype=dtype.np)
    return arr.astype(dtype.np, copy=False)


@public
@tensor_options(with_layout=False)
def tensor(data, dtype=None, device=None, requires_grad=False):
    """tensor(data, dtype=None, device=None, requires_grad=False) -> Tensor (copies data)

    Python floats become the default float, ints int64, bools bool; numpy arrays keep
    their dtype.

    >>> minflow.tensor([[1, 2], [3, 4]]).dtype
    minflow.int64
    """
    arr, dt = _array_from_data(data, dtype, "tensor")
    device = _device(device)
    data_out = _place(np.array(arr, dtype=dt.np, copy=True), dt, device)
    out = Tensor._make(data_out, dt, device)
    if requires_grad:
        out.requires_grad_()
    return out


@public
def as_tensor(data, dtype=None, device=None):
    """as_tensor(data, dtype=None, device=None) -> Tensor, sharing memory when it can.

    >>> minflow.as_tensor([1.0]).dtype
    minflow.float32
    """
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if device or dtype else data
    arr, dt = _array_from_data(data, dtype, "as_tensor")
    device = _device(device)
    return Tensor._make(_place(arr, dt, device), dt, device)


@public
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor

    ``obj`` (a Tensor, numpy array, scalar or nested sequence) as a tensor, sharing its
    memory where dtype and device allow, as torch.asarray. ``copy=True`` always copies,
    ``copy=False`` refuses to. A tensor keeps its autograd history (and requires_grad) unless
    ``requires_grad=False`` asks for a detached alias.

    >>> a = np.zeros(2, dtype=np.float32); t = minflow.asarray(a); a[0] = 5
    >>> t.tolist(), minflow.asarray([1, 2]).dtype
    ([5.0, 0.0], minflow.int64)
    """
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(): argument 'copy' must be bool or None, got "
                        f"{type(copy).__name__}")
    if isinstance(obj, Tensor):
        result = _asarray_tensor(obj, dtype, device, copy)
    else:
        result = _asarray_data(obj, dtype, device, copy)
    if requires_grad is not None and result.requires_grad != requires_grad:
        result = result.detach() if not requires_grad else result.requires_grad_()
    return result


def _asarray_tensor(t, dtype, device, copy):
    dtype = dtype or t.dtype
    device = t.device if device is None else Device(device)
    if dtype is t.dtype and device is t.device:
        return F.clone(t) if copy else t
    if copy is False:
        raise ValueError(f"asarray(): can't alias a tensor of dtype {t.dtype.name} on "
                         f"{t.device} as dtype {dtype.name} on {device}")
    return t.to(device=device, dtype=dtype)


def _asarray_data(obj, dtype, device, copy):
    if copy is False and not isinstance(obj, np.ndarray):
        raise ValueError(f"asarray(): can't alias a {type(obj).__name__} into a tensor "
                         f"(copy=False)")
    if not isinstance(obj, np.ndarray) or copy:
        return tensor(obj, dtype=dtype, device=device)
    result = from_numpy(obj)
    device = _device(device)
    if dtype not in (None, result.dtype) or device is not result.device:
        if copy is False:
            raise ValueError(f"asarray(): can't alias a numpy array of dtype "
                             f"{result.dtype.name} as dtype {dtype.name} on {device}")
        result = result.to(device=device, dtype=dtype or result.dtype)
    return result


@public
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor

    A 1-D tensor over an object exposing the buffer protocol (bytes, bytearray, memoryview,
    array.array...), sharing its memory: ``count`` elements of ``dtype`` (-1: all) from byte
    ``offset``. A read-only buffer gives a read-only tensor, with torch's warning.

    >>> import array
    >>> minflow.frombuffer(array.array("f", [1.0, 2.0, 3.0]), dtype=minflow.float32, offset=4)
    tensor([2., 3.])
    """
    dtype = dtypes.as_dtype(dtype)
    view = memoryview(buffer)
    if view.nbytes == 0 or offset < 0 or offset >= view.nbytes:
        raise ValueError(f"frombuffer: both buffer length ({view.nbytes}) and offset ({offset}) "
                         f"must be non-negative, with offset less than the length")
    if count == 0 or count < -1:
        raise ValueError(f"frombuffer: count must be -1 or positive, got {count}")
    if view.readonly:
        warnings.warn("frombuffer: the given buffer is not writable; the tensor shares its "
                      "memory and cannot be written to", UserWarning, stacklevel=2)
    try:
        array = np.frombuffer(view, dtype=dtype.np, count=count, offset=offset)
    except ValueError as err:
        raise ValueError(f"frombuffer: {err}") from None
    out = Tensor._make(array, dtype, Device("cpu"))
    return out.requires_grad_() if requires_grad else out


@public
def from_dlpack(ext_tensor):
    """from_dlpack(ext_tensor) -> Tensor sharing memory with an array of another library
    (a torch tensor, a numpy or cupy array: anything with ``__dlpack__``), on its device.

    >>> minflow.from_dlpack(np.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
    """
    if not hasattr(ext_tensor, "__dlpack__"):       # torch's class: RuntimeError
        raise RuntimeError(f"from_dlpack: expected an object with __dlpack__ (a tensor or "
                           f"array of another library), got {type(ext_tensor).__name__}")
    device_type, index = ext_tensor.__dlpack_device__()
    if device_type == 1:                        # kDLCPU
        array, device = np.from_dlpack(ext_tensor), Device("cpu")
    elif device_type == 2:                      # kDLCUDA
        device = Device("cuda", int(index))
        check_available(device)
        array = array_module("cuda").from_dlpack(ext_tensor)
    else:
        raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type} (minflow "
                           f"has cpu and cuda)")
    return Tensor._make(array, _numpy_dtype(array.dtype, "from_dlpack"), device)


@public
def from_numpy(ndarray):
    """from_numpy(ndarray) -> Tensor sharing memory with the array.

    >>> a = np.zeros(2, dtype=np.float32); t = minflow.from_numpy(a); a[0] = 5
    >>> t.tolist()
    [5.0, 0.0]
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray, got {type(ndarray).__name__}")
    return Tensor._make(ndarray, _numpy_dtype(ndarray.dtype, "from_numpy"), Device("cpu"))
