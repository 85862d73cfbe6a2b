"""activation family (autograd/grads)."""
