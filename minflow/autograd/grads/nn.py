"""nn family (autograd/grads)."""
