"""Higher-level autograd, as ``torch.autograd.functional``: jacobian, hessian, vjp, jvp,
hvp and vhp of a function of tensors, built on ``autograd.grad``.

minflow's autograd is reverse mode only, so jvp and hvp use the double-backward trick, as
torch does: the vjp ``u -> J^T u`` is linear in ``u``, and differentiating it with
respect to ``u`` (a zero tensor that requires grad) in the direction ``v`` gives ``J v``.
``create_graph=True`` keeps the results differentiable; ``strict=True`` makes an output
that does not depend on an input an error instead of zeros.
"""
from ..core.grad_mode import enable_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from .engine import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(value, what, fn_name):
    """(was it a tuple, the tensors as a tuple), or a TypeError naming the bad entry."""
    is_tuple = isinstance(value, tuple)
    values = tuple(value) if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            raise TypeError(f"{fn_name}: the {what} given to {fn_name} must be either a Tensor "
                            f"or a tuple of Tensors but the value at index {i} has type "
                            f"{type(el).__name__}")
    return is_tuple, values


def _unpack(result, is_tuple):
    return result if is_tuple else result[0]


def _prepare_inputs(inputs, create_graph):
    """Inputs that require grad: the originals' history kept only with create_graph."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(True) for x in inputs)


def _finish(values, create_graph):
    return tuple(v if create_graph else v.detach() for v in values)


def _check_v(v, like, fn_name):
    if len(v) != len(like):
        raise RuntimeError(f"{fn_name}: v is a tuple of invalid length: should be {len(like)} "
                           f"but got {len(v)}")
    for i, (a, b) in enumerate(zip(v, like)):
        if tuple(a.shape) != tuple(b.shape):
            where = "v" if len(like) == 1 else f"Entry {i} in v"
            raise RuntimeError(f"{fn_name}: {where} has invalid size: should be "
                               f"{list(b.shape)} but got {list(a.shape)}")


def _grads(outputs, inputs, grad_outputs, create_graph):
    """autograd.grad over the outputs that require grad; None for an unreached input."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                 create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in "
                  "the grad_outputs when using the double backward trick to compute forward "
                  "mode gradients.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian.",
}


def _fill_zeros(grads, refs, strict, stage, fn_name):
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(f"{fn_name}: {_INDEPENDENT[stage].format(i=i)} This is not "
                                   f"allowed in strict mode.")
            g = F.zeros_like(ref)
        out.append(g)
    return tuple(out)


def _check_depends(outputs, strict, fn_name):
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(f"{fn_name}: Output {i} of the user-provided function does "
                                   f"not require gradients. The outputs must be computed in a "
                                   f"differentiable manner from the input when running in "
                                   f"strict mode.")


def _default_v(v, like, fn_name, what):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        _check_v(v, like, fn_name)
        return v
    if len(like) != 1 or like[0].numel() != 1:
        raise RuntimeError(f"{fn_name}: The vector v can only be None if the {what} is a "
                           f"single Tensor with a single element.")
    return (F.ones_like(like[0]),)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """vjp(func, inputs, v=None, create_graph=False, strict=False) -> (output, vjp)

    The vector-Jacobian product v^T J of ``func`` at ``inputs`` (a tensor or a tuple),
    shaped like the inputs; ``v`` shaped like the output (may be None for a one-element
    output).

    >>> f = lambda x: x ** 2
    >>> out, g = minflow.autograd.functional.vjp(f, minflow.tensor([1.0, 2.0]),
    ...                                          minflow.tensor([1.0, 1.0]))
    >>> g.tolist()
    [2.0, 4.0]
    """
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare_inputs(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       "vjp")
        _check_depends(outputs, strict, "vjp")
        v = _default_v(v, outputs, "vjp", "user-provided function returns a single Tensor "
                                          "with a single element, that")
        grads = _grads(outputs, inputs, v, create_graph)
        result = _fill_zeros(grads, inputs, strict, "back", "vjp")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(result, create_graph), is_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """jvp(func, inputs, v=None, create_graph=False, strict=False) -> (output, jvp)

    The Jacobian-vector product J v of ``func`` at ``inputs``, shaped like the output;
    ``v`` shaped like the inputs (may be None for a one-element input). Computed with the
    double-backward trick.

    >>> out, g = minflow.autograd.functional.jvp(lambda x: x ** 3, minflow.tensor([1.0, 2.0]),
    ...                                          minflow.tensor([1.0, 0.5]))
    >>> g.tolist()
    [3.0, 6.0]
    """
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare_inputs(inputs, create_graph)
        v = _default_v(v, inputs, "jvp", "input to the user-provided function")
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       "jvp")
        _check_depends(outputs, strict, "jvp")
        # u -> J^T u is linear in u: its derivative in the direction v is J v
        u = tuple(F.zeros_like(out).requires_grad_(True) for out in outputs)
        grad_inputs = _fill_zeros(_grads(outputs, inputs, u, True), inputs, strict, "back",
                                  "jvp")
        result = _grads(grad_inputs, u, v, create_graph)
        result = _fill_zeros(result, outputs, strict, "back_trick", "jvp")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(result, create_graph), out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
    strategy="reverse-mode") -> Tensor or nested tuple of Tensors

    The Jacobian of ``func`` at ``inputs``: for output i and input j, a tensor of shape
    ``out_i.shape + in_j.shape``, nested as torch's (a plain tensor for one input and one
    output). Computed one output element at a time in reverse mode; ``vectorize`` is
    accepted and gives the same values.

    >>> minflow.autograd.functional.jacobian(lambda x: x ** 2, minflow.tensor([1.0, 3.0])).tolist()
    [[2.0, 0.0], [0.0, 6.0]]
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'jacobian: expected strategy to be either "forward-mode" or '
                         f'"reverse-mode", got {strategy!r}')
    if strategy == "forward-mode":
        raise NotImplementedError('jacobian: minflow has no forward-mode autograd; use '
                                  'strategy="reverse-mode"')
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare_inputs(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       "jacobian")
        _check_depends(outputs, strict, "jacobian")
        result = tuple(_jacobian_rows(i, out, inputs, create_graph, strict)
                       for i, out in enumerate(outputs))
    result = tuple(_finish(row, create_graph) for row in result)
    if not out_tuple:
        return _unpack(result[0], is_tuple)
    return tuple(_unpack(row, is_tuple) for row in result)


def _jacobian_rows(i, out, inputs, create_graph, strict):
    """d out / d input for each input: one vjp per element of ``out``."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.numel()):
        element = flat[k]
        grads = _grads((element,), inputs, (F.ones_like(element),), create_graph)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"jacobian: Output {i} of the user-provided function "
                                       f"is independent of input {j}. This is not allowed in "
                                       f"strict mode.")
                g = F.zeros_like(x)
            rows[j].append(g)
    return tuple(F.reshape(F.stack(r, 0), tuple(out.shape) + tuple(x.shape)) if r else
                 F.zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
                 for r, x in zip(rows, inputs))


def _scalar_output(func, fn_name):
    def single(*inputs):
        out = func(*inputs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        if is_tuple and len(outs) != 1:
            raise RuntimeError(f"{fn_name}: The function given to {fn_name} should return a "
                               f"single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError(f"{fn_name}: The Tensor returned by the function given to "
                               f"{fn_name} should contain a single element")
        return outs[0].reshape(())
    return single


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
    outer_jacobian_strategy="reverse-mode") -> Tensor or nested tuple of Tensors

    The Hessian of the scalar function ``func`` at ``inputs``: the Jacobian of its
    gradient; for inputs i and j, a tensor of shape ``in_i.shape + in_j.shape``.

    >>> f = lambda x: (x ** 3).sum()
    >>> minflow.autograd.functional.hessian(f, minflow.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    single = _scalar_output(func, "hessian")

    def gradient(*xs):
        return jacobian(single, xs, create_graph=True, strict=strict)

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return result if is_tuple else result[0][0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """vhp(func, inputs, v=None, create_graph=False, strict=False) -> (output, vhp)

    The vector-Hessian product v^T H of the scalar function ``func`` at ``inputs``.

    >>> out, g = minflow.autograd.functional.vhp(lambda x: (x ** 3).sum(),
    ...                                          minflow.tensor([1.0, 2.0]), minflow.ones(2))
    >>> out.item(), g.tolist()
    (9.0, [6.0, 12.0])
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """hvp(func, inputs, v=None, create_graph=False, strict=False) -> (output, hvp)

    The Hessian-vector product H v of the scalar function ``func`` at ``inputs``, with the
    double-backward trick (equal to vhp, the Hessian being symmetric).

    >>> out, g = minflow.autograd.functional.hvp(lambda x: (x ** 3).sum(),
    ...                                          minflow.tensor([1.0, 2.0]), minflow.ones(2))
    >>> g.tolist()
    [6.0, 12.0]
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, fn_name):
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare_inputs(inputs, create_graph)
        v = _default_v(v, inputs, fn_name, "input to the user-provided function")
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       fn_name)
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(f"{fn_name}: The function given to {fn_name} should return a "
                               f"single Tensor with a single element")
        _check_depends(outputs, strict, fn_name)
        jac = _fill_zeros(_grads(outputs, inputs, (F.ones_like(outputs[0]),), True), inputs,
                          strict, "double_back", fn_name)
        if fn_name == "vhp":
            result = _fill_zeros(_grads(jac, inputs, v, create_graph), inputs, strict,
                                 "double_back", fn_name)
        else:
            u = tuple(F.zeros_like(x).requires_grad_(True) for x in inputs)
            double_back = _fill_zeros(_grads(jac, inputs, u, True), inputs, strict,
                                      "double_back", fn_name)
            result = _fill_zeros(_grads(double_back, u, v, create_graph), inputs, strict,
                                 "double_back_trick", fn_name)
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(result, create_graph), is_tuple))
