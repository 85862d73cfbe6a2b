"""torch.cond and torch.while_loop: control flow as functions (for torch's compilers, which
trace both branches). minflow runs them eagerly, as torch does outside compilation: cond
calls the branch its predicate picks, while_loop iterates in Python."""
from ..core.functional import public
from ..core.tensor import Tensor

__all__ = ["cond", "while_loop"]


def _truth(pred, where):
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"{where}: Expected pred to be bool or single-element tensor, "
                               f"but got a tensor of shape {list(pred.shape)}")
        return bool(pred.item())
    if isinstance(pred, (bool, int)):
        return bool(pred)
    raise RuntimeError(f"{where}: Expected pred to be bool or single-element tensor, but got "
                       f"{type(pred).__name__}")


def _operands(operands, where):
    if isinstance(operands, list):
        return tuple(operands)
    if not isinstance(operands, tuple):
        raise RuntimeError(f"{where}: Expected a tuple or list of operands, got "
                           f"{type(operands).__name__}")
    return operands


@public
def cond(pred, true_fn, false_fn, operands=()):
    """cond(pred, true_fn, false_fn, operands=()) -> true_fn(*operands) if pred else
    false_fn(*operands)

    >>> x = minflow.ones(2)
    >>> minflow.cond(x.sum() > 1, lambda t: t + 1, lambda t: t - 1, (x,)).tolist()
    [2.0, 2.0]
    """
    operands = _operands(operands, "cond")
    if not (callable(true_fn) and callable(false_fn)):
        raise RuntimeError("cond: Expect both branches to be callable")
    return (true_fn if _truth(pred, "cond") else false_fn)(*operands)


@public
def while_loop(cond_fn, body_fn, carried_inputs):
    """while_loop(cond_fn, body_fn, carried_inputs) -> the carried values once cond_fn says
    stop: ``while cond_fn(*vals): vals = body_fn(*vals)`` (a tuple of the same length).

    >>> minflow.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
    ...                    (minflow.tensor(0), minflow.ones(2)))
    (tensor(3), tensor([8., 8.]))
    """
    values = _operands(carried_inputs, "while_loop")
    if not (callable(cond_fn) and callable(body_fn)):
        raise RuntimeError("while_loop: Expect cond_fn and body_fn to be callable")
    while _truth(cond_fn(*values), "while_loop"):
        values = body_fn(*values)
        values = values if isinstance(values, tuple) else (values,)
        if len(values) != len(carried_inputs):
            raise RuntimeError(f"while_loop: body_fn must return as many values as "
                               f"carried_inputs ({len(carried_inputs)}), got {len(values)}")
    return values
