"""ctc_loss forward and forward + backward against PyTorch's cpu kernel, in one run.

Run: python benchmarks/bench_ctc_loss.py [torch threads, default 1]   (needs torch; cpu)
minflow's numpy kernels run on one thread; torch's ctc loops split the batch over its
threads, and on a loaded machine its thread pool's waits swamp the timings. Both compute the same losses and gradients (tests/ops/test_ctc_loss.py). The two
libraries are timed in alternation, so other load on the machine falls on both alike; the
ratio is minflow's time / torch's, so above 1 means minflow is slower. minflow's backward
runs the alpha recursion again (it keeps no (T, N, 2S+1) table from the forward), beside
the beta one.
"""
import sys

import numpy as np
import torch

import minflow
from _timing import best_ms

# (T, N, C, S): input frames, batch, classes, longest target
CASES = [(50, 16, 20, 10), (200, 32, 30, 40), (100, 8, 500, 30)]


def inputs(lib, case, dtype, rng):
    steps, batch, classes, longest = case
    logits = rng.standard_normal((steps, batch, classes)).astype(dtype)
    log_probs = lib.tensor(logits).log_softmax(2).detach().requires_grad_()
    targets = lib.tensor(rng.integers(1, classes, (batch, longest)))
    target_lengths = lib.tensor(rng.integers(longest // 2, longest + 1, batch))
    input_lengths = lib.tensor(rng.integers(steps - steps // 4, steps + 1, batch))
    return log_probs, targets, input_lengths, target_lengths


def calls(lib, args):
    def forward():
        with lib.no_grad():
            lib.nn.functional.ctc_loss(*args)

    def forward_backward():
        lib.nn.functional.ctc_loss(*args).backward()
    return forward, forward_backward


def main(threads=1):
    torch.set_num_threads(threads)
    print(f"torch threads: {torch.get_num_threads()}")
    print(f"{'T, N, C, S':>18} {'dtype':>8} {'pass':>9} {'torch ms':>9} {'minflow ms':>11} "
          f"{'ratio':>6}")
    for case in CASES:
        for dtype in ("float32", "float64"):
            ours = calls(minflow, inputs(minflow, case, dtype, np.random.default_rng(0)))
            theirs = calls(torch, inputs(torch, case, dtype, np.random.default_rng(0)))
            for name, mine, torchs in zip(("fwd", "fwd+bwd"), ours, theirs):
                ms = best_ms({"torch": torchs, "minflow": mine}, number=10, repeat=7)
                print(f"{str(case):>18} {dtype:>8} {name:>9} {ms['torch']:>9.3f} "
                      f"{ms['minflow']:>11.3f} {ms['minflow'] / ms['torch']:>6.2f}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
