"""An MLP training step in eager mode: minflow beside hand-written numpy and PyTorch CPU.

Run: python benchmarks/bench_mlp.py [--repeat N]
Step: MLP 784-256-256-10 with ReLU, cross-entropy (mean over the batch), plain SGD
(lr 0.1), float32: forward, loss, backward, update, zero grads.
Targets: minflow <= 1.3x numpy at batch 32 and <= 1.1x numpy at batch 256; peak memory
of the step (tracemalloc, a step after warm-up) within 1.5x of the numpy step.

The numpy step is what one would write by hand: the forward matmuls and relu, a stable
log-softmax cross-entropy, the backward written out, SGD in place. All libraries are timed
in turn in each of several repeats (noise on a shared machine falls on all alike); a
figure is the lowest median over the repeats.
"""
import argparse
import statistics
import time
import timeit
import tracemalloc

import numpy as np

import minflow
import minflow.nn.functional as MF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

SIZES = (784, 256, 256, 10)
LR = 0.1
TARGETS = {32: 1.3, 256: 1.1}
MEMORY_TARGET = 1.5


def init_arrays(batch, seed=0):
    """Inputs, labels and (weight, bias) pairs, weights (out, in) as in torch."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], batch)
    params = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, y, params


# ---- the steps: each returns a zero-argument callable running one step, and its params ----

def numpy_step(batch):
    x, y, params = init_arrays(batch)
    rows = np.arange(batch)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        a1 = x @ w1.T
        a1 += b1
        np.maximum(a1, 0, out=a1)
        a2 = a1 @ w2.T
        a2 += b2
        np.maximum(a2, 0, out=a2)
        logits = a2 @ w3.T
        logits += b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -logp[rows, y].mean()
        # backward: d loss / d logits = (softmax - onehot) / batch
        grad = np.exp(logp)
        grad[rows, y] -= 1
        grad /= batch
        grads = [None] * 6
        grads[4], grads[5] = grad.T @ a2, grad.sum(axis=0)
        grad = grad @ w3
        grad *= a2 > 0
        grads[2], grads[3] = grad.T @ a1, grad.sum(axis=0)
        grad = grad @ w2
        grad *= a1 > 0
        grads[0], grads[1] = grad.T @ x, grad.sum(axis=0)
        for p, g in zip(params, grads):
            g *= LR
            p -= g
        return loss
    return step, params


def minflow_functional_step(batch):
    """minflow.nn.functional on raw parameter tensors, SGD written out."""
    x, y, arrays = init_arrays(batch)
    x, y = minflow.tensor(x), minflow.tensor(y)
    params = [minflow.tensor(a).requires_grad_() for a in arrays]

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = MF.relu(MF.linear(x, w1, b1))
        h = MF.relu(MF.linear(h, w2, b2))
        loss = MF.cross_entropy(MF.linear(h, w3, b3), y)
        loss.backward()
        with minflow.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        return loss
    return step, params


def minflow_module_step(batch):
    """minflow.nn.Sequential of Linear and ReLU, with optim.SGD (None where not there yet)."""
    nn, optim = getattr(minflow, "nn", None), getattr(minflow, "optim", None)
    if not (hasattr(nn, "Linear") and hasattr(nn, "Sequential") and hasattr(optim, "SGD")):
        return None
    x, y, arrays = init_arrays(batch)
    x, y = minflow.tensor(x), minflow.tensor(y)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    params = list(model.parameters())
    with minflow.no_grad():
        for p, a in zip(params, arrays):
            p.copy_(minflow.tensor(a))
    opt = optim.SGD(params, lr=LR)

    def step():
        loss = MF.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step, params


def torch_step(batch, device="cpu"):
    x, y, arrays = init_arrays(batch)
    x, y = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
    params = [torch.from_numpy(a.copy()).to(device).requires_grad_() for a in arrays]
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = TF.relu(TF.linear(x, w1, b1))
        h = TF.relu(TF.linear(h, w2, b2))
        loss = TF.cross_entropy(TF.linear(h, w3, b3), y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        sync()
        return loss.detach()
    return step, params


def as_numpy(p):
    if isinstance(p, np.ndarray):
        return p
    return p.detach().numpy()


def check_same(steps):
    """Run two steps of each and compare loss and parameters with the numpy step."""
    results = {}
    for name, (step, params) in steps.items():
        losses = [float(step()) for _ in range(2)]
        results[name] = losses, [as_numpy(p).copy() for p in params]
    ref_losses, ref_params = results["numpy"]
    for name, (losses, params) in results.items():
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-4, err_msg=f"{name}: loss")
        for i, (p, q) in enumerate(zip(params, ref_params)):
            np.testing.assert_allclose(p, q, rtol=1e-4, atol=1e-5,
                                       err_msg=f"{name}: parameter {i}")


def make_steps(batch):
    steps = {"numpy": numpy_step(batch), "minflow F": minflow_functional_step(batch)}
    module = minflow_module_step(batch)
    if module is not None:
        steps["minflow nn"] = module
    if torch is not None:
        steps["torch"] = torch_step(batch)
    return steps


def time_steps(steps, repeat, number):
    """{name: ms per step}, the lowest median of ``repeat`` rounds of 5 timings each."""
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeat):
        for name, (step, _) in steps.items():
            # NOTE: lets idle BLAS / OpenMP worker threads of the last library stop spinning
            time.sleep(0.1)
            step()
            runs = [timeit.timeit(step, number=number) / number for _ in range(5)]
            best[name] = min(best[name], statistics.median(runs) * 1e3)
    return best


def peak_memory(step):
    """Peak bytes allocated during one step beyond what was held before it."""
    step()
    step()
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds to take the best of")
    args = parser.parse_args()
    if torch is not None:
        print(f"torch {torch.__version__}, threads: {torch.get_num_threads()}")
    print(f"{'batch':>5s} {'step':12s} {'ms':>8s} {'x numpy':>8s} {'x torch':>8s} "
          f"{'peak MB':>8s} {'x numpy':>8s}")
    verdicts = []
    for batch in TARGETS:
        steps = make_steps(batch)
        check_same(steps)
        times = time_steps(steps, args.repeat, number=20 if batch <= 32 else 5)
        memory = {name: peak_memory(step) for name, (step, _) in steps.items()
                  if name != "torch"}
        for name in steps:
            ms = times[name]
            vs_torch = f"{ms / times['torch']:8.2f}" if "torch" in times else "       -"
            mem = (f"{memory[name] / 2**20:8.2f} {memory[name] / memory['numpy']:8.2f}"
                   if name in memory else f"{'-':>8s} {'-':>8s}")
            print(f"{batch:5d} {name:12s} {ms:8.3f} {ms / times['numpy']:8.2f} {vs_torch} "
                  f"{mem}")
        for name in (n for n in steps if n.startswith("minflow")):
            ratio = times[name] / times["numpy"]
            mem = memory[name] / memory["numpy"]
            verdicts.append(f"batch {batch} {name}: time {ratio:.2f}x numpy (target <= "
                            f"{TARGETS[batch]}) {'ok' if ratio <= TARGETS[batch] else 'MISSED'}"
                            f"; memory {mem:.2f}x numpy (target <= {MEMORY_TARGET}) "
                            f"{'ok' if mem <= MEMORY_TARGET else 'MISSED'}")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
