"""minflow.jit, minflow.distributed and minflow.multiprocessing, as model code and training
scripts use them."""
import warnings

import pytest

import minflow
from minflow import jit


def test_eager_mode_answers_of_torch_jit():
    assert jit.is_scripting() is False and jit.is_tracing() is False

    @jit.ignore
    def a(x):
        return x + 1

    @jit.ignore(drop=True)
    def b(x):
        return x + 2

    @jit.unused
    def c(x):
        return x + 3

    assert (a(0), b(0), c(0)) == (1, 2, 3)
    assert jit.annotate(list, [1]) == [1] and jit.Attribute(5, int) == 5
    future = jit.fork(lambda x, y: x * y, 3, y=4)
    assert jit.wait(future) == 12 and future.done()


def test_script_and_trace_run_the_model_eagerly_and_warn_once():
    model = minflow.nn.Linear(2, 1)
    jit._warned[0] = False
    with pytest.warns(UserWarning, match="minflow has no TorchScript"):
        scripted = jit.script(model)
    assert scripted is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # once only
        assert jit.trace(model, minflow.ones(1, 2)) is model
    with pytest.raises(RuntimeError, match="expected a Module or a function"):
        jit.script(3)
    with pytest.raises(RuntimeError, match="no TorchScript archive format"):
        jit.save(model, "m.pt")
    with pytest.raises(RuntimeError, match="cannot read TorchScript archives"):
        jit.load("m.pt")


def test_distributed_is_not_there():
    dist = minflow.distributed
    assert not (dist.is_available() and dist.is_initialized())


def _square_into(i, queue):
    queue.put((i, (minflow.arange(3.0) * i).tolist()))


def _fail(i):
    if i == 1:
        raise ValueError("process one fails")


def test_spawn_runs_each_rank_and_tensors_cross_processes():
    mp = minflow.multiprocessing
    queue = mp.get_context("spawn").SimpleQueue()
    mp.spawn(_square_into, args=(queue,), nprocs=2)
    got = dict(queue.get() for _ in range(2))
    assert got == {0: [0.0, 0.0, 0.0], 1: [0.0, 1.0, 2.0]}
    with pytest.raises(mp.ProcessRaisedException, match="process one fails"):
        mp.spawn(_fail, nprocs=2)


def test_sharing_strategies_are_torchs_names():
    mp = minflow.multiprocessing
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    before = mp.get_sharing_strategy()
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
    finally:
        mp.set_sharing_strategy(before)
    with pytest.raises(AssertionError, match="unknown strategy"):
        mp.set_sharing_strategy("shm")
