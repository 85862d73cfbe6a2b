"""A sequence classifier in the style of the torchtext / pytorch tutorials: an Embedding
(padding_idx), a bidirectional LSTM over packed variable-length sequences
(pack_padded_sequence with enforce_sorted=False, pad_packed_sequence), the final hidden
states of both directions into a Linear layer, CrossEntropyLoss, Adam and clip_grad_norm_.

The task: is the count of token 1 in the sequence larger than the count of token 2?"""
import numpy as np

from . import load_numpy_state, numpy_state

VOCAB, EMBED, HIDDEN, CLASSES, PAD = 6, 8, 12, 2, 0


def make_data(n, rng, max_len=9):
    lengths = rng.integers(2, max_len + 1, n)
    tokens = np.zeros((n, max_len), np.int64)
    labels = np.zeros(n, np.int64)
    for i, length in enumerate(lengths):
        seq = rng.integers(1, VOCAB, length)
        tokens[i, :length] = seq
        labels[i] = int((seq == 1).sum() > (seq == 2).sum())
    return tokens, lengths, labels


def main(torch, epochs=6, batch_size=16, state=None, seed=0):
    nn = torch.nn
    from_numpy = torch.from_numpy
    pack = torch.nn.utils.rnn.pack_padded_sequence
    unpack = torch.nn.utils.rnn.pad_packed_sequence

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=PAD)
            self.rnn = nn.LSTM(EMBED, HIDDEN, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(2 * HIDDEN, CLASSES)

        def forward(self, text, lengths):
            embedded = self.embedding(text)
            packed = pack(embedded, lengths, batch_first=True, enforce_sorted=False)
            packed_out, (hidden, cell) = self.rnn(packed)
            output, output_lengths = unpack(packed_out, batch_first=True)
            hidden = torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)
            return self.fc(hidden), output, output_lengths

    rng = np.random.default_rng(seed)
    tokens, lengths, labels = make_data(96, rng)
    model = Classifier()
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    criterion = nn.CrossEntropyLoss()

    losses, accuracies = [], []
    for epoch in range(epochs):
        correct = 0
        for start in range(0, len(tokens), batch_size):
            text = from_numpy(tokens[start:start + batch_size])
            text_lengths = from_numpy(lengths[start:start + batch_size])
            target = from_numpy(labels[start:start + batch_size])
            optimizer.zero_grad()
            logits, output, output_lengths = model(text, text_lengths)
            assert output.shape[1] == int(text_lengths.max())
            assert output_lengths.tolist() == text_lengths.tolist()
            loss = criterion(logits, target)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
            correct += int((logits.argmax(1) == target).sum().item())
        accuracies.append(correct)
    return {"losses": losses, "correct": accuracies, "state": initial}
