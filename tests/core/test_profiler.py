"""minflow.profiler and autograd.profiler: events per op call, nesting, averages, the
table, schedules and traces."""
import json
import warnings

import numpy as np
import pytest

import minflow
from minflow.core import dispatch
from minflow.profiler import (ProfilerAction, profile, record_function, schedule,
                              tensorboard_trace_handler)


def _step(model, x, y, opt):
    loss = minflow.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()


@pytest.fixture
def mlp():
    minflow.manual_seed(0)
    model = minflow.nn.Sequential(minflow.nn.Linear(4, 8), minflow.nn.ReLU(),
                                  minflow.nn.Linear(8, 3))
    opt = minflow.optim.SGD(model.parameters(), lr=0.1)
    return model, minflow.randn(5, 4), minflow.tensor([0, 1, 2, 0, 1]), opt


def test_every_op_call_and_autograd_node_is_an_event(mlp):
    with profile(record_shapes=True) as prof:
        with record_function("train_step"):
            _step(*mlp)
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["train_step"].count == 1
    assert averages["linear"].count == 2 and averages["relu"].count == 1
    assert averages["cross_entropy"].count == 1
    assert averages["autograd::engine::evaluate_function: ReluBackward0"].count == 1
    assert averages["relu_grad"].count == 1
    assert any(key.startswith("sgd_update") for key in averages)
    events = prof.events()
    root = events[0]
    assert root.name == "train_step" and root.cpu_parent is None
    assert all(e.cpu_parent is not None for e in events[1:])        # all inside the range
    # a range's time holds its children's; self times add up to the total
    assert root.cpu_time_total >= sum(c.cpu_time_total for c in root.cpu_children) > 0
    np.testing.assert_allclose(sum(e.self_cpu_time_total for e in events),
                               root.cpu_time_total, rtol=1e-9)
    linear = next(e for e in events if e.name == "linear")
    assert linear.input_shapes == [[5, 4], [8, 4], [8]]
    assert dispatch.observer[0] is None                             # off again


def test_in_place_ops_are_seen_while_profiling():
    x = minflow.zeros(3)
    with profile() as prof:
        x.add_(1.0)
        x.mul_(2.0)
    assert [e.name for e in prof.events()] == ["add", "mul"]
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_table_lists_the_columns_and_sorts(mlp):
    with profile(record_shapes=True, profile_memory=True) as prof:
        _step(*mlp)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    lines = table.splitlines()
    for column in ("Name", "Self CPU %", "Self CPU", "CPU total", "CPU Mem", "# of Calls"):
        assert column in lines[1]
    assert len(lines) == 5 + 5 and lines[-1].startswith("Self CPU time total:")
    selfs = sorted((e.self_cpu_time_total for e in prof.key_averages()), reverse=True)[:5]
    assert [float(line.split()[2].rstrip("mus")) for line in lines[3:8]][0] == pytest.approx(
        selfs[0] / (1e3 if "ms" in lines[3].split()[2] else 1), rel=1e-3)
    shaped = prof.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" in shaped and "[[5, 4], [8, 4], [8]]" in shaped
    linear = next(e for e in prof.events() if e.name == "linear")
    assert linear.cpu_memory_usage == 5 * 8 * 4            # its float32 output


def test_schedule_records_the_active_steps_and_hands_each_cycle_over(mlp):
    ready = []
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: ready.append(
                     sum(e.name == "cross_entropy" for e in p.events()))) as prof:
        for _ in range(10):
            _step(*mlp)
            prof.step()
    assert ready == [2, 2]              # two cycles of two recorded steps
    with pytest.warns(UserWarning, match="won't be using warmup"):
        s = schedule(wait=1, warmup=0, active=1, skip_first=2)
    assert [s(i) for i in range(5)] == [ProfilerAction.NONE, ProfilerAction.NONE,
                                        ProfilerAction.NONE, ProfilerAction.RECORD_AND_SAVE,
                                        ProfilerAction.NONE]
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=0, active=0)


def test_schedule_matches_torch():
    torch = pytest.importorskip("torch")
    for kwargs in ({"wait": 1, "warmup": 1, "active": 2}, {"wait": 2, "warmup": 1, "active": 1,
                   "repeat": 2, "skip_first": 3}, {"wait": 3, "warmup": 1, "active": 2,
                   "skip_first_wait": 1}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = schedule(**kwargs), torch.profiler.schedule(**kwargs)
        assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_chrome_trace_and_tensorboard_handler(mlp, tmp_path):
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path / "tb"), "w0"),
                 record_shapes=True) as prof:
        _step(*mlp)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert len(trace) == len(prof.events()) and {"name", "ph", "ts", "dur"} <= set(trace[0])
    written = list((tmp_path / "tb").iterdir())
    assert len(written) == 1 and written[0].name.startswith("w0.")
    assert written[0].name.endswith(".pt.trace.json")


def test_legacy_autograd_profiler_and_disabled_recording():
    x = minflow.ones(3, requires_grad=True)
    with minflow.autograd.profiler.profile(record_shapes=True) as prof:
        x.exp().sum().backward()
    keys = [e.key for e in prof.key_averages()]
    assert keys[:2] == ["exp", "sum"] and "Self CPU time total" in prof.table()
    assert prof.total_average().count == len(prof.function_events)
    with minflow.autograd.profiler.profile(enabled=False) as off:
        x.exp()
    assert len(off.function_events) == 0


def test_record_function_outside_a_profile_does_nothing_and_decorates():
    @record_function("helper")
    def helper(t):
        return t * 2
    assert helper(minflow.ones(1)).item() == 2.0
    with profile() as prof:
        helper(minflow.ones(1))
    assert [e.name for e in prof.events()] == ["full", "helper", "mul"]


def test_unmeasured_requests_warn_and_bad_activities_raise():
    with pytest.warns(UserWarning, match="CUDA activity, FLOPs not measured"):
        profile(activities=[minflow.profiler.ProfilerActivity.CUDA], with_flops=True)
    with pytest.raises(TypeError, match="ProfilerActivity values"):
        profile(activities=["cpu"])
