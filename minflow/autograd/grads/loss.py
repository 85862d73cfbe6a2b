"""loss family (autograd/grads)."""
