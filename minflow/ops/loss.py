"""loss family (ops)."""
