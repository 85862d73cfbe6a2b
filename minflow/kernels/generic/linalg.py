"""linalg family (kernels/generic)."""
