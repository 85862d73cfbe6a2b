"""activation family (kernels/generic)."""
