"""Named tuples that print as torch's ``torch.return_types.<name>``."""
import collections

__all__ = ["return_type"]


def return_type(name, fields):
    """A named tuple class ``name`` with ``fields``, printed one field a line.

    >>> Pair = minflow.linalg.returns.return_type("pair", ["a", "b"])
    >>> Pair(1, 2)
    minflow.return_types.pair(
    a=1,
    b=2)
    """
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"minflow.return_types.{name}(\n{body})"
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})
