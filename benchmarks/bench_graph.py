"""Training steps through nn.Graph beside their baselines, measured in one run.

Run: python benchmarks/bench_graph.py [--repeat N] [--device cuda]
Cases (float32, plain SGD lr 0.1, every step a forward, backward and update):
  MLP 784-256-256-10, cross-entropy, batch 32 and 256: the graph step against the
    hand-written numpy step of bench_mlp.py (targets <= 1.1x and <= 1.05x).
  CNN conv2d(1 -> 8, 3x3) + relu + max_pool2d(2) + linear(1352 -> 10), batch 64: the
    graph step against PyTorch CPU eager (target <= 1.3x; skipped without torch).
  Peak memory (tracemalloc) of a graph step against the eager minflow step, MLP and CNN
    (target <=). The graph's figure adds the buffers its plan keeps between calls.
  Compile time (trace + passes + plan) of the MLP training graph (target < 1 s).
  --device cuda: graph and eager minflow step times on the GPU, side by side, with
    PyTorch's eager step on the GPU (TF32 off) where it has one, for the cases above and
    for an MLP with QuickGELU (h * sigmoid(1.702 h), as in CLIP), whose elementwise
    chains the fusion pass turns into single kernels; that case also runs a graph
    compiled without fusion.
Steps are timed in turn in each repeat (noise on a shared machine falls on all alike); a
figure is the lowest median over the repeats.
"""
import argparse
import time

import numpy as np

import minflow
from minflow import nn
from bench_conv import arrays as conv_arrays, keep_freed_memory
from bench_mlp import LR, SIZES, init_arrays, numpy_step, peak_memory, time_steps, torch_step

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

MLP_TARGETS = {32: 1.1, 256: 1.05}
CNN_TARGET, COMPILE_TARGET_S, CNN_BATCH = 1.3, 1.0, 64


class TrainGraph(nn.Graph):
    """Forward, cross-entropy, backward and the optimizer's update, compiled."""

    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


class SmallCNN(nn.Module):
    """conv 1 -> 8 3x3, relu, max_pool 2, linear 1352 -> 10, weights from bench_conv."""

    def __init__(self, a, device):
        super().__init__()
        for name in ("w", "b", "lw", "lb"):
            setattr(self, name, nn.Parameter(minflow.tensor(a[name], device=device)))

    def forward(self, x):
        F = nn.functional
        h = F.max_pool2d(F.relu(F.conv2d(x, self.w, self.b)), 2)
        return F.linear(h.reshape(h.shape[0], -1), self.lw, self.lb)


class QuickGELU(nn.Module):
    def forward(self, h):
        return h * minflow.sigmoid(1.702 * h)


class UnfusedGraph(TrainGraph):
    passes = tuple(p for p in TrainGraph.passes if p is not minflow.graph.fuse_elementwise)


def mlp_model(batch, device):
    """The MLP with bench_mlp's initial weights for ``batch``, on ``device``."""
    model = nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(),
                          nn.Linear(SIZES[1], SIZES[2]), nn.ReLU(),
                          nn.Linear(SIZES[2], SIZES[3])).to(device)
    _, _, weights = init_arrays(batch)
    with minflow.no_grad():
        for p, a in zip(model.parameters(), weights):
            p.copy_(minflow.tensor(a, device=device))
    return model


def _sync(device):
    return minflow.cuda.synchronize if device == "cuda" else (lambda: None)


def eager_step(model, x, y, device):
    """A zero-argument eager minflow training step, and the model's parameters."""
    opt, sync = minflow.optim.SGD(model.parameters(), lr=LR), _sync(device)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()         # grads freed, as a graph step leaves them
        sync()
        return loss
    return step, list(model.parameters())


def graph_step(model, x, y, device, graph_class=TrainGraph):
    """The same step through a TrainGraph (compiled by the first call), and the graph."""
    graph = graph_class(model, minflow.optim.SGD(model.parameters(), lr=LR))
    sync = _sync(device)

    def step():
        loss = graph(x, y)
        sync()
        return loss
    return step, graph


def mlp_case(batch, device):
    xa, ya, _ = init_arrays(batch)
    x, y = minflow.tensor(xa, device=device), minflow.tensor(ya, device=device)
    steps = {"minflow eager": eager_step(mlp_model(batch, device), x, y, device),
             "minflow graph": graph_step(mlp_model(batch, device), x, y, device)}
    first, _ = graph_step(mlp_model(batch, device), x, y, device)
    start = time.perf_counter()
    first()                                         # traces, compiles and runs once
    compile_s = time.perf_counter() - start
    if device == "cpu":
        steps["numpy"] = numpy_step(batch)
    elif _torch_has(device):
        steps["torch"] = torch_step(batch, device)
    return steps, compile_s


def cnn_case(device):
    a = conv_arrays()
    x, y = minflow.tensor(a["x"], device=device), minflow.tensor(a["y"], device=device)
    steps = {"minflow eager": eager_step(SmallCNN(a, device), x, y, device),
             "minflow graph": graph_step(SmallCNN(a, device), x, y, device)}
    if _torch_has(device):
        steps["torch"] = torch_cnn_step(a, device), None
    return steps


def _torch_has(device):
    """Whether torch is installed and can run on ``device``; on cuda without TF32, as
    minflow's float32 matmuls and convolutions."""
    if torch is None or (device == "cuda" and not torch.cuda.is_available()):
        return False
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    return True


def quick_gelu_case(batch, device):
    """MLP 784-1024-1024-10 with QuickGELU: eager, graph, and graph without fusion."""
    xa, ya, _ = init_arrays(batch)
    x, y = minflow.tensor(xa, device=device), minflow.tensor(ya, device=device)

    def model():
        minflow.manual_seed(0)
        return nn.Sequential(nn.Linear(SIZES[0], 1024), QuickGELU(), nn.Linear(1024, 1024),
                             QuickGELU(), nn.Linear(1024, SIZES[3])).to(device)
    return {"minflow eager": eager_step(model(), x, y, device),
            "minflow graph": graph_step(model(), x, y, device),
            "graph, no fusion": graph_step(model(), x, y, device, UnfusedGraph)}


def torch_cnn_step(a, device="cpu"):
    """The CNN step in PyTorch eager, SGD written out."""
    x, y = torch.from_numpy(a["x"]).to(device), torch.from_numpy(a["y"]).to(device)
    params = [torch.from_numpy(a[k].copy()).to(device).requires_grad_()
              for k in ("w", "b", "lw", "lb")]
    w, b, lw, lb = params
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def step():
        h = TF.max_pool2d(TF.relu(TF.conv2d(x, w, b)), 2)
        loss = TF.cross_entropy(TF.linear(h.reshape(CNN_BATCH, -1), lw, lb), y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        sync()
        return loss.detach()
    return step


def check_same(steps, reference):
    """Two steps of each from the same weights give the reference's losses."""
    losses = {name: [float(step()) for _ in range(2)] for name, (step, _) in steps.items()}
    for name, got in losses.items():
        np.testing.assert_allclose(got, losses[reference], rtol=1e-4, err_msg=name)


def peak_bytes(step, graph=None):
    """Peak bytes a step allocates beyond what was held before it, plus the buffers a
    graph's plan holds between steps (they are part of what the step needs)."""
    held = graph.plan.held_bytes if graph is not None else 0
    return peak_memory(step) + held


def verdict(name, value, target, unit="x"):
    ok = "ok" if value <= target else "MISSED"
    return f"  {name}: {value:.2f}{unit} (target <= {target}{unit}) {ok}"


def run_cpu(repeat):
    lines = []
    print(f"{'case':28s} {'ms':>8s} {'x base':>7s} {'peak MB':>8s}")
    for batch in MLP_TARGETS:
        steps, compile_s = mlp_case(batch, "cpu")
        check_same(steps, "numpy")
        times = time_steps(steps, repeat, number=20 if batch <= 32 else 5)
        memory = {n: peak_bytes(s, g if n == "minflow graph" else None)
                  for n, (s, g) in steps.items() if n != "numpy"}
        for name, ms in times.items():
            mem = f"{memory[name] / 2**20:8.2f}" if name in memory else f"{'-':>8s}"
            print(f"MLP b{batch:<4d} {name:16s} {ms:8.3f} {ms / times['numpy']:7.2f} {mem}")
        lines.append(verdict(f"MLP batch {batch} graph / numpy",
                             times["minflow graph"] / times["numpy"], MLP_TARGETS[batch]))
        lines.append(verdict(f"MLP batch {batch} graph / eager peak memory",
                             memory["minflow graph"] / memory["minflow eager"], 1.0))
        if batch == 32:
            lines.append(verdict("MLP training graph compile time", compile_s * 1e3,
                                 COMPILE_TARGET_S * 1e3, " ms"))
    steps = cnn_case("cpu")
    check_same(steps, "torch" if "torch" in steps else "minflow eager")
    times = time_steps(steps, repeat, number=10)
    memory = {n: peak_bytes(s, g if n == "minflow graph" else None)
              for n, (s, g) in steps.items() if n != "torch"}
    base = "torch" if "torch" in times else "minflow eager"
    for name, ms in times.items():
        mem = f"{memory[name] / 2**20:8.2f}" if name in memory else f"{'-':>8s}"
        print(f"CNN b{CNN_BATCH:<5d} {name:16s} {ms:8.3f} {ms / times[base]:7.2f} {mem}")
    if "torch" in times:
        lines.append(verdict("CNN graph / torch eager",
                             times["minflow graph"] / times["torch"], CNN_TARGET))
    else:
        lines.append("  CNN graph / torch eager: skipped (torch is not installed)")
    lines.append(verdict("CNN graph / eager peak memory",
                         memory["minflow graph"] / memory["minflow eager"], 1.0))
    print("x base: MLP against numpy, CNN against " + base)
    print("\n".join(["targets:"] + lines))


def run_cuda(repeat):
    print(f"cuda: {minflow.cuda.get_device_name()}")
    print(f"{'case':22s} {'eager ms':>9s} {'graph ms':>9s} {'eager/graph':>12s} "
          f"{'torch ms':>9s} {'graph/torch':>12s} {'unfused ms':>11s}")
    cases = [(f"MLP b{batch}", mlp_case(batch, "cuda")[0]) for batch in MLP_TARGETS]
    cases.append((f"CNN b{CNN_BATCH}", cnn_case("cuda")))
    cases += [(f"QuickGELU MLP b{batch}", quick_gelu_case(batch, "cuda")) for batch in (32, 256)]
    for label, steps in cases:
        check_same(steps, "minflow eager")
        times = time_steps(steps, repeat, number=20)
        eager, graphed = times["minflow eager"], times["minflow graph"]
        theirs = (f"{times['torch']:9.3f} {graphed / times['torch']:12.2f}" if "torch" in times
                  else f"{'-':>9s} {'-':>12s}")
        unfused = f"{times['graph, no fusion']:11.3f}" if "graph, no fusion" in times else ""
        print(f"{label:22s} {eager:9.3f} {graphed:9.3f} {eager / graphed:12.2f} {theirs} "
              f"{unfused}")
        report = steps["minflow graph"][1].compile_report()
        fusion = next(p["report"] for p in report.passes if p["name"] == "fuse_elementwise")
        print(f"  {str(fusion).splitlines()[0]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds to take the best of")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--keep-freed-memory", action="store_true",
                        help="raise glibc's trim threshold first (see bench_conv.py)")
    args = parser.parse_args()
    if torch is not None:
        print(f"torch {torch.__version__}, threads: {torch.get_num_threads()}")
    if args.keep_freed_memory:
        print(f"freed memory kept in the process (glibc mallopt): {keep_freed_memory()}")
    if args.device == "cuda":
        run_cuda(args.repeat)
    else:
        run_cpu(args.repeat)


if __name__ == "__main__":
    main()
