"""loss family (kernels/generic)."""
