"""A sequence recogniser trained with CTC, as speech and OCR scripts do: frames of
features (T, N, F) padded to the longest input of the batch, a bidirectional GRU or LSTM
over pack_padded_sequence(enforce_sorted=False), a Linear layer and log_softmax(2) to
per-frame class log-probabilities, nn.CTCLoss(blank=0, zero_infinity=True) against the
label sequences (padded (N, S) or concatenated 1-D, with their lengths), Adam and
clip_grad_norm_. Greedy decoding (argmax per frame, repeats merged, blanks dropped)
counts the sequences read exactly.

The toy task: each label 1..K-1 shows as one to three noisy frames of its own pattern,
with blank (noise) frames between some of them; equal labels in a row are always split
by a noise frame, so the model has to learn to emit blank there."""
import numpy as np

from . import load_numpy_state, numpy_state

CLASSES, FEATURES, HIDDEN = 6, 8, 16       # class 0 is the blank


def make_data(n, rng, patterns, max_labels=5):
    """n (frames (T_i, F) float32, labels (S_i,) int64) pairs; patterns (C, F) per class."""
    data = []
    for _ in range(n):
        labels = rng.integers(1, CLASSES, rng.integers(1, max_labels + 1))
        frames = []
        for i, label in enumerate(labels):
            if rng.random() < 0.5 or (i and labels[i - 1] == label):
                frames.append(patterns[0])
            frames.extend([patterns[label]] * int(rng.integers(1, 4)))
        frames = np.array(frames) + 0.3 * rng.standard_normal((len(frames), FEATURES))
        data.append((frames.astype(np.float32), labels.astype(np.int64)))
    return data


def greedy_decode(log_probs, lengths):
    """Per sample: argmax class per frame up to its length, repeats merged, blanks
    dropped."""
    best = log_probs.argmax(2).T.tolist()
    decoded = []
    for row, length in zip(best, lengths.tolist()):
        out, prev = [], 0
        for c in row[:length]:
            if c != prev and c != 0:
                out.append(c)
            prev = c
        decoded.append(out)
    return decoded


def main(torch, rnn_type="GRU", targets="padded", epochs=6, batch_size=16, state=None,
         seed=0):
    nn = torch.nn
    pack = nn.utils.rnn.pack_padded_sequence
    unpack = nn.utils.rnn.pad_packed_sequence
    pad_sequence = nn.utils.rnn.pad_sequence
    torch.manual_seed(0)

    class Recognizer(nn.Module):
        def __init__(self):
            super().__init__()
            rnn = nn.LSTM if rnn_type == "LSTM" else nn.GRU
            self.rnn = rnn(FEATURES, HIDDEN, bidirectional=True)
            self.fc = nn.Linear(2 * HIDDEN, CLASSES)

        def forward(self, frames, lengths):
            packed = pack(frames, lengths, enforce_sorted=False)
            out, _ = unpack(self.rnn(packed)[0])
            return self.fc(out).log_softmax(2)          # (T, N, C)

    rng = np.random.default_rng(seed)
    patterns = rng.standard_normal((CLASSES, FEATURES))
    patterns[0] = 0.0
    train, test = make_data(96, rng, patterns), make_data(32, rng, patterns)

    def collate(batch):
        frames = pad_sequence([torch.from_numpy(f) for f, _ in batch])
        input_lengths = torch.tensor([len(f) for f, _ in batch])
        labels = [torch.from_numpy(y) for _, y in batch]
        target_lengths = torch.tensor([len(y) for y in labels])
        if targets == "padded":
            target = pad_sequence(labels, batch_first=True, padding_value=-1)
        else:
            target = torch.cat(labels)
        return frames, input_lengths, target, target_lengths, [y.tolist() for y in labels]

    model = Recognizer()
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = nn.CTCLoss(blank=0, zero_infinity=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)

    def run_epoch(data, train_mode, log):
        model.train(train_mode)
        correct = 0
        for start in range(0, len(data), batch_size):
            frames, input_lengths, target, target_lengths, labels = collate(
                data[start:start + batch_size])
            with torch.set_grad_enabled(train_mode):
                log_probs = model(frames, input_lengths)
                loss = criterion(log_probs, target, input_lengths, target_lengths)
            if train_mode:
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
                optimizer.step()
            log.append(loss.item())
            decoded = greedy_decode(log_probs.detach(), input_lengths)
            correct += sum(d == y for d, y in zip(decoded, labels))
        return correct

    losses, test_losses, train_correct, test_correct = [], [], [], []
    for _ in range(epochs):
        train_correct.append(run_epoch(train, True, losses))
        test_correct.append(run_epoch(test, False, test_losses))
    return {"losses": losses, "test_losses": test_losses, "train_correct": train_correct,
            "test_correct": test_correct, "state": initial}
