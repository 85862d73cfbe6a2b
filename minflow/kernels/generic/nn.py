"""nn family (kernels/generic)."""
