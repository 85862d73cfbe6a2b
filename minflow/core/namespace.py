"""``F``: every public function by name, filled as op families import.

Tensor operators call through it (``F.add``), so ops can be defined after the Tensor
class without import cycles.
"""

__all__ = ["F"]


class _Functions:
    def __getattr__(self, name):
        raise AttributeError(f"minflow has no function {name!r}")


F = _Functions()
