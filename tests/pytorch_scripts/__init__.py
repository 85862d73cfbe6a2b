"""PyTorch training scripts in the style of pytorch/examples, each written as a function of
the module ``torch``: ``main(torch, ...)`` runs unchanged with ``torch`` or with ``minflow``.

Each ``main`` returns a dict of recorded numbers (losses, accuracies) and the model's
initial weights as numpy arrays; given ``state=`` (such arrays) it starts from those
weights instead, so two libraries can be compared step by step. Randomness that the
scripts would draw from torch's generator (dropout masks, noise, shuffling) is either off
or drawn from a numpy generator passed in, for the same reason.
"""
import numpy as np


def numpy_state(model):
    """The model's state_dict as numpy arrays (copies)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}


def load_numpy_state(torch, model, state):
    """Load numpy arrays (from ``numpy_state``) into ``model``."""
    model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()})


def digit_images(n, size=16, classes=10, channels=1, seed=0):
    """(images, labels): synthetic digit-like pictures in [0, 1], one smooth template per
    class plus noise, as float32 (n, channels, size, size) and int64 (n,)."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(-1, 1, size)
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    templates = []
    for c in range(classes):
        angle = np.pi * c / classes
        wave = np.cos(3 * (xx * np.cos(angle) + yy * np.sin(angle)) + c)
        templates.append(np.stack([np.roll(wave, k, axis=0) for k in range(channels)]))
    templates = (np.array(templates) + 1) / 2
    labels = rng.integers(0, classes, n)
    images = templates[labels] + 0.3 * rng.standard_normal((n, channels, size, size))
    return np.clip(images, 0, 1).astype(np.float32), labels.astype(np.int64)


def markov_text(n_words, vocab=30, seed=0):
    """A list of ``n_words`` words from a small random Markov chain (learnable structure)."""
    rng = np.random.default_rng(seed)
    transition = rng.dirichlet(np.full(vocab, 0.1), size=vocab)
    words, state = [], 0
    for _ in range(n_words):
        state = rng.choice(vocab, p=transition[state])
        words.append(f"w{state}")
    return words


def sklearn_digits(n=None):
    """(images, labels): scikit-learn's 8x8 handwritten digits scaled to [0, 1], float32
    (n, 1, 8, 8) and int64 (n,); the first ``n`` (all 1797 by default)."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images[:n] / 16.0).astype(np.float32)[:, None]
    return images, digits.target[:n].astype(np.int64)
