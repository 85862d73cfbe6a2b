"""A hand-built data pipeline around a small sequence classifier: a map-style Dataset whose
``__getitem__`` returns dicts of variable-length token tensors, a collate_fn that pads them
with ``pad_sequence`` and builds a mask, class-balancing WeightedRandomSampler (weights
1 / class count) for training, SubsetRandomSampler for validation and a BatchSampler over a
SequentialSampler for the test set, all random samplers drawing from one seeded Generator;
an Embedding + masked mean pooling + MLP trained by Adam under MultiStepLR, with the
numbers kept in a plain metrics dict (no TensorBoard).

minflow's generator is not torch's Mersenne Twister, so the same seed gives other indices:
with ``orders`` (the index lists a torch run recorded in ``metrics["orders"]``) the samplers
are replaced by those lists, so both libraries see the same batches."""
from collections import Counter, defaultdict

import numpy as np

from . import load_numpy_state, numpy_state

VOCAB, PAD = 24, 0


class TokenDataset:
    """Variable-length token sequences (tokens 1..VOCAB-1, 0 is padding) and int labels:
    class 0 common, 1 and 2 rare; the class decides which tokens are frequent."""

    def __init__(self, torch, n, seed):
        rng = np.random.default_rng(seed)
        self.torch = torch
        self.labels = rng.choice(3, size=n, p=[0.7, 0.2, 0.1]).tolist()
        self.sequences = []
        for label in self.labels:
            length = int(rng.integers(3, 11))
            frequent = 1 + 6 * label + rng.integers(0, 6, length)
            noise = rng.integers(1, VOCAB, length)
            self.sequences.append(np.where(rng.random(length) < 0.6, frequent, noise))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        tokens = self.torch.as_tensor(self.sequences[idx], dtype=self.torch.long)
        return {"tokens": tokens, "label": self.labels[idx], "index": idx}


def collate_batch(torch, batch):
    """Pad the token sequences of a list of samples to one (B, T) tensor, with a mask."""
    tokens = [sample["tokens"] for sample in batch]
    lengths = torch.tensor([len(t) for t in tokens])
    padded = torch.nn.utils.rnn.pad_sequence(tokens, batch_first=True, padding_value=PAD)
    mask = torch.arange(padded.size(1))[None, :] < lengths[:, None]
    return {"tokens": padded, "mask": mask, "lengths": lengths,
            "labels": torch.tensor([sample["label"] for sample in batch]),
            "indices": [sample["index"] for sample in batch]}


def define(torch):
    nn = torch.nn

    class MeanPoolClassifier(nn.Module):
        def __init__(self, vocab_size, embed_dim, hidden, num_classes):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD)
            self.mlp = nn.Sequential(nn.Linear(embed_dim, hidden), nn.Tanh(),
                                     nn.Linear(hidden, num_classes))

        def forward(self, tokens, mask):
            embedded = self.embedding(tokens)                     # B, T, E
            mask = mask.unsqueeze(-1).to(embedded.dtype)
            pooled = (embedded * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
            return self.mlp(pooled)

    return MeanPoolClassifier


def main(torch, epochs=4, state=None, device="cpu", seed=2024, orders=None):
    torch.manual_seed(0)
    device = torch.device(device)
    data = torch.utils.data
    dataset = TokenDataset(torch, 240, seed=5)
    train_idx, val_idx, test_idx = list(range(160)), list(range(160, 200)), \
        list(range(200, 240))
    counts = Counter(dataset.labels[i] for i in train_idx)
    sample_weights = [0.0] * len(dataset)
    for i in train_idx:
        sample_weights[i] = 1.0 / counts[dataset.labels[i]]

    generator = torch.Generator().manual_seed(seed)

    def collate(batch):
        return collate_batch(torch, batch)

    def loaders(epoch):
        if orders is None:
            train_sampler = data.WeightedRandomSampler(sample_weights, num_samples=160,
                                                       replacement=True, generator=generator)
            val_sampler = data.SubsetRandomSampler(val_idx, generator=generator)
        else:
            train_sampler, val_sampler = orders[epoch]
        return (data.DataLoader(dataset, batch_size=32, sampler=train_sampler,
                                collate_fn=collate),
                data.DataLoader(dataset, batch_size=20, sampler=val_sampler,
                                collate_fn=collate))

    test_loader = data.DataLoader(
        dataset, collate_fn=collate,
        batch_sampler=data.BatchSampler(data.SequentialSampler(test_idx), batch_size=16,
                                        drop_last=False))

    model = define(torch)(VOCAB, 16, 32, 3).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 3], gamma=0.3)

    def evaluate(loader, record=None):
        model.eval()
        total_loss, correct, seen = 0.0, 0, 0
        with torch.no_grad():
            for batch in loader:
                logits = model(batch["tokens"].to(device), batch["mask"].to(device))
                labels = batch["labels"].to(device)
                total_loss += criterion(logits, labels).item() * labels.size(0)
                correct += (logits.argmax(1) == labels).sum().item()
                seen += labels.size(0)
                if record is not None:
                    record.extend(batch["indices"])
        return total_loss / seen, correct

    metrics = defaultdict(list)
    for epoch in range(epochs):
        train_loader, val_loader = loaders(epoch)
        model.train()
        train_order, sampled_labels = [], Counter()
        for batch in train_loader:
            optimizer.zero_grad()
            logits = model(batch["tokens"].to(device), batch["mask"].to(device))
            loss = criterion(logits, batch["labels"].to(device))
            loss.backward()
            optimizer.step()
            metrics["losses"].append(loss.item())
            train_order.extend(batch["indices"])
            sampled_labels.update(batch["labels"].tolist())
        val_order = []
        metrics["val"].append(evaluate(val_loader, val_order))
        metrics["sampled_labels"].append([sampled_labels[c] for c in range(3)])
        metrics["orders"].append((train_order, val_order))
        scheduler.step()
        metrics["lr"].append(scheduler.get_last_lr()[0])
    metrics["test"] = evaluate(test_loader)
    metrics["max_len"] = max(batch["tokens"].size(1) for batch in test_loader)
    metrics["state"] = initial
    return dict(metrics)
