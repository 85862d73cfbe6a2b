"""torch.autograd.profiler's interface to minflow.profiler (the older spelling that many
scripts use): ``profile(enabled=True, ...)`` records while active, and its results are
``function_events``, ``key_averages()``, ``table()`` and ``export_chrome_trace``.

>>> with minflow.autograd.profiler.profile() as prof:
...     _ = minflow.ones(3).exp()
>>> [e.key for e in prof.key_averages()]
['full', 'exp']
"""
from ..profiler import EventList, FunctionEvent, FunctionEventAvg, record_function
from ..profiler import profile as _profile

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]


class profile(_profile):
    """Record op calls while active; ``enabled=False`` records nothing."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops,
                         with_modules=with_modules, use_cuda=use_cuda or use_device == "cuda")
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    @property
    def function_events(self):
        return self.events()

    def total_average(self):
        return self.events().total_average()
