"""activation family (ops)."""
