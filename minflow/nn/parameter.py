"""Parameter: a Tensor that a Module registers as one of its learnable weights; Buffer:
one it registers as state (``register_buffer``) when assigned as an attribute."""
from ..core import dtype as dtypes
from ..core.tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


class Parameter(Tensor):
    """A leaf Tensor that, assigned to a Module attribute, joins ``module.parameters()``.

    It shares storage with ``data`` (as torch's does) and requires grad by default. Ops on
    a Parameter give plain Tensors; ``Module.to`` swaps its data in place, so the same
    Parameter object (which an optimizer may hold) survives the move.

    >>> p = minflow.nn.Parameter(minflow.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> p.is_leaf, type(p * 2).__name__
    (True, 'Tensor')
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected data to be a minflow Tensor, got "
                            f"{type(data).__name__}")
        param = Tensor._make(data._data, data.dtype, data.device, cls=cls)
        param._version = data._share_version()
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        pass      # everything happens in __new__; Tensor.__init__ refuses direct calls

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return Parameter, (self.detach(), self.requires_grad)


class Buffer(Tensor):
    """A Tensor that, assigned to a Module attribute, is registered as a buffer (part of the
    state_dict unless ``persistent=False``), as ``register_buffer`` does.

    >>> m = minflow.nn.Module()
    >>> m.steps = minflow.nn.Buffer(minflow.tensor(0))
    >>> m.cache = minflow.nn.Buffer(minflow.zeros(2), persistent=False)
    >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
    (['steps'], ['steps', 'cache'])
    """

    __slots__ = ("persistent",)     # whether assigning it makes a persistent buffer

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer: expected data to be a minflow Tensor, got "
                            f"{type(data).__name__}")
        buf = Tensor._make(data._data, data.dtype, data.device, cls=cls)
        buf._version = data._share_version()
        buf.requires_grad_(data.requires_grad)
        buf.persistent = bool(persistent)
        return buf

    def __init__(self, data=None, *, persistent=True):
        pass


class _Uninitialized:
    """What UninitializedParameter and UninitializedBuffer share: no shape until
    ``materialize(shape)`` gives them storage and their class becomes ``cls_to_become``."""

    __slots__ = ()
    cls_to_become = Tensor

    def materialize(self, shape, device=None, dtype=None):
        """Give this tensor uninitialised storage of ``shape`` (on its device, in its dtype
        unless given) and make it a plain Parameter / Tensor."""
        from ..core.namespace import F
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        data = F.empty(shape, dtype=dtype or self.dtype, device=device or self.device)
        self._data, self.dtype, self.device = data._data, data.dtype, data.device
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. "
                           "This error usually happens in `load_state_dict` when trying to "
                           "load an uninitialized parameter into an initialized one. Call "
                           "`forward` to initialize the parameters before accessing their "
                           "attributes.")

    def size(self, dim=None):
        return self.shape

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A Parameter whose shape is not known yet (a Lazy layer's weight before its first
    call); ``materialize(shape)`` makes it a Parameter.

    >>> p = minflow.nn.UninitializedParameter()
    >>> p.materialize((2, 3)); type(p).__name__, p.shape
    ('Parameter', minflow.Size([2, 3]))
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..core.namespace import F
        return Parameter.__new__(cls, F.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape is not known yet (a LazyBatchNorm's running stats);
    ``materialize(shape)`` makes it a Tensor.

    >>> b = minflow.nn.UninitializedBuffer()
    >>> b.materialize(3); type(b).__name__, b.shape
    ('Tensor', minflow.Size([3]))
    """

    __slots__ = ()

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ..core.namespace import F
        data = F.empty(0, device=device, dtype=dtype)
        buf = Tensor._make(data._data, data.dtype, data.device, cls=cls)
        buf.requires_grad_(requires_grad)
        return buf

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def _empty():
    from ..core.namespace import F
    return F.empty(0, dtype=dtypes.get_default_dtype())
