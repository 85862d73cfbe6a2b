"""Train an MLP and a small CNN on scikit-learn's handwritten digits (8x8 images, 10 classes).

Run: python examples/train_digits.py [--model mlp|cnn|both] [--epochs N] [--device cpu|cuda]

The digits dataset ships inside scikit-learn, so nothing is downloaded. The script is
written the way a PyTorch script is: nn.Module models, a DataLoader, an optimizer, a
progress bar showing the loss, and the test accuracy at the end.
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import minflow
from minflow import nn, optim
from minflow.utils.data import DataLoader, TensorDataset


def digits(device, seed=0):
    """Train and test sets: images scaled to [0, 1], shape (N, 1, 8, 8); int64 labels."""
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[:, None]
    x_train, x_test, y_train, y_test = train_test_split(
        images, data.target, test_size=0.2, random_state=seed, stratify=data.target)
    as_tensor = lambda a: minflow.tensor(a, device=device)     # noqa: E731
    return (TensorDataset(as_tensor(x_train), as_tensor(y_train)),
            TensorDataset(as_tensor(x_test), as_tensor(y_test)))


def mlp():
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 128), nn.ReLU(),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, 10))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2))                                    # (N, 32, 4, 4)
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
            nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


MODELS = {"mlp": mlp, "cnn": CNN}


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with minflow.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return correct / total


def train(name, epochs=30, batch_size=64, lr=3e-3, device="cpu", seed=0, progress=True):
    """Train model ``name`` ("mlp" or "cnn"); returns (loss per epoch, test accuracy)."""
    minflow.manual_seed(seed)
    train_set, test_set = digits(device, seed)
    loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    model = MODELS[name]().to(device)
    optimizer = optim.Adam(model.parameters(), lr=lr)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss()
    epoch_losses = []
    bar = tqdm(range(epochs), desc=name, disable=not progress)
    for _ in bar:
        model.train()
        total = 0.0
        for x, y in loader:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
        scheduler.step()
        epoch_losses.append(total / len(train_set))
        bar.set_postfix(loss=f"{epoch_losses[-1]:.4f}")
    return epoch_losses, evaluate(model, DataLoader(test_set, batch_size=256))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    for name in (["mlp", "cnn"] if args.model == "both" else [args.model]):
        start = time.perf_counter()
        _, accuracy = train(name, epochs=args.epochs, device=args.device)
        print(f"{name}: test accuracy {accuracy:.4f} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
