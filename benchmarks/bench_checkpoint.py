"""Activation checkpointing's trade: peak memory and time of one training step of a deep
MLP, checkpointed (checkpoint_sequential, use_reentrant=False) against plain, in one run.

Run: python benchmarks/bench_checkpoint.py
Model: 16 x (Linear(1024 -> 1024) + GELU), batch 512, float32, cpu; 4 segments.
Memory (tracemalloc, numpy's allocations; the weights and their grads are allocated
before it starts): what the forward leaves alive for backward, and the peak over forward
+ backward. Time: best of 5 steps each, in alternation. Expect about 1/3 of the
activations kept (the boundaries plus the last, plain segment) and about 1.3x the time
(each checkpointed segment's forward runs twice). NOTE: the peak over the whole step
moves less: the engine holds each parameter's new grad until its AccumulateGrad node runs,
last, so the grads (as large as the weights here) add to it either way.
"""
import time
import tracemalloc

import minflow
import minflow.nn as nn
from minflow.utils.checkpoint import checkpoint_sequential

WIDTH, DEPTH, BATCH, SEGMENTS = 1024, 16, 512, 4


def step(model, x, checkpointed):
    out = checkpoint_sequential(model, SEGMENTS, x, use_reentrant=False) if checkpointed \
        else model(x)
    out.square().mean().backward()


def memory_mib(model, x, checkpointed):
    """(MiB alive after forward, peak MiB over the step)."""
    step(model, x, checkpointed)            # grads allocated before measuring
    tracemalloc.start()
    out = checkpoint_sequential(model, SEGMENTS, x, use_reentrant=False) if checkpointed \
        else model(x)
    kept = tracemalloc.get_traced_memory()[0]
    out.square().mean().backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return kept / 2 ** 20, peak / 2 ** 20


def best_seconds(model, x, repeat=5):
    best = {False: float("inf"), True: float("inf")}
    for _ in range(repeat):
        for checkpointed in (False, True):
            start = time.perf_counter()
            step(model, x, checkpointed)
            best[checkpointed] = min(best[checkpointed], time.perf_counter() - start)
    return best


def main():
    minflow.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(DEPTH) for m in (nn.Linear(WIDTH, WIDTH),
                                                                nn.GELU())])
    x = minflow.randn(BATCH, WIDTH, requires_grad=True)
    plain, ckpt = memory_mib(model, x, False), memory_mib(model, x, True)
    times = best_seconds(model, x)
    for i, what in enumerate(("kept after forward", "peak of the step")):
        print(f"{what:19s} plain {plain[i]:7.1f} MiB   checkpointed {ckpt[i]:7.1f} MiB   "
              f"ratio {ckpt[i] / plain[i]:.2f}")
    print(f"{'step time':19s} plain {times[False] * 1e3:7.1f} ms    checkpointed "
          f"{times[True] * 1e3:7.1f} ms    ratio {times[True] / times[False]:.2f}")


if __name__ == "__main__":
    main()
