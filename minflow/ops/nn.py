"""nn family (ops)."""
