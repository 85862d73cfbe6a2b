"""Op definitions, one module per family; ``list_ops`` describes them all."""
from .registry import Attr, Input, OpDef, all_ops, define_op, get_op

__all__ = ["Attr", "Input", "OpDef", "define_op", "get_op", "all_ops"]
