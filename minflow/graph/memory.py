"""Memory planning by liveness: when each value's last reader runs, which buffer it gets.

A value made by a node lives from that node to its last reader (to the end of the run for
graph outputs, parameter grads and values written back into real tensors). A view op's
output shares its input's buffer, which then lives as long as the longest of them; so does
the output of an op that updates a ``mutable`` input in place (it is that input). Views
of graph inputs and parameters live in those tensors and need no buffer. Buffers are
handed out per device in node order, best fit, and return to the pool once their value's
last reader has run, so ``peak_bytes`` (the sum of the planned buffers) is what the plan
needs at most, against ``no_reuse_bytes`` (a buffer per value).

Given ``writes_out`` (the nodes whose kernel writes into an array it is given, ``out=``),
the plan becomes real: those nodes' outputs get ``preallocated`` buffers, made once and
written by every run, and an elementwise one whose input of the same shape and dtype has
its last reader there writes over that input (``inplace``). Values returned to the user
(and views of them) never live in a buffer: a later run would overwrite them. Gradients
handed to ``param.grad`` and values written back into tensors may, as the plan copies
them out. Every other value is allocated by its kernel and dropped after its last reader
(``drops``). Given ``overwrites`` (node index -> the names of the inputs its kernel can
write over), a node whose named inputs all die there, in buffers the plan made, is told
it may (``overwrite``): an optimizer update then takes its dead gradient as scratch.

>>> g = minflow.graph.trace_function(lambda x: ((x + 1) * 2).exp(), minflow.ones(256))
>>> mem = minflow.graph.plan_memory(g)
>>> mem.no_reuse_bytes, mem.peak_bytes, mem.drops
(3072, 2048, [[], [1], [2]])
>>> mem = minflow.graph.plan_memory(g, writes_out={0, 1, 2})
>>> mem.preallocated, mem.inplace, mem.held_bytes
({1: (device(type='cpu'), 0), 2: (device(type='cpu'), 0)}, [(1, 1, 2)], 1024)
"""
from ..ops.registry import get_op
from .ir import Value
from .passes import PassReport

__all__ = ["MemoryPlan", "plan_memory", "schedule_updates_early"]


class MemoryPlan:
    """``drops[i]``: value ids no call after node i reads; ``buffer_of``: value id ->
    buffer index; ``buffer_bytes``: size per buffer; peak and no-reuse byte counts.
    ``preallocated``: value id -> (device, byte offset) in that device's ``arenas`` (bytes)
    for the values written into memory made once, ``held_bytes`` the arenas' total;
    ``inplace``: (node index, input id, output id) per node writing over its input;
    ``overwrite``: the indices of the nodes whose kernel may write over its dying inputs.

    >>> g = minflow.graph.trace_function(lambda x: ((x + 1) * 2).exp(), minflow.ones(256))
    >>> print(minflow.graph.plan_memory(g))
    memory_planning: 3 values in 2 buffers, planned peak 2.0 KiB vs 3.0 KiB without reuse (33% less)
    """

    def __init__(self, drops, buffer_of, buffer_bytes, no_reuse_bytes, preallocated=None,
                 arenas=None, inplace=(), overwrite=()):
        self.drops, self.buffer_of, self.buffer_bytes = drops, buffer_of, buffer_bytes
        self.peak_bytes, self.no_reuse_bytes = sum(buffer_bytes), no_reuse_bytes
        self.preallocated, self.arenas = preallocated or {}, arenas or {}
        self.held_bytes, self.inplace = sum(self.arenas.values()), list(inplace)
        self.overwrite = list(overwrite)

    def __str__(self):
        saved = 1 - self.peak_bytes / self.no_reuse_bytes if self.no_reuse_bytes else 0.0
        text = (f"memory_planning: {len(self.buffer_of)} values in {len(self.buffer_bytes)} "
                f"buffers, planned peak {_size(self.peak_bytes)} vs "
                f"{_size(self.no_reuse_bytes)} without reuse ({saved:.0%} less)")
        if self.preallocated:
            text += (f"; {len(self.preallocated)} values written into preallocated memory "
                     f"({_size(self.held_bytes)} held), {len(self.inplace)} in place")
        return text

    def as_dict(self):
        return {"values": len(self.buffer_of), "buffers": len(self.buffer_bytes),
                "peak_bytes": self.peak_bytes, "no_reuse_bytes": self.no_reuse_bytes,
                "preallocated_values": len(self.preallocated), "held_bytes": self.held_bytes,
                "inplace": len(self.inplace)}


def plan_memory(graph, writes_out=None, overwrites=None):
    """The MemoryPlan of ``graph``'s nodes in their order; ``writes_out``: indices of the
    nodes whose kernel takes ``out=`` (None: a plan on paper only); ``overwrites``: node
    index -> names of the inputs its kernel can write over.

    >>> g = minflow.graph.trace_function(lambda x: (x + 1).exp(), minflow.ones(4))
    >>> minflow.graph.plan_memory(g).drops         # node 1 is the last reader of value 1
    [[], [1]]
    """
    root, last = _roots(graph), _last_uses(graph)
    end = len(graph.nodes)
    for vid, r in root.items():        # a buffer lives as long as its longest view
        if r is not None:
            last[r] = max(last.get(r, -1), last.get(vid, -1))
    drops = [[] for _ in graph.nodes]
    for vid, i in last.items():
        if i < end and vid in root:
            drops[i].append(vid)
    real = _preallocatable(graph, root, writes_out or ())
    groups, inplace = _inplace_groups(graph, root, last, real)
    spans = _spans(graph, groups, last)
    buffer_of, sizes = _assign(spans)
    for vid, r in root.items():
        if r is not None and r != vid:
            buffer_of[vid] = buffer_of[r]
    preallocated, arenas = _place([span for span in spans if span[3][0][0] in real])
    no_reuse = sum(_nbytes(graph.values[vid]) for group in groups for vid, _ in group)
    overwrite = [i for i, names in sorted((overwrites or {}).items())
                 if _may_overwrite(graph.nodes[i], i, names, real, last)]
    return MemoryPlan([sorted(d) for d in drops], buffer_of, sizes, no_reuse, preallocated,
                      arenas, inplace, overwrite)


def _may_overwrite(node, i, names, real, last):
    """Whether the inputs of ``node`` (index i) named ``names`` are all values with buffers
    of the plan's own (``real``) that nothing reads after it, each passed once."""
    inputs = [x for spec, x in zip(get_op(node.op).inputs, node.inputs) if spec.name in names]
    ids = [v.id for v in node.input_values()]
    return bool(inputs) and all(isinstance(x, Value) and x.id in real and last[x.id] == i
                                and ids.count(x.id) == 1 for x in inputs)


def _inplace_groups(graph, root, last, real):
    """The values that own a buffer, as groups sharing one (a value, then those written
    in place over it), each a list of (value id, index of the node making it); and the
    (node index, input id, output id) of each in-place write."""
    groups, group_of, inplace = [], {}, []
    for i, node in enumerate(graph.nodes):
        for v in node.outputs:
            if root[v.id] != v.id:
                continue
            taken = _inplace_input(node, i, v, real, last) if v.id in real else None
            if taken is None:
                group_of[v.id] = len(groups)
                groups.append([(v.id, i)])
            else:
                group_of[v.id] = group_of[taken.id]
                groups[group_of[v.id]].append((v.id, i))
                inplace.append((i, taken.id, v.id))
    return groups, inplace


def _spans(graph, groups, last):
    """(bytes, (first node, last node), device, group) per group, largest first."""
    spans = []
    for group in groups:
        head = graph.values[group[0][0]]
        span = (group[0][1], max(last[vid] for vid, _ in group))
        spans.append((_nbytes(head), span, head.device, group))
    spans.sort(key=lambda s: (-s[0], s[1][0]))
    return spans


def _assign(spans):
    """Buffers on paper: each group goes to the first buffer of its device that holds
    nothing alive while it is (a buffer's size is its first, largest group's).
    Returns ({value id: buffer index}, [bytes per buffer])."""
    sizes, devices, busy, buffer_of = [], [], [], {}
    for nbytes, (start, stop), device, group in spans:
        for b, taken in enumerate(busy):
            if devices[b] == device and all(stop < a or z < start for a, z in taken):
                break
        else:
            b = len(sizes)
            sizes.append(nbytes)
            devices.append(device)
            busy.append([])
        busy[b].append((start, stop))
        for vid, _ in group:
            buffer_of[vid] = b
    return buffer_of, sizes


_ALIGN = 64     # bytes; a value's offset in its arena is a multiple of this


def _place(spans):
    """Byte offsets in one arena per device, largest first: each group goes to the lowest
    offset clear of the groups placed so far that are alive while it is. Returns
    ({value id: (device, offset)}, {device: arena bytes})."""
    placed, offsets, arenas = [], {}, {}
    for nbytes, (start, stop), device, group in spans:
        size = -(-nbytes // _ALIGN) * _ALIGN
        offset = 0
        for low, high in sorted((o, o + n) for o, n, d, a, z in placed
                                if d == device and not (stop < a or z < start)):
            if offset + size <= low:
                break
            offset = max(offset, high)
        placed.append((offset, size, device, start, stop))
        arenas[device] = max(arenas.get(device, 0), offset + size)
        for vid, _ in group:
            offsets[vid] = (device, offset)
    return offsets, arenas


class ScheduleReport(PassReport):
    """What ``schedule_updates_early`` moved: ``moved`` lists the ops of the moved nodes."""

    def __init__(self, name, moved, details=()):
        super().__init__(name, (), details)
        self.moved = list(moved)

    @property
    def changed(self):
        return bool(self.moved)

    def __str__(self):
        if not self.moved:
            return f"{self.name}: no change"
        counts = {}
        for op in self.moved:
            counts[op] = counts.get(op, 0) + 1
        ops = ", ".join(op if n == 1 else f"{op} x{n}" for op, n in counts.items())
        return "\n  ".join([f"{self.name}: moved {len(self.moved)} nodes earlier ({ops})",
                           *self.details])

    __repr__ = __str__


def schedule_updates_early(graph):
    """Move each node that updates an input in place (an optimizer's update op) up to just
    after the last node it must follow: the producers of its inputs, and the nodes that
    read or write the tensors it writes or write those it reads (views included). Each
    gradient then dies as soon as its update has run instead of living to the end of
    backward, so the memory plan reuses its buffer.

    >>> w1, w2 = minflow.ones(3, requires_grad=True), minflow.ones(3, requires_grad=True)
    >>> with minflow.graph.trace() as g:
    ...     x = minflow.graph.placeholder(g, (3,))
    ...     ((x * w1).exp() * w2).sum().backward()
    >>> _ = minflow.graph.optim.add_update_ops(g, minflow.optim.SGD([w1, w2], lr=0.1))
    >>> print(minflow.graph.memory.schedule_updates_early(g))
    schedule_updates_early: moved 1 nodes earlier (sgd_update)
      sgd_update -> [%14] now runs before mul (was 3 nodes later)
    >>> [node.op for node in g.nodes][6:]
    ['mul', 'mul', 'sgd_update', 'mul', 'mul', 'sgd_update']
    """
    storage = _storages(graph)
    order, moved, details = [], [], []
    for node in graph.nodes:
        writes = _written(node, storage)
        if not writes:
            order.append(node)
            continue
        reads = {storage[v.id] for v in node.input_values()}
        inputs = {v.id for v in node.input_values()}
        at = len(order)
        while at > 0 and not _must_follow(order[at - 1], reads, writes, inputs, storage):
            at -= 1
        if at < len(order):
            moved.append(node.op)
            details.append(f"{node.op} -> {list(node.outputs)} now runs before "
                           f"{order[at].op} (was {len(order) - at} nodes later)")
        order.insert(at, node)
    graph.nodes = order
    return ScheduleReport("schedule_updates_early", moved, details)


def _storages(graph):
    """Value id -> the id of the value whose memory it is (through views and in-place
    updates), for every value."""
    storage = {v.id: v.id for v in graph.values}
    for node in graph.nodes:
        base = _aliased_input(get_op(node.op), node)
        if base is not None:
            for v in node.outputs:
                storage[v.id] = storage[base.id]
    return storage


def _written(node, storage):
    """The storages ``node`` writes in place (its mutable inputs')."""
    op = get_op(node.op)
    return {storage[x.id] for spec, x in zip(op.inputs, node.inputs)
            if spec.mutable and isinstance(x, Value)}


def _must_follow(earlier, reads, writes, inputs, storage):
    """Whether a node that reads ``reads``, writes ``writes`` and takes value ids
    ``inputs`` must stay after node ``earlier``."""
    if any(v.id in inputs for v in earlier.outputs):
        return True
    earlier_reads = {storage[v.id] for v in earlier.input_values()}
    earlier_reads.update(storage[v.id] for v in earlier.outputs)    # views made of them
    earlier_writes = _written(earlier, storage)
    return bool(earlier_writes & (reads | writes) or earlier_reads & writes)


def _roots(graph):
    """Value id -> the id of the value whose buffer it lives in (itself, a view's base, the
    mutable input an in-place update returns), or None where that is a real tensor (a
    graph input, a parameter): for every value a node makes."""
    root = {}
    for node in graph.nodes:
        base = _aliased_input(get_op(node.op), node)
        for v in node.outputs:
            root[v.id] = v.id if base is None else root.get(base.id)
    return root


def _aliased_input(op, node):
    """The input Value the outputs of ``node`` share memory with, if any."""
    if op.is_view:
        first = node.input_values()
        return first[0] if first else None
    for spec, x in zip(op.inputs, node.inputs):
        if spec.mutable and x is not None and not isinstance(x, tuple):
            return x
    return None


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


def _preallocatable(graph, root, writes_out):
    """Ids of the values that get real buffers: outputs of ``writes_out`` nodes that own
    their buffer and are not returned (nor viewed by a returned value)."""
    returned = {root.get(v.id) for v in graph.outputs}
    return {v.id for i in writes_out for v in graph.nodes[i].outputs
            if root[v.id] == v.id and v.id not in returned}


def _inplace_input(node, i, out, real, last):
    """The input of elementwise ``node`` (index i) whose buffer ``out`` can take: one with
    a real buffer, out's shape, dtype and device, and no reader after this node."""
    if "elementwise" not in get_op(node.op).traits:
        return None
    for x in node.input_values():
        if (x.id in real and last[x.id] == i
                and x.shape == out.shape and x.dtype is out.dtype and x.device == out.device):
            return x
    return None


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
