"""Dispatch overhead: minflow beside hand-written numpy (and PyTorch CPU when installed).

Run: python benchmarks/bench_dispatch.py
Targets (ratios against PyTorch measured in the same run):
  a + b on 4-element float32:           <= 2.0x PyTorch without grad, <= 2.6x with grad
  10 chained elementwise ops + sum + backward, per op: <= 0.9x PyTorch
"""
import timeit

import numpy as np

import minflow

try:
    import torch
except ImportError:
    torch = None


def best_us(stmt, number):
    """Best of 7 repeats, in microseconds per call."""
    return min(timeit.repeat(stmt, number=number, repeat=7)) / number * 1e6


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


def chained_step(lib, make):
    x = make()
    chain(lib, x).backward()


def main():
    rows = []
    a_np, b_np = np.ones(4, np.float32), np.ones(4, np.float32)
    rows.append(("a + b, numpy", best_us(lambda: a_np + b_np, 20000), None))
    a, b = minflow.ones(4), minflow.ones(4)
    mf_plain = best_us(lambda: a + b, 20000)
    ga, gb = minflow.ones(4, requires_grad=True), minflow.ones(4, requires_grad=True)
    mf_grad = best_us(lambda: ga + gb, 20000)
    mf_chain = best_us(lambda: chained_step(minflow, lambda: minflow.ones(
        64, requires_grad=True)), 500) / 12
    if torch is not None:
        torch.set_num_threads(1)
        ta, tb = torch.ones(4), torch.ones(4)
        t_plain = best_us(lambda: ta + tb, 20000)
        tga, tgb = torch.ones(4, requires_grad=True), torch.ones(4, requires_grad=True)
        t_grad = best_us(lambda: tga + tgb, 20000)
        t_chain = best_us(lambda: chained_step(torch, lambda: torch.ones(
            64, requires_grad=True)), 500) / 12
    else:
        t_plain = t_grad = t_chain = None
    rows += [("a + b, minflow", mf_plain, t_plain, 2.0),
             ("a + b requires_grad, minflow", mf_grad, t_grad, 2.6),
             ("chain of 10 ops + sum + backward, per op", mf_chain, t_chain, 0.9)]
    print(f"{'case':45s} {'minflow us':>11s} {'torch us':>9s} {'ratio':>6s} {'target':>7s}")
    for row in rows[1:]:
        name, ours, theirs, target = row
        ratio = f"{ours / theirs:.2f}" if theirs else "-"
        print(f"{name:45s} {ours:11.2f} {theirs or float('nan'):9.2f} {ratio:>6s} "
              f"{'<= ' + str(target):>7s}")
    print(f"(numpy a + b: {rows[0][1]:.2f} us)")


if __name__ == "__main__":
    main()
