"""nn.Graph training steps whose optimizer hyperparameters change every step, beside the
same steps with fixed hyperparameters, measured in one run.

Run: python benchmarks/bench_graph_hyperparams.py [--repeat N]
Model: the Transformer of examples/train_char_lm.py (vocab 40, context 32, d_model 64,
2 layers), batch 16, float32, cross-entropy. Optimizers: AdamW (OneCycleLR cycles lr and
beta1) and SGD momentum 0.9 (OneCycleLR cycles lr and momentum), each against the same
optimizer without a scheduler. The float hyperparameters are a graph input, so the
cycling steps should cost what the fixed ones do (target <= 1.05x) and compile one plan.
A figure is the lowest median over the repeats (bench_mlp.time_steps).
"""
import argparse
import importlib.util
import pathlib

import numpy as np

import minflow
from minflow import nn, optim
from bench_mlp import time_steps

TARGET = 1.05
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _char_lm():
    spec = importlib.util.spec_from_file_location("train_char_lm",
                                                  ROOT / "examples" / "train_char_lm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TrainGraph(nn.Graph):
    def __init__(self, model, opt, sched):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sched)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x).flatten(0, 1), y.flatten())
        loss.backward()
        return loss


OPTIMIZERS = {
    "adamw": lambda p: optim.AdamW(p, lr=3e-3, weight_decay=0.01),
    "sgd_momentum": lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
}


def graph_step(make_opt, cycle):
    """(step, graph): one training step through nn.Graph, its optimizer's hyperparameters
    cycled by OneCycleLR when ``cycle``."""
    minflow.manual_seed(0)
    model = _char_lm().CharTransformer(vocab=40, context=32, d_model=64, nhead=4, layers=2)
    opt = make_opt(model.parameters())
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=10 ** 7,
                                          pct_start=1e-6, cycle_momentum=True) \
        if cycle else None
    graph = TrainGraph(model, opt, sched)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 40, (16, 33))
    x, y = minflow.tensor(idx[:, :-1]), minflow.tensor(idx[:, 1:])
    return (lambda: graph(x, y)), graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds to take the best of")
    args = parser.parse_args()
    for name, make_opt in OPTIMIZERS.items():
        steps = {kind: graph_step(make_opt, kind == "cycled") for kind in ("fixed", "cycled")}
        ms = time_steps(steps, args.repeat, number=5)
        ratio = ms["cycled"] / ms["fixed"]
        plans = {kind: sum(line.startswith("compiling for") for line in graph.compile_log)
                 for kind, (_, graph) in steps.items()}
        verdict = "ok" if ratio <= TARGET and plans["cycled"] == 1 else "MISSED"
        print(f"{name:13s} fixed {ms['fixed']:7.2f} ms  cycled {ms['cycled']:7.2f} ms  "
              f"ratio {ratio:.2f}x (target <= {TARGET}x)  plans compiled: "
              f"{plans['fixed']} / {plans['cycled']}  {verdict}")


if __name__ == "__main__":
    main()
