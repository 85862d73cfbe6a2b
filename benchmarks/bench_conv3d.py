"""A small 3-D CNN training step: minflow beside PyTorch CPU eager, in one run.

Run: python benchmarks/bench_conv3d.py
Step: conv3d(2 -> 8, 3x3x3, padding 1) + relu + max_pool3d(2) + conv_transpose3d(8 -> 4,
2, stride 2) + adaptive_avg_pool3d(1) + linear(4 -> 3) + cross_entropy, forward and
backward, batch 8 of 16x16x16 float32 volumes; torch at its default thread count. Also the
forward conv3d and max_pool3d alone. minflow and torch are timed in alternation (see
bench_conv.py), so that other load on the machine falls on both alike; figures are the
best ms per call and the ratio minflow / torch.

NOTE: a conv3d product per sample is large enough for OpenBLAS to use all its threads;
on a machine busy with other processes those threads wait on each other (100x slower
products were seen on a loaded 2-core machine). OPENBLAS_NUM_THREADS=1 shows the kernels'
own speed there.
"""
import numpy as np

import minflow
import minflow.nn.functional as Fn
from bench_conv import best_ms

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

BATCH = 8


def arrays():
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((BATCH, 2, 16, 16, 16)).astype(np.float32),
            "y": rng.integers(0, 3, BATCH),
            "w": (rng.standard_normal((8, 2, 3, 3, 3)) / 7).astype(np.float32),
            "b": np.zeros(8, np.float32),
            "u": (rng.standard_normal((8, 4, 2, 2, 2)) / 5).astype(np.float32),
            "lw": (rng.standard_normal((3, 4)) * 0.3).astype(np.float32),
            "lb": np.zeros(3, np.float32)}


def make_fns(lib, fn):
    """{case: a closure running it with ``lib`` (minflow or torch)}."""
    a = arrays()
    x, y = lib.tensor(a["x"]), lib.tensor(a["y"])
    params = [lib.tensor(a[k]).requires_grad_() for k in ("w", "b", "u", "lw", "lb")]
    w, b, u, lw, lb = params
    h = fn.relu(fn.conv3d(x, w.detach(), b.detach(), padding=1))

    def step():
        for p in params:
            p.grad = None
        z = fn.max_pool3d(fn.relu(fn.conv3d(x, w, b, padding=1)), 2)
        z = fn.adaptive_avg_pool3d(fn.conv_transpose3d(z, u, stride=2), 1)
        loss = fn.cross_entropy(fn.linear(z.reshape(BATCH, -1), lw, lb), y)
        loss.backward()
        return loss
    return {"step": step,
            "conv3d": lambda: fn.conv3d(x, w.detach(), b.detach(), padding=1),
            "max_pool3d": lambda: fn.max_pool3d(h, 2)}


def main():
    libs = [("minflow", minflow, Fn)] + ([("torch", torch, TF)] if torch is not None else [])
    fns = {f"{name} {case}": f for name, lib, fn in libs
           for case, f in make_fns(lib, fn).items()}
    timed = best_ms(fns, number=10, repeat=5)
    print(f"  {'case':30s} {'minflow ms':>11s} {'torch ms':>9s} {'ratio':>6s}")
    for case in ("conv3d", "max_pool3d", "step"):
        ours, theirs = timed[f"minflow {case}"], timed.get(f"torch {case}")
        ratio = f"{ours / theirs:6.2f}" if theirs else "     -"
        label = "training step (fwd + bwd)" if case == "step" else f"forward {case}"
        print(f"  {label:30s} {ours:11.3f} {theirs or float('nan'):9.3f} {ratio}")


if __name__ == "__main__":
    main()
