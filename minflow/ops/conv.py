"""Convolution and pooling ops: conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d."""
__all__ = []
