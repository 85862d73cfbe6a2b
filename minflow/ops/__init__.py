"""Op definitions, one module per family; ``list_ops`` describes them all."""
from .registry import Attr, Input, OpDef, all_ops, define_op, get_op


def list_ops():
    """Every op with inputs, outputs, attrs, traits and registered kernels (see catalog).

    >>> row = {r["name"]: r for r in minflow.ops.list_ops()}["leaky_relu"]
    >>> row["attrs"], row["kernels"]["cpu"], row["grad"]
    ([{'name': 'negative_slope', 'type': 'float', 'default': 0.01, 'required': False}],
     ['float16', 'float32', 'float64'], True)
    """
    from .catalog import list_ops as _list
    return _list()


__all__ = ["Attr", "Input", "OpDef", "define_op", "get_op", "all_ops", "list_ops"]
