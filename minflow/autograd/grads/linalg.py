"""linalg family (autograd/grads)."""
