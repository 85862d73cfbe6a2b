"""A small CNN training step: minflow beside PyTorch CPU eager, in one run.

Run: python benchmarks/bench_conv.py
Step: conv2d(1 -> 8, 3x3) + relu + max_pool2d(2) + linear(1352 -> 10) + cross_entropy,
forward and backward, batch 64 of 28x28 float32; torch at its default thread count.
Target: minflow <= 1.5x PyTorch.

minflow and torch are timed in alternation, so that other load on the machine falls on
both alike, with a pause before each block so that neither runs beside the other's
spinning worker threads. The step runs twice: with glibc's default malloc, which hands
freed large blocks back to the OS so that the next step faults them in again (costly in
VMs), then with freed memory kept in the process (``mallopt``), as caching allocators do.
"""
import ctypes
import time
import timeit

import numpy as np

import minflow
import minflow.nn.functional as Fn

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

BATCH, TARGET = 64, 1.5


def best_ms(fns, number=30, repeat=7):
    """{name: best ms per call}, the callables timed in turn, each repeat.

    NOTE: the pause lets the other library's idle worker threads stop spinning (OpenBLAS
    spins for a while after each call); on a 2-core machine they halve the next block.
    """
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            time.sleep(0.2)
            for _ in range(3):
                fn()
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number * 1e3)
    return best


def arrays():
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32),
            "y": rng.integers(0, 10, BATCH),
            "w": (rng.standard_normal((8, 1, 3, 3)) / 3).astype(np.float32),
            "b": np.zeros(8, np.float32),
            "lw": (rng.standard_normal((10, 1352)) * 0.03).astype(np.float32),
            "lb": np.zeros(10, np.float32)}


def make_step(lib, fn):
    """A closure running one forward + backward with ``lib`` (minflow or torch)."""
    a = arrays()
    x, y = lib.tensor(a["x"]), lib.tensor(a["y"])
    params = [lib.tensor(a[k]).requires_grad_() for k in ("w", "b", "lw", "lb")]
    w, b, lw, lb = params

    def step():
        for p in params:
            p.grad = None
        h = fn.max_pool2d(fn.relu(fn.conv2d(x, w, b)), 2)
        loss = fn.cross_entropy(fn.linear(h.reshape(BATCH, -1), lw, lb), y)
        loss.backward()
        return loss
    return step


def forward_ops(lib, fn):
    """The step's conv and pool, forward only, without grad."""
    a = arrays()
    x, w, b = lib.tensor(a["x"]), lib.tensor(a["w"]), lib.tensor(a["b"])
    r = fn.relu(fn.conv2d(x, w, b))
    return {"conv2d": lambda: fn.conv2d(x, w, b), "max_pool2d": lambda: fn.max_pool2d(r, 2)}


def keep_freed_memory():
    """Raise glibc's trim and mmap thresholds: freed memory stays in the process.
    False where the C library has no mallopt (not glibc)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_trim_threshold, 1 << 30) and mallopt(m_mmap_threshold, 1 << 25))


def report(title, times):
    print(title)
    for name in ("conv2d", "max_pool2d", "step"):
        ours, theirs = times[f"minflow {name}"], times.get(f"torch {name}")
        ratio = f"{ours / theirs:6.2f}" if theirs else "     -"
        label = "training step (fwd + bwd)" if name == "step" else f"forward {name}"
        print(f"  {label:30s} {ours:11.3f} {theirs or float('nan'):9.3f} {ratio}")


def main():
    libs = [("minflow", minflow, Fn)] + ([("torch", torch, TF)] if torch is not None else [])
    fns = {}
    for name, lib, fn in libs:
        fns[f"{name} step"] = make_step(lib, fn)
        fns.update({f"{name} {op}": f for op, f in forward_ops(lib, fn).items()})
    if torch is not None:
        print(f"torch {torch.__version__}, threads: {torch.get_num_threads()}")
    print(f"  {'case':30s} {'minflow ms':>11s} {'torch ms':>9s} {'ratio':>6s}")
    timed = best_ms(fns)
    report("malloc with default settings:", timed)
    if keep_freed_memory():
        timed = best_ms(fns)
        report("freed memory kept in the process (glibc mallopt):", timed)
    if torch is not None:
        ratio = timed["minflow step"] / timed["torch step"]
        print(f"target: training step <= {TARGET}x torch (last setting): "
              f"{'ok' if ratio <= TARGET else 'MISSED'} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
