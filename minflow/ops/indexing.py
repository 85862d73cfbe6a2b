"""Indexing ops: getitem / setitem, index_select, gather, scatter_add."""
