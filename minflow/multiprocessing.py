"""``minflow.multiprocessing``: Python's multiprocessing, with torch.multiprocessing's extras.

Everything of ``multiprocessing`` is here (Process, Queue, Pool, get_context,
set_start_method...). Tensors put on queues or passed to spawned processes are pickled with
their data (as DataLoader workers send batches); a tensor moved to shared memory with
``share_memory_()`` (``Module.share_memory()``) is shared with the processes forked after
that (Linux's default start method; Hogwild training), not with spawned ones. There is no
file-descriptor passing to tune: ``set_sharing_strategy`` accepts torch's names and records
the choice, which changes nothing. ``spawn`` starts ``nprocs`` processes running ``fn(i, *args)`` and reports a
failed one as torch's does.
"""
import multiprocessing
import traceback
from multiprocessing import *  # noqa: F401,F403  (torch.multiprocessing re-exports it all)

__all__ = [*multiprocessing.__all__, "spawn", "start_processes", "ProcessContext",
           "ProcessRaisedException", "ProcessExitedException", "get_sharing_strategy",
           "set_sharing_strategy", "get_all_sharing_strategies"]

_STRATEGIES = ("file_descriptor", "file_system")
_strategy = ["file_descriptor"]


def get_all_sharing_strategies():
    """torch's sharing strategy names (see the module docstring)."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy[0]


def set_sharing_strategy(new_strategy):
    """Record ``new_strategy`` (one of torch's names); tensors are pickled either way."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"set_sharing_strategy: unknown strategy {new_strategy!r}, "
                             f"expected one of {sorted(_STRATEGIES)}")
    _strategy[0] = new_strategy


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.error_index, self.pid = error_index, pid


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code (or a signal)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name


def _wrap(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put((i, traceback.format_exc()))
        raise SystemExit(1)


class ProcessContext:
    """The processes ``spawn`` started (``join=False``): ``join()`` waits for them."""

    def __init__(self, processes, errors):
        self.processes, self._errors = processes, errors

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Wait for every process; True when all ended. A failed process: the others are
        terminated and its error is raised here."""
        for p in self.processes:
            p.join(timeout)
        if not self._errors.empty():
            index, trace = self._errors.get()
            self._stop()
            raise ProcessRaisedException(f"\n\n-- Process {index} terminated with the "
                                         f"following error:\n{trace}", index,
                                         self.processes[index].pid)
        for index, p in enumerate(self.processes):
            if p.exitcode not in (None, 0):
                self._stop()
                raise ProcessExitedException(f"process {index} terminated with exit code "
                                             f"{p.exitcode}", index, p.pid, p.exitcode)
        return all(p.exitcode is not None for p in self.processes)

    def _stop(self):
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` for i in range(nprocs), each in a process of ``start_method``."""
    context = multiprocessing.get_context(start_method)
    errors = context.SimpleQueue()
    processes = []
    for i in range(nprocs):
        process = context.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
    processes = ProcessContext(processes, errors)
    if not join:
        return processes
    processes.join()
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the spawn start method (torch's only one for spawn)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
