"""Elementwise fusion: the rewrite (on graphs traced for cuda, which needs no GPU), the
generated CUDA source, the fused program's meaning (its cpu reference kernel against
eager), cpu graphs left alone, and the numerics on a GPU (skipped without one)."""
import numpy as np
import pytest

import minflow
import minflow.graph as mg
import minflow.nn.functional as F
from minflow.core.device import cuda_is_available
from minflow.core.dispatch import apply
from minflow.graph.fusion import fuse_elementwise
from minflow.kernels.cupy.fused import CUDA_EXPRESSIONS, cuda_source
from minflow.ops.fused import FUSED_ELEMENTWISE

needs_gpu = pytest.mark.skipif(not cuda_is_available(), reason="needs cupy and a CUDA GPU")


def _trace(fn, *shapes, device="cuda", dtype=minflow.float32):
    with mg.trace() as g:
        xs = [mg.placeholder(g, s, dtype, device) for s in shapes]
        mg.set_outputs(g, fn(*xs))
    return g


def _mlp_head(x, b, w):
    h = (x @ w + b).relu() * 2 - 1             # matmul, then add relu mul sub
    return h.tanh().sum(1), h @ w.T


def test_chains_with_single_readers_become_one_node():
    g = _trace(_mlp_head, (4, 3), (3,), (3, 3))
    report = fuse_elementwise(g)
    assert [n.op for n in g.nodes] == ["matmul", "fused_elementwise", "tanh", "sum",
                                        "permute", "matmul"]
    fused = g.nodes[1]
    assert [step[0] for step in fused.attrs["program"]] == ["add", "relu", "mul", "sub"]
    assert [v.id for v in fused.inputs[0]] == [g.nodes[0].outputs[0].id, g.inputs[1].id]
    assert str(report) == ("fuse_elementwise: fused 4 ops into 1 kernels\n"
                           f"  {fused.outputs[0]!r} = add + relu + mul + sub (2 inputs)")
    assert report.removed == ["add", "relu", "mul"]


def test_values_read_twice_or_returned_stay_stored():
    def fn(x):
        h = x.exp()                 # read by two nodes: stays a boundary
        r = (h + 1).sin()           # returned: the chain ends there
        return r, (h * 3).cos() + r
    g = _trace(fn, (5,))
    fuse_elementwise(g)
    ops = [n.op for n in g.nodes]
    assert ops == ["exp", "fused_elementwise", "fused_elementwise"]
    programs = [[s[0] for s in n.attrs["program"]] for n in g.nodes[1:]]
    assert programs == [["add", "sin"], ["mul", "cos", "add"]]


def test_no_fusion_across_an_in_place_update():
    g = mg.Graph()
    w = g.add_input((3,), minflow.float32, "cuda")
    grad = g.add_input((3,), minflow.float32, "cuda")
    lr = g.add_input((), minflow.float64, "cuda")
    spec = [((3,), minflow.float32)]
    (a,) = g.add_node("exp", {}, (w,), spec, "cuda")
    g.add_node("sgd_update", {"lr": 0.0, "momentum": 0.0, "dampening": 0.0,
                              "weight_decay": 0.0, "nesterov": False, "maximize": False,
                              "init_buffer": False}, (w, grad, None, lr), spec, "cuda")
    (b,) = g.add_node("mul", {}, (a, 2.0), spec, "cuda")
    (c,) = g.add_node("add", {}, (b, 1.0), spec, "cuda")
    g.outputs = [c]
    fuse_elementwise(g)
    assert [n.op for n in g.nodes] == ["exp", "sgd_update", "fused_elementwise"]


def test_other_dtypes_and_ops_are_left_alone():
    g = _trace(lambda x: (x * 2).exp().floor().abs(), (4,), dtype=minflow.float16)
    assert not fuse_elementwise(g).changed
    g = _trace(lambda x: x.exp().floor().abs().sqrt(), (4,))      # floor has no expression
    fuse_elementwise(g)
    assert [n.op for n in g.nodes] == ["exp", "floor", "fused_elementwise"]
    g = _trace(lambda x: (x * float("inf")).exp(), (4,))          # only finite constants
    assert not fuse_elementwise(g).changed


def test_cpu_graphs_are_unchanged_and_the_report_says_why():
    g = _trace(_mlp_head, (4, 3), (3,), (3, 3), device="cpu")
    before = list(g.nodes)
    report = fuse_elementwise(g)
    assert g.nodes == before and not report.changed
    assert str(report) == ("fuse_elementwise: no change (the graph runs on cpu, where numpy "
                           "runs each op in one pass already; fusion makes CUDA kernels)")


def test_generated_cuda_source():
    g = _trace(lambda x, y: F.leaky_relu(x * y - 0.5, 0.2).sigmoid(), (2, 3), (3,))
    fuse_elementwise(g)
    (node,) = g.nodes
    params, out, body, name = cuda_source(node.attrs["program"], 2)
    assert (params, out, name) == ("T in0, T in1", "T out",
                                   "minflow_fused_mul_sub_leaky_relu_sigmoid")
    assert body.splitlines() == [
        "T v0 = in0 * in1;",
        "T v1 = v0 - ((T)0.5);",
        "T v2 = (v1 > 0 ? v1 : v1 * ((T)0.2));",
        "T v3 = tanh(v2 * (T)0.5) * (T)0.5 + (T)0.5;",
        "out = v3;"]


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64])
def test_fused_programs_mean_what_the_ops_compute(dtype):
    """Every op with a CUDA expression, through a fused program run by the cpu reference
    kernel, against eager minflow."""
    def fn(x, y):
        h = (x + y) * y - x / (y.abs() + 1)
        h = h.neg().square().reciprocal() + h.exp().log1p() + (h * 0.1).expm1()
        h = (h.abs() + 1).log() + (h.abs() + 1).sqrt() + (h.abs() + 1).rsqrt()
        h = h.sin() + h.cos() + h.tanh() + h.sigmoid() + F.relu(h) + F.leaky_relu(h, 0.3)
        grads = [apply(minflow.ops.get_op(op), [h, y], attrs) for op, attrs in
                 (("relu_grad", {}), ("tanh_grad", {}), ("sigmoid_grad", {}),
                  ("leaky_relu_grad", {"negative_slope": 0.3}))]
        return sum(grads[1:], grads[0]) + _more_math(x, y)
    rng = np.random.default_rng(0)
    x, y = (minflow.tensor(rng.normal(size=(3, 4)), dtype=dtype) for _ in range(2))
    g = _trace(fn, (3, 4), (3, 4), dtype=dtype)
    fuse_elementwise(g)
    fused = [n for n in g.nodes if n.op == "fused_elementwise"]
    assert {s[0] for n in fused for s in n.attrs["program"]} == set(CUDA_EXPRESSIONS)
    got = _run_on_cpu(g, x, y)
    np.testing.assert_array_equal(got.numpy(), _run_on_cpu(_trace(fn, (3, 4), (3, 4)), x, y)
                                  .numpy())
    np.testing.assert_allclose(got.numpy(), fn(x, y).numpy(), rtol=1e-6)


def _more_math(x, y):
    """A sum of the ops of ops/unary_math.py, binary_math.py and gamma.py that have CUDA
    expressions, each inside its domain."""
    u, v = (x * 0.3).tanh(), (y * 0.3).tanh() + 1            # in (-0.3, 0.3), (0.7, 1.3)
    k = u.tan() + u.asin() + u.acos() + u.atan() + u.sinh() + u.cosh() + u.asinh()
    k = k + (u.abs() + 1.5).acosh() + u.atanh() + (u.abs() + 1).log2() + u.exp2()
    k = k + (u.abs() + 1).log10() + u.erfc() + u.sinc() + u.deg2rad() + u.rad2deg()
    k = k + u.fmod(v) + u.hypot(v) + u.copysign(v - 1) + u.fmax(v - 1) + u.fmin(v - 1)
    return k + u.nextafter(v) + u.xlogy(v) + u.heaviside(v) + (u + 1).lgamma()


def _run_on_cpu(graph, *inputs):
    """Each node of ``graph`` (traced for cuda) run eagerly on cpu tensors."""
    env = {v.id: t for v, t in zip(graph.inputs, inputs)}

    def arg(x):
        if isinstance(x, tuple):
            return [env[v.id] for v in x]
        return env[x.id] if isinstance(x, mg.Value) else x
    for node in graph.nodes:
        outs = apply(minflow.ops.get_op(node.op), [arg(x) for x in node.inputs],
                     dict(node.attrs))
        for v, t in zip(node.outputs, outs if isinstance(outs, tuple) else (outs,)):
            env[v.id] = t
    return env[graph.outputs[0].id]


def test_fused_op_checks_its_inputs():
    program = (("exp", (), (("input", 0),)),)
    with pytest.raises(TypeError, match="fused_elementwise: inputs must share one dtype"):
        apply(FUSED_ELEMENTWISE, [[minflow.ones(2), minflow.ones(2, dtype=minflow.float64)]],
              {"program": program})
    with pytest.raises(ValueError, match="attr 'program' must be a non-empty tuple"):
        apply(FUSED_ELEMENTWISE, [[minflow.ones(2)]], {"program": ()})


@needs_gpu
@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64])
def test_fused_plan_matches_unfused_on_the_gpu(dtype):
    rng = np.random.default_rng(0)
    x, b, w = (minflow.tensor(rng.normal(size=s), dtype=dtype, device="cuda")
               for s in ((64, 32), (32,), (32, 32)))
    g = _trace(_mlp_head, (64, 32), (32,), (32, 32), dtype=dtype)
    fused = mg.compile(g)
    plain = mg.compile(g, passes=[p for p in mg.DEFAULT_PASSES if p is not fuse_elementwise])
    assert "fused_elementwise" in [n.op for n in fused.graph.nodes]
    assert "fused_elementwise" not in [n.op for n in plain.graph.nodes]
    for _ in range(2):
        for a, e in zip(fused(x, b, w), plain(x, b, w)):
            np.testing.assert_allclose(a.cpu().numpy(), e.cpu().numpy(), rtol=1e-6, atol=1e-7)


@needs_gpu
@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64])
def test_fused_more_math_matches_unfused_and_eager_on_the_gpu(dtype):
    rng = np.random.default_rng(0)
    x, y = (minflow.tensor(rng.normal(size=(64, 32)), dtype=dtype, device="cuda")
            for _ in range(2))
    x[0, :4] = 0.0                          # sinc's, xlogy's and heaviside's special case
    g = _trace(_more_math, (64, 32), (64, 32), dtype=dtype)
    fused = mg.compile(g)
    plain = mg.compile(g, passes=[p for p in mg.DEFAULT_PASSES if p is not fuse_elementwise])
    assert "fused_elementwise" in [n.op for n in fused.graph.nodes]
    (got,), (expected,) = fused(x, y), plain(x, y)
    np.testing.assert_allclose(got.cpu().numpy(), expected.cpu().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.cpu().numpy(), _more_math(x.cpu(), y.cpu()).numpy(),
                               rtol=1e-5, atol=1e-6)


@needs_gpu
def test_graph_training_on_the_gpu_fuses_and_equals_eager():
    def model():
        minflow.manual_seed(0)
        return minflow.nn.Sequential(minflow.nn.Linear(8, 16), minflow.nn.Tanh(),
                                     minflow.nn.Linear(16, 3)).to("cuda")

    class Train(minflow.nn.Graph):
        def __init__(self, m, opt):
            super().__init__()
            self.m = m
            self.add_optimizer(opt)

        def build(self, x, y):
            loss = F.cross_entropy(self.m(x) * 2 + 1, y)
            loss.backward()
            return loss
    eager, graphed = model(), model()
    opt_e = minflow.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9)
    graph = Train(graphed, minflow.optim.SGD(graphed.parameters(), lr=0.1, momentum=0.9))
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = minflow.tensor(rng.normal(size=(16, 8)), dtype=minflow.float32, device="cuda")
        y = minflow.tensor(rng.integers(0, 3, 16), device="cuda")
        loss = F.cross_entropy(eager(x) * 2 + 1, y)
        opt_e.zero_grad()
        loss.backward()
        opt_e.step()
        np.testing.assert_allclose(graph(x, y).item(), loss.item(), rtol=1e-5)
    assert any(n.op == "fused_elementwise" for n in graph.plan.graph.nodes)
    for a, b in zip(graphed.parameters(), eager.parameters()):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(),
                                   rtol=1e-4, atol=1e-6)


def test_a_fused_node_writes_over_an_input_that_dies_there():
    g = _trace(lambda x, w: ((((x @ w) + 1).relu() * 3) @ w).sum(), (4, 4), (4, 4))
    fuse_elementwise(g)
    assert [n.op for n in g.nodes] == ["matmul", "fused_elementwise", "matmul", "sum"]
    memory = mg.plan_memory(g, writes_out={0, 1, 2})
    product, fused = g.nodes[0].outputs[0], g.nodes[1].outputs[0]
    assert memory.inplace == [(1, product.id, fused.id)]
    assert memory.preallocated[product.id] == memory.preallocated[fused.id]
