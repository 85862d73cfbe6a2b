"""An MLP training step, eager beside nn.Graph, measured in the same run.

Run: python benchmarks/bench_graph.py [--repeat N] [--steps N]
Step: MLP 784-256-256-10 with ReLU, cross-entropy (mean over the batch), SGD (lr 0.1,
momentum 0.9), float32: forward, loss, backward, update (and zero_grad in eager). Both
modes start from the same weights; eager and graph are timed in turn in each repeat (noise
falls on both alike) and a figure is the lowest median step time over the repeats.
"""
import argparse
import statistics
import time

import numpy as np

import minflow
from minflow import nn

SIZES = (784, 256, 256, 10)


def make(seed=0):
    minflow.manual_seed(seed)
    model = nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(),
                          nn.Linear(SIZES[1], SIZES[2]), nn.ReLU(),
                          nn.Linear(SIZES[2], SIZES[3]))
    return model, minflow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


class TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def eager_step(model, opt, x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def median_step(step, steps):
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(batch, repeat, steps):
    rng = np.random.default_rng(0)
    x = minflow.tensor(rng.standard_normal((batch, SIZES[0])), dtype=minflow.float32)
    y = minflow.tensor(rng.integers(0, SIZES[-1], batch))
    model, opt = make()
    gmodel, gopt = make()
    graph = TrainGraph(gmodel, gopt)
    start = time.perf_counter()
    graph(x, y)                                    # compiles
    compile_s = time.perf_counter() - start
    eager_step(model, opt, x, y)
    eager, graphed = [], []
    for _ in range(repeat):
        eager.append(median_step(lambda: eager_step(model, opt, x, y), steps))
        graphed.append(median_step(lambda: graph(x, y), steps))
    same = np.allclose(eager_step(model, opt, x, y).item(), graph(x, y).item(), rtol=1e-4)
    return min(eager), min(graphed), compile_s, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    print(f"MLP {'-'.join(map(str, SIZES))}, SGD momentum, float32, cpu "
          f"(lowest median over {args.repeat} repeats of {args.steps} steps)")
    print(f"{'batch':>6} {'eager ms':>9} {'graph ms':>9} {'eager/graph':>12} "
          f"{'compile ms':>11} {'same loss':>10}")
    for batch in (32, 256):
        eager, graphed, compile_s, same = bench(batch, args.repeat, args.steps)
        print(f"{batch:>6} {eager * 1e3:>9.3f} {graphed * 1e3:>9.3f} {eager / graphed:>12.2f} "
              f"{compile_s * 1e3:>11.1f} {str(same):>10}")


if __name__ == "__main__":
    main()
