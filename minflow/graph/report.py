"""The compile report: ops before and after each pass, time per pass, planned memory.

``str(report)`` is the text; ``report.as_dict()`` the same as data.

>>> g = minflow.graph.trace_function(lambda x: x.exp().sin().cos(), minflow.ones(4))
>>> data = minflow.graph.compile(g).report.as_dict()
>>> [(p["name"], p["ops_before"], p["ops_after"]) for p in data["passes"]][:2]
[('dead_code_elimination', 3, 3), ('constant_folding', 3, 3)]
>>> data["memory"]["peak_bytes"], data["memory"]["no_reuse_bytes"]
(32, 48)
"""
__all__ = ["CompileReport"]


class CompileReport:
    """Filled by ``minflow.graph.compile``: ``passes`` (one dict per pass run: name,
    ops_before, ops_after, seconds, report) and ``memory`` (the MemoryPlan).

    >>> g = minflow.graph.trace_function(lambda x: x * 2 + x * 2, minflow.ones(4))
    >>> report = minflow.graph.compile(g).report
    >>> report.ops_traced, report.as_dict()["ops_compiled"]
    (3, 2)
    """

    def __init__(self, ops):
        self.ops_traced, self.passes = ops, []
        self.memory, self.memory_seconds = None, 0.0

    def add(self, report, before, after, seconds):
        self.passes.append({"name": report.name, "ops_before": before, "ops_after": after,
                            "seconds": seconds, "report": report})

    def add_memory(self, memory, seconds):
        self.memory, self.memory_seconds = memory, seconds

    @property
    def ops_compiled(self):
        return self.passes[-1]["ops_after"] if self.passes else self.ops_traced

    @property
    def seconds(self):
        return sum(p["seconds"] for p in self.passes) + self.memory_seconds

    def as_dict(self):
        """The report as plain data (pass reports as their text)."""
        return {"ops_traced": self.ops_traced, "ops_compiled": self.ops_compiled,
                "seconds": self.seconds,
                "passes": [dict(p, report=str(p["report"])) for p in self.passes],
                "memory": None if self.memory is None else self.memory.as_dict()}

    def __str__(self):
        lines = [f"compile report: {self.ops_traced} -> {self.ops_compiled} ops in "
                 f"{self.seconds * 1e3:.2f} ms"]
        width = max((len(p["name"]) for p in self.passes), default=0)
        for p in self.passes:
            what = str(p["report"]).splitlines()[0].split(": ", 1)[1]
            lines.append(f"  {p['name']:<{width}} {p['ops_before']} -> {p['ops_after']} ops  "
                         f"{p['seconds'] * 1e3:.2f} ms  {what}")
        if self.memory is not None:
            lines.append(f"  {self.memory}")
        return "\n".join(lines)
