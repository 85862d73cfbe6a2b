"""Train a two-layer MLP on a synthetic two-spirals problem with minflow's eager autograd.

Run: python examples/train_mlp.py [--steps N]
Prints the loss as it falls and the final test accuracy.
"""
import argparse
import math

import numpy as np

import minflow
import minflow.nn.functional as F


def spirals(n, rng):
    """Two interleaved spirals: a classic problem no linear model solves."""
    t = rng.uniform(0.25, 1.0, n) * 3 * math.pi
    label = rng.integers(0, 2, n)
    sign = np.where(label == 0, 1.0, -1.0)
    x = np.stack([sign * t * np.cos(t), sign * t * np.sin(t)], 1) / (3 * math.pi)
    x += rng.normal(0, 0.02, x.shape)
    return x.astype(np.float32), label.astype(np.int64)


def init_linear(fan_in, fan_out):
    bound = 1 / math.sqrt(fan_in)
    w = minflow.rand(fan_out, fan_in) * (2 * bound) - bound
    b = minflow.rand(fan_out) * (2 * bound) - bound
    return w.requires_grad_(), b.requires_grad_()


def train(steps=1500, hidden=64, lr=0.5, seed=0, log_every=250):
    minflow.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x_train, y_train = spirals(2000, rng)
    x_test, y_test = spirals(500, rng)
    params = [*init_linear(2, hidden), *init_linear(hidden, hidden), *init_linear(hidden, 2)]

    def model(x):
        w1, b1, w2, b2, w3, b3 = params
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        return F.linear(h, w3, b3)

    x, y = minflow.tensor(x_train), minflow.tensor(y_train)
    losses = []
    for step in range(steps):
        loss = F.cross_entropy(model(x), y)
        for p in params:
            p.grad = None
        loss.backward()
        with minflow.no_grad():
            for p in params:
                p.sub_(p.grad * lr)
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:5d}  loss {losses[-1]:.4f}")
    with minflow.no_grad():
        pred = model(minflow.tensor(x_test)).numpy().argmax(1)
    accuracy = float((pred == y_test).mean())
    return losses, accuracy


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1500)
    args = parser.parse_args()
    _, accuracy = train(args.steps)
    print(f"test accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
