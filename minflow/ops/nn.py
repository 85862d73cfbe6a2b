"""nn ops: batch_norm, layer_norm, dropout, embedding, one_hot."""
__all__ = []
