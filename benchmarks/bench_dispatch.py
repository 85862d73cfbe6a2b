"""Dispatch and autograd overhead: minflow beside PyTorch CPU (and plain numpy).

Run: python benchmarks/bench_dispatch.py [--rounds N]
Targets (ratios against PyTorch measured in the same run):
  a + b on 4-element float32:           <= 2.0x PyTorch without grad, <= 2.6x with grad
  10 chained elementwise ops + sum + backward, per op: <= 0.9x PyTorch

Tiny tensors, so the figures are per-call overhead, not arithmetic. Each round times
every case once (minflow and PyTorch side by side, so load on the machine hits both);
a case's figure is its best round: noise only ever adds time.
"""
import argparse
import timeit

import numpy as np

import minflow

try:
    import torch
except ImportError:
    torch = None

CHAIN_OPS = 12      # the factory call, 10 elementwise ops and the sum: backward is counted in


def chain(lib, x):
    y = x * 1.5
    y = y + 0.5
    y = y.tanh()
    y = y * y
    y = y - 0.1
    y = y.exp()
    y = y / 3.0
    y = y.sigmoid()
    y = y + x
    y = y.abs()
    return y.sum()


def cases(lib):
    """name -> (zero-argument callable, calls per timing, divisor to get 'per op')."""
    a, b = lib.ones(4), lib.ones(4)
    ga, gb = lib.ones(4, requires_grad=True), lib.ones(4, requires_grad=True)

    def chain_step():
        chain(lib, lib.ones(64, requires_grad=True)).backward()

    def chain_forward():
        chain(lib, lib.ones(64, requires_grad=True))

    return {
        "a + b": (lambda: a + b, 5000, 1),
        "a + b, requires_grad": (lambda: ga + gb, 5000, 1),
        "chain + backward, per op": (chain_step, 200, CHAIN_OPS),
        "  of which forward, per op": (chain_forward, 200, CHAIN_OPS),
    }


TARGETS = {"a + b": 2.0, "a + b, requires_grad": 2.6, "chain + backward, per op": 0.9}


def measure(rounds):
    """Best time per call (microseconds) of every case, over ``rounds`` rounds."""
    libs = {"minflow": cases(minflow)}
    if torch is not None:
        torch.set_num_threads(1)
        libs["torch"] = cases(torch)
    a_np, b_np = np.ones(4, np.float32), np.ones(4, np.float32)
    libs["numpy"] = {"a + b": (lambda: a_np + b_np, 5000, 1)}
    best = {}
    for _ in range(rounds):
        for lib, table in libs.items():
            for name, (fn, number, per) in table.items():
                us = timeit.timeit(fn, number=number) / number / per * 1e6
                best[lib, name] = min(best.get((lib, name), us), us)
    return best


def report(best, rounds):
    print(f"best of {rounds} rounds, microseconds per call "
          f"(torch {torch.__version__ if torch else 'not installed'}, 1 thread)")
    print(f"{'case':28s} {'minflow':>8s} {'torch':>8s} {'ratio':>6s} {'target':>7s}")
    for name in cases(minflow):
        ours, theirs = best["minflow", name], best.get(("torch", name))
        ratio = ours / theirs if theirs else None
        target = TARGETS.get(name)
        verdict = "" if target is None or ratio is None else (
            "  ok" if ratio <= target else "  MISSED")
        print(f"{name:28s} {ours:8.2f} {theirs or float('nan'):8.2f} "
              f"{'-' if ratio is None else f'{ratio:.2f}':>6s} "
              f"{'' if target is None else f'<= {target}':>7s}{verdict}")
    print(f"(numpy a + b: {best['numpy', 'a + b']:.2f} us)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds to take the best of")
    args = parser.parse_args()
    for lib_cases in (cases(minflow),) + ((cases(torch),) if torch else ()):
        for fn, _, _ in lib_cases.values():       # warm caches (kernels, code paths)
            fn()
    report(measure(args.rounds), args.rounds)


if __name__ == "__main__":
    main()
