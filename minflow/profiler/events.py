"""The profiler's results: one FunctionEvent per op call or labelled range, EventList to
aggregate them (key_averages) and print them as torch's table."""
import json
import os

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList"]


class FunctionEvent:
    """One op call (or record_function range, or autograd node) and what ran inside it.

    Times are in microseconds; ``cpu_time_total`` spans the call, ``self_cpu_time_total``
    leaves out the events nested in it. Memory: bytes of the tensors it returned."""

    def __init__(self, id, name, start_us, input_shapes=(), is_user_annotation=False):
        self.id, self.name, self.key = id, name, name
        self.start_us, self.end_us = start_us, start_us
        self.input_shapes = input_shapes
        self.is_user_annotation = is_user_annotation
        self.cpu_children, self.cpu_parent = [], None
        self.cpu_memory_usage = 0
        self.count = 1
        self.device_type = "CPU"

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_total:.3f}"
                f"us self_cpu_time={self.self_cpu_time_total:.3f}us input_shapes="
                f"{list(self.input_shapes)}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes if grouped by them), summed."""

    def __init__(self, key, input_shapes=None):
        self.key, self.input_shapes = key, input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.is_user_annotation = False

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        self.is_user_annotation = event.is_user_annotation
        return self

    @property
    def cpu_time(self):
        """The average time of one call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}"
                f"us cpu_time={self.cpu_time_total:.3f}us count={self.count}>")


class EventList(list):
    """A list of events (or of their averages) that prints as torch's profiler table."""

    def __init__(self, events=(), profile_memory=False, record_shapes=False):
        super().__init__(events)
        self._profile_memory, self._record_shapes = profile_memory, record_shapes

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One FunctionEventAvg per name (and per input shapes with
        ``group_by_input_shape``), in order of first appearance."""
        groups = {}
        for event in self:
            shapes = str(list(event.input_shapes)) if group_by_input_shape else None
            key = (event.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(event.key, shapes)
            groups[key].add(event)
        return EventList(groups.values(), self._profile_memory,
                         self._record_shapes and group_by_input_shape)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for event in self:
            total.add(event)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as torch's table: self and total CPU time (and memory with
        profile_memory), calls, input shapes when grouped by them, sorted by ``sort_by``
        (an attribute such as "cpu_time_total", "self_cpu_time_total", "count"), largest
        first."""
        rows = [e for e in self if not top_level_events_only
                or getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if not rows or not hasattr(rows[0], sort_by):
                if rows:
                    raise AttributeError(f"table: cannot sort by {sort_by!r}, an attribute "
                                         f"of the events such as 'cpu_time_total' expected")
            rows = sorted(rows, key=lambda e: getattr(e, sort_by), reverse=True)
        rows = rows[:row_limit] if row_limit is not None and row_limit >= 0 else rows
        total = self.self_cpu_time_total or 1.0
        name_width = min(max(len("Name"), *(len(e.key) for e in rows)) if rows else 4,
                         max_name_column_width)
        columns = [("Name", name_width)] + [(h, 12) for h in (
            "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg")]
        if self._profile_memory:
            columns += [("CPU Mem", 12), ("Self CPU Mem", 12)]
        columns.append(("# of Calls", 12))
        shapes = self._record_shapes and any(getattr(e, "input_shapes", None) is not None
                                             for e in rows)
        if shapes:
            columns.append(("Input Shapes", min(max_shapes_column_width, max(
                [len("Input Shapes")] + [len(str(e.input_shapes)) for e in rows]))))
        line = "  ".join("-" * width for _, width in columns) + "  "

        def fmt(cells):
            return "  ".join(str(c)[:w].rjust(w) for c, (_, w) in zip(cells, columns)) + "  "

        out = [line, fmt([name for name, _ in columns]), line]
        for e in rows:
            name = e.key if len(e.key) <= name_width else e.key[:name_width - 3] + "..."
            cells = [name, f"{100 * e.self_cpu_time_total / total:.2f}%",
                     _format_time(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / total:.2f}%", _format_time(e.cpu_time_total),
                     _format_time(e.cpu_time_total / max(e.count, 1))]
            if self._profile_memory:
                cells += [_format_memory(e.cpu_memory_usage),
                          _format_memory(e.self_cpu_memory_usage)]
            cells.append(e.count)
            if shapes:
                cells.append(e.input_shapes)
            out.append(fmt(cells))
        out += [line, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return (header + "\n" if header else "") + "\n".join(out)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (JSON; open in chrome://tracing or
        Perfetto): one complete ("X") event each, with its input shapes."""
        pid = os.getpid()
        trace = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
                  "pid": pid, "tid": 0,
                  "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                  "args": {"Input Dims": [list(s) if s is not None else None
                                          for s in e.input_shapes]}}
                 for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


def _format_time(us):
    """torch's: seconds, milliseconds or microseconds, three decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes):
    """torch's: Gb, Mb, Kb or b, two decimals."""
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"
