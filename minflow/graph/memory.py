"""Memory planning by liveness: when each value's last reader runs, which buffer it gets.

A value made by a node lives from that node to its last reader (to the end of the run for
graph outputs, parameter grads and values written back into real tensors). A view op's
output shares its input's buffer, which then lives as long as the longest of them.
Buffers are handed out in node order, best fit, and return to the pool once their value's
last reader has run, so ``peak_bytes`` (the sum of the planned buffers) is what the plan
needs at most, against ``no_reuse_bytes`` (a buffer per value).

What the plan does with it: after each call it drops its references to the values whose
last reader was that call (``drops``), so numpy's allocator reuses their memory at once;
kernels still allocate their outputs (few generic kernels take ``out=``), so the buffer
assignment is a plan and a report, not preallocated arrays.

>>> g = minflow.graph.trace_function(lambda x: ((x + 1) * 2).exp(), minflow.ones(256))
>>> mem = minflow.graph.plan_memory(g)
>>> mem.no_reuse_bytes, mem.peak_bytes, mem.drops
(3072, 2048, [[], [1], [2]])
"""
from ..ops.registry import get_op

__all__ = ["MemoryPlan", "plan_memory"]


class MemoryPlan:
    """``drops[i]``: value ids no call after node i reads; ``buffer_of``: value id ->
    buffer index; ``buffer_bytes``: size per buffer; peak and no-reuse byte counts."""

    def __init__(self, drops, buffer_of, buffer_bytes, no_reuse_bytes):
        self.drops, self.buffer_of, self.buffer_bytes = drops, buffer_of, buffer_bytes
        self.peak_bytes, self.no_reuse_bytes = sum(buffer_bytes), no_reuse_bytes

    def __str__(self):
        saved = 1 - self.peak_bytes / self.no_reuse_bytes if self.no_reuse_bytes else 0.0
        return (f"memory_planning: {len(self.buffer_of)} values in {len(self.buffer_bytes)} "
                f"buffers, planned peak {_size(self.peak_bytes)} vs "
                f"{_size(self.no_reuse_bytes)} without reuse ({saved:.0%} less)")

    def as_dict(self):
        return {"values": len(self.buffer_of), "buffers": len(self.buffer_bytes),
                "peak_bytes": self.peak_bytes, "no_reuse_bytes": self.no_reuse_bytes}


def plan_memory(graph):
    """The MemoryPlan of ``graph``'s nodes in their order."""
    root, last = _roots(graph), _last_uses(graph)
    end = len(graph.nodes)
    for vid, r in root.items():        # a buffer lives as long as its longest view
        last[r] = max(last.get(r, -1), last.get(vid, -1))
    drops = [[] for _ in graph.nodes]
    for vid, i in last.items():
        if i < end and vid in root:
            drops[i].append(vid)
    buffer_of, sizes, free, no_reuse = {}, [], [], 0
    for i, node in enumerate(graph.nodes):
        for v in node.outputs:
            if root[v.id] != v.id:
                continue
            nbytes = _nbytes(v)
            no_reuse += nbytes
            buffer_of[v.id] = _take(free, sizes, nbytes)
        for vid in drops[i]:
            if root[vid] == vid and last[vid] == i:
                free.append(buffer_of[vid])
    for vid, r in root.items():
        if r != vid:
            buffer_of[vid] = buffer_of[r]
    return MemoryPlan([sorted(d) for d in drops], buffer_of, sizes, no_reuse)


def _roots(graph):
    """Value id -> the id of the value whose buffer it lives in (itself, or a view's base),
    for every value a node makes."""
    root = {}
    for node in graph.nodes:
        base = None
        if get_op(node.op).is_view:
            first = node.input_values()
            base = root.get(first[0].id) if first else None
        for v in node.outputs:
            root[v.id] = base if base is not None else v.id
    return root


def _last_uses(graph):
    """Value id -> index of its last reader; len(nodes) for what lives to the end."""
    last = {}
    for i, node in enumerate(graph.nodes):
        for v in node.input_values():
            last[v.id] = i
    end = len(graph.nodes)
    for v in graph.outputs:
        last[v.id] = end
    for vid in (*graph.param_grads.values(), *graph.writes.values()):
        last[vid] = end
    for i, node in enumerate(graph.nodes):
        for v in node.outputs:
            last.setdefault(v.id, i)        # never read: freed at once
    return last


def _take(free, sizes, nbytes):
    """The smallest free buffer of at least ``nbytes`` (grown if none is), by index."""
    fits = [b for b in free if sizes[b] >= nbytes]
    if fits:
        best = min(fits, key=lambda b: sizes[b])
        free.remove(best)
        return best
    if free:                            # grow the largest free one rather than add one
        best = max(free, key=lambda b: sizes[b])
        free.remove(best)
        sizes[best] = nbytes
        return best
    sizes.append(nbytes)
    return len(sizes) - 1


def _nbytes(value):
    n = value.dtype.np.itemsize
    for d in value.shape:
        n *= d
    return n


def _size(nbytes):
    for unit in ("B", "KiB", "MiB"):
        if nbytes < 1024 or unit == "MiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
