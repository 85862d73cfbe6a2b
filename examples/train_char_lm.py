"""A character-level language model: a small causal Transformer trained on English text.

Run: python examples/train_char_lm.py [--steps N] [--device cpu|cuda]

The text is the documentation of Python's standard library modules (their docstrings),
so it ships with Python and nothing is downloaded. The script reports the held-out loss
beside the unigram baseline (the entropy of the character frequencies: what a model that
ignores context achieves) and samples a few characters at the end.
"""
import argparse
import importlib
import inspect
import math

import numpy as np

import minflow
from minflow import nn, optim
import minflow.nn.functional as F

MODULES = ("argparse", "collections", "csv", "datetime", "decimal", "email", "functools",
           "http.client", "inspect", "json", "logging", "pathlib", "pickle", "random", "re",
           "shutil", "socket", "sqlite3", "string", "subprocess", "textwrap", "threading",
           "unittest", "urllib.request", "zipfile")


def corpus():
    """The docstrings of MODULES and their public classes and functions, as one string."""
    parts = []
    for name in MODULES:
        module = importlib.import_module(name)
        members = [obj for obj in vars(module).values()
                   if (inspect.isclass(obj) or inspect.isfunction(obj))
                   and obj.__module__ == name]
        for obj in [module, *members]:
            doc = inspect.getdoc(obj)
            if doc and len(doc) > 80:
                parts.append(doc)
    return "\n\n".join(dict.fromkeys(parts))      # drop repeats, keep order


class CharTransformer(nn.Module):
    def __init__(self, vocab, context, d_model=64, nhead=4, layers=2):
        super().__init__()
        self.token = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(context, d_model)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model,
                                       dropout=0.0, batch_first=True, norm_first=True)
            for _ in range(layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx):
        length = idx.shape[1]
        positions = minflow.arange(length, device=idx.device)
        h = self.token(idx) + self.position(positions)
        for block in self.blocks:
            h = block(h, is_causal=True, src_mask=causal_mask(length, idx.device))
        return self.head(self.norm(h))


def causal_mask(length, device):
    """-inf above the diagonal: position t attends to positions <= t only."""
    return minflow.full((length, length), float("-inf"), device=device).triu(1)


def batches(data, context, batch_size, rng):
    starts = rng.integers(0, len(data) - context - 1, batch_size)
    window = starts[:, None] + np.arange(context + 1)
    chunk = data[window]
    return chunk[:, :-1], chunk[:, 1:]


def unigram_entropy(data, vocab):
    """Cross-entropy (nats per char) of the character frequencies: the no-context baseline."""
    p = np.bincount(data, minlength=vocab) / len(data)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def train(steps=600, context=64, batch_size=32, lr=3e-3, device="cpu", seed=0, log_every=100):
    """Returns (held-out loss, unigram baseline, sample text)."""
    minflow.manual_seed(seed)
    rng = np.random.default_rng(seed)
    text = corpus()
    chars = sorted(set(text))
    data = np.array([chars.index(c) for c in text], dtype=np.int64)
    split = int(0.9 * len(data))
    train_data, test_data = data[:split], data[split:]
    model = CharTransformer(len(chars), context).to(device)
    optimizer = optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps)
    as_tensor = lambda a: minflow.tensor(a, device=device)     # noqa: E731
    for step in range(steps):
        x, y = map(as_tensor, batches(train_data, context, batch_size, rng))
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:4d}  loss {loss.item():.3f}")
    test_loss = evaluate(model, test_data, context, device, rng)
    return test_loss, unigram_entropy(train_data, len(chars)), sample(model, chars, context)


def evaluate(model, data, context, device, rng, batches_=20):
    model.eval()
    with minflow.no_grad():
        losses = []
        for _ in range(batches_):
            x, y = batches(data, context, 32, rng)
            logits = model(minflow.tensor(x, device=device))
            losses.append(F.cross_entropy(logits.flatten(0, 1),
                                          minflow.tensor(y, device=device).flatten()).item())
    model.train()
    return float(np.mean(losses))


def sample(model, chars, context, length=120, prompt="The "):
    """Greedy decoding from ``prompt``."""
    idx = [chars.index(c) for c in prompt if c in chars]
    model.eval()
    device = next(model.parameters()).device
    with minflow.no_grad():
        for _ in range(length):
            window = minflow.tensor([idx[-context:]], device=device)
            idx.append(int(model(window)[0, -1].argmax().item()))
    model.train()
    return "".join(chars[i] for i in idx)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    test_loss, baseline, text = train(args.steps, device=args.device)
    print(f"held-out loss {test_loss:.3f} nats/char vs unigram baseline {baseline:.3f} "
          f"({math.exp(test_loss):.1f} vs {math.exp(baseline):.1f} perplexity)")
    print("sample:", repr(text))


if __name__ == "__main__":
    main()
