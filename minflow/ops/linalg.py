"""linalg family (ops)."""
