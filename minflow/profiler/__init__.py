"""``minflow.profiler``: where the time of a run goes, op by op, as torch.profiler.

While a ``profile`` records, every op call through the dispatcher (forward, and the ops
the backward runs, each autograd node as an "autograd::engine::evaluate_function" range)
and every ``record_function`` range becomes a FunctionEvent with its wall time, nested in
the range it ran in. ``key_averages().table()`` sums them per name:

    >>> from minflow.profiler import profile, record_function
    >>> x, w = minflow.ones(8, 4, requires_grad=True), minflow.ones(3, 4)
    >>> with profile(record_shapes=True) as prof:
    ...     with record_function("forward"):
    ...         y = minflow.nn.functional.linear(x, w).relu().sum()
    ...     y.backward()
    >>> [(e.key, e.count) for e in prof.key_averages()][:4]
    [('forward', 1), ('linear', 1), ('relu', 1), ('sum', 1)]
    >>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=5))  # doctest: +SKIP

Times are the host's wall clock: on cuda they include launching kernels, not their run on
the device (cupy runs them asynchronously). Ops inside a compiled ``nn.Graph`` run are not
seen one by one (they do not pass through the dispatcher). In-place ops, which otherwise
write straight into their tensor, take the dispatcher's path while a profile records, so
they are listed too.
"""
import enum
import os
import socket
import time
import warnings

from ..core import dispatch
from .events import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "EventList", "FunctionEvent",
           "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities minflow can record: host (CPU) time only."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """torch's profiling schedule: for each ``prof.step()``, skip ``skip_first`` steps,
    then cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps (at
    most ``repeat`` cycles; 0: no limit). ``on_trace_ready`` runs at the end of each cycle.

    >>> s = minflow.profiler.schedule(wait=1, warmup=1, active=2)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      UserWarning, stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Invalid step {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:     # the first cycle has no wait: shift by it
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        return _in_cycle(step % cycle)

    def _in_cycle(at):
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule(step):
    return ProfilerAction.RECORD


class _Recorder:
    """The events of one recording: ``observe`` times op calls for the dispatcher,
    ``span`` opens a named range; open events nest what starts inside them."""

    def __init__(self, record_shapes, profile_memory):
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.events, self._open = [], []
        self._origin = time.perf_counter()

    def _begin(self, name, shapes=(), user=False):
        event = FunctionEvent(len(self.events), name, self._now(), shapes, user)
        if self._open:
            event.cpu_parent = self._open[-1]
            self._open[-1].cpu_children.append(event)
        self.events.append(event)
        self._open.append(event)
        return event

    def _end(self, event):
        event.end_us = self._now()
        if self._open and self._open[-1] is event:
            self._open.pop()

    def _now(self):
        return (time.perf_counter() - self._origin) * 1e6

    def observe(self, op, inputs, attrs):
        shapes = [_shape(x) for x in inputs] if self.record_shapes else ()
        event = self._begin(op.name, shapes)
        dispatch.observer[0] = None             # the op itself runs unobserved
        try:
            result = dispatch.apply(op, inputs, attrs)
        finally:
            dispatch.observer[0] = self
            self._end(event)
        if self.profile_memory:
            event.cpu_memory_usage = sum(getattr(getattr(t, "_data", None), "nbytes", 0)
                                         for t in (result if isinstance(result, tuple)
                                                   else (result,)))
        return result

    def span(self, name, user=False):
        return _Span(self, name, user)


class _Span:
    def __init__(self, recorder, name, user):
        self.recorder, self.name, self.user = recorder, name, user

    def __enter__(self):
        self.event = self.recorder._begin(self.name, (), self.user)
        return self

    def __exit__(self, *exc):
        self.recorder._end(self.event)
        self.event.cpu_memory_usage = sum(c.cpu_memory_usage for c in self.event.cpu_children)
        return False


def _shape(x):
    if hasattr(x, "_data") and hasattr(x, "dtype"):
        return list(x.shape)
    if isinstance(x, (list, tuple)) and x and all(hasattr(y, "_data") for y in x):
        return [list(y.shape) for y in x]
    return []


class record_function:
    """A labelled range in the profile (context manager or decorator); nothing when no
    profiler records.

    >>> x = minflow.ones(2)
    >>> with minflow.profiler.profile() as prof:
    ...     with minflow.profiler.record_function("my block"):
    ...         _ = x + 1
    >>> [e.name for e in prof.events()], prof.events()[1].cpu_parent.name
    (['my block', 'add'], 'my block')
    """

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._span = None

    def __enter__(self):
        recorder = dispatch.observer[0]
        if isinstance(recorder, _Recorder):
            self._span = recorder.span(self.name, user=True).__enter__()
        return self

    def __exit__(self, *exc):
        if self._span is not None:
            self._span.__exit__(*exc)
            self._span = None
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class profile:
    """Record op calls while active (``with profile() as prof:``, or ``start``/``stop``).

    With a ``schedule``, call ``prof.step()`` once per training step: steps are recorded
    as the schedule says, and ``on_trace_ready(prof)`` runs when a recorded cycle ends
    (``tensorboard_trace_handler`` writes it to a folder). ``events()`` and
    ``key_averages()`` give the last recorded cycle. ``record_shapes`` keeps each op's input
    shapes (for ``key_averages(group_by_input_shape=True)``); ``profile_memory`` counts the
    bytes of the tensors each op returns. Only host time is measured (activity CPU): asking
    for CUDA, stacks, FLOPs or modules warns that they are not measured.
    """

    def __init__(self, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        unknown = [a for a in activities if not isinstance(a, ProfilerActivity)]
        if unknown:
            raise TypeError(f"profile: activities must be ProfilerActivity values, got "
                            f"{unknown!r}")
        skipped = [what for what, asked in (("CUDA activity", ProfilerActivity.CUDA in
                                             activities or use_cuda), ("stacks", with_stack),
                                            ("FLOPs", with_flops), ("modules", with_modules))
                   if asked]
        if skipped:
            warnings.warn(f"minflow.profiler: {', '.join(skipped)} not measured; only host "
                          f"(CPU) time per op is recorded", UserWarning, stacklevel=2)
        self.activities = activities
        self.schedule = schedule or _default_schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._recorder = None
        self._finished = EventList((), profile_memory, record_shapes)
        self._previous = None

    # -- life cycle ---------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        self.current_action = self.schedule(self.step_num)
        self._enter_action(self.current_action)

    def stop(self):
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish(save=True)
        self.current_action = ProfilerAction.NONE

    def step(self):
        """Mark the end of a training step: move to the schedule's next action."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._finish(save=True)
        elif previous == ProfilerAction.RECORD and self.current_action not in (
                ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish(save=True)
        if self._recorder is None:
            self._enter_action(self.current_action)

    def _enter_action(self, action):
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            if dispatch.observer[0] is not None and dispatch.observer[0] is not self._recorder:
                raise RuntimeError("profile: another profiler is already recording")
            self._recorder = _Recorder(self.record_shapes, self.profile_memory)
            self._previous = dispatch.observer[0]
            dispatch.observer[0] = self._recorder

    def _finish(self, save):
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        dispatch.observer[0] = self._previous
        for event in recorder._open:            # ranges still open end now
            event.end_us = recorder._now()
        self._finished = EventList(recorder.events, self.profile_memory, self.record_shapes)
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # -- results -------------------------------------------------------------------------
    def events(self):
        """The FunctionEvents of the last recorded cycle, in the order they began."""
        return self._finished

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self._finished.key_averages(group_by_input_shape, group_by_stack_n)

    @property
    def self_cpu_time_total(self):
        return self._finished.self_cpu_time_total

    def table(self, *args, **kwargs):
        return self._finished.table(*args, **kwargs)

    def export_chrome_trace(self, path):
        self._finished.export_chrome_trace(path)


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each recorded cycle as a Chrome trace file
    ``<worker>.<time in ms>.pt.trace.json`` in ``dir_name`` (TensorBoard's profiler plugin
    and Perfetto read them)."""
    if use_gzip:
        raise ValueError("tensorboard_trace_handler: use_gzip is not supported; the trace is "
                         "written as plain JSON")

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(
            dir_name, f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"))
    return handler
