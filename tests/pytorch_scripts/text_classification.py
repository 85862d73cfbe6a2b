"""The PyTorch "text classification with the torchtext library" tutorial on a synthetic
news corpus: a vocabulary built from the training texts, nn.EmbeddingBag(mode="mean") fed
the flat token ids of a batch with the offsets ``torch.tensor(offsets[:-1]).cumsum(dim=0)``,
a Linear head initialised by init.uniform_ / zero_, CrossEntropyLoss, SGD(lr=5),
StepLR(1.0, gamma=0.1) stepped only when validation accuracy drops, clip_grad_norm_(0.1),
and accuracy counted as ``(predicted_label.argmax(1) == label).sum().item()``.

Variants: ``bags="padded"`` feeds a 2-D batch padded by pad_sequence to an EmbeddingBag
with padding_idx (the pads are left out of each mean); ``bags="weighted"`` feeds
per_sample_weights (each token's inverse document frequency) to mode="sum"."""
import math
from collections import Counter

import numpy as np

from . import load_numpy_state, numpy_state

TOPICS = ["World", "Sports", "Business", "Sci/Tec"]


def news_corpus(n, seed):
    """n (label, text) pairs, labels 1..4 as in AG_NEWS: 4..14 words, about half of them
    from the label's own 10 topic words, the rest from 20 common words."""
    rng = np.random.default_rng(seed)
    common = [f"the{i}" for i in range(20)]
    items = []
    for _ in range(n):
        label = int(rng.integers(1, 5))
        words = []
        for _ in range(int(rng.integers(4, 15))):
            if rng.random() < 0.45:
                words.append(f"{TOPICS[label - 1].lower()}{rng.integers(10)}")
            else:
                words.append(common[rng.integers(20)])
        items.append((label, " ".join(words)))
    return items


def define(torch, bags, padding_idx):
    nn = torch.nn

    class TextClassificationModel(nn.Module):
        def __init__(self, vocab_size, embed_dim, num_class):
            super(TextClassificationModel, self).__init__()
            if bags == "weighted":
                self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="sum")
            elif bags == "padded":
                self.embedding = nn.EmbeddingBag(vocab_size, embed_dim,
                                                 padding_idx=padding_idx)
            else:
                self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
            self.fc = nn.Linear(embed_dim, num_class)
            self.init_weights()

        def init_weights(self):
            initrange = 0.5
            self.embedding.weight.data.uniform_(-initrange, initrange)
            nn.init.uniform_(self.fc.weight, -initrange, initrange)
            self.fc.bias.data.zero_()

        def forward(self, text, offsets, weights=None):
            embedded = self.embedding(text, offsets, per_sample_weights=weights)
            return self.fc(embedded)

    return TextClassificationModel


def main(torch, epochs=6, state=None, device="cpu", bags="flat", batch_size=16):
    torch.manual_seed(0)
    device = torch.device(device)
    DataLoader = torch.utils.data.DataLoader

    train_iter, test_iter = news_corpus(240, seed=11), news_corpus(60, seed=12)
    tokenizer = str.split

    counter = Counter(word for _, text in train_iter for word in tokenizer(text))
    itos = ["<unk>", "<pad>"] + sorted(counter, key=lambda w: (-counter[w], w))
    stoi = {word: i for i, word in enumerate(itos)}
    documents = Counter(word for _, text in train_iter for word in set(tokenizer(text)))
    idf = [0.0, 0.0] + [math.log(len(train_iter) / documents[w]) for w in itos[2:]]

    def vocab(tokens):
        return [stoi.get(token, stoi["<unk>"]) for token in tokens]

    def text_pipeline(x):
        return vocab(tokenizer(x))

    def label_pipeline(x):
        return int(x) - 1

    def collate_batch(batch):
        label_list, text_list, offsets = [], [], [0]
        for _label, _text in batch:
            label_list.append(label_pipeline(_label))
            processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
            text_list.append(processed_text)
            offsets.append(processed_text.size(0))
        label_list = torch.tensor(label_list, dtype=torch.int64)
        if bags == "padded":
            text = torch.nn.utils.rnn.pad_sequence(text_list, batch_first=True,
                                                   padding_value=stoi["<pad>"])
            return label_list.to(device), text.to(device), None, None
        offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
        text_list = torch.cat(text_list)
        weights = torch.tensor(idf)[text_list] if bags == "weighted" else None
        return label_list.to(device), text_list.to(device), offsets.to(device), weights

    num_class = len(set([label for (label, text) in train_iter]))
    vocab_size = len(itos)
    emsize = 16
    model = define(torch, bags, stoi["<pad>"])(vocab_size, emsize, num_class).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)

    def train(dataloader, log):
        model.train()
        total_acc, total_count = 0, 0
        for idx, (label, text, offsets, weights) in enumerate(dataloader):
            optimizer.zero_grad()
            predicted_label = model(text, offsets, weights)
            loss = criterion(predicted_label, label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
            log.append(loss.item())
        return total_acc

    def evaluate(dataloader, log):
        model.eval()
        total_acc, total_count = 0, 0

        with torch.no_grad():
            for idx, (label, text, offsets, weights) in enumerate(dataloader):
                predicted_label = model(text, offsets, weights)
                loss = criterion(predicted_label, label)
                total_acc += (predicted_label.argmax(1) == label).sum().item()
                total_count += label.size(0)
                log.append(loss.item())
        return total_acc / total_count

    # Hyperparameters
    LR = 5  # learning rate

    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
    total_accu = None
    num_train = int(len(train_iter) * 0.8)
    split_train_, split_valid_ = train_iter[:num_train], train_iter[num_train:]

    train_dataloader = DataLoader(split_train_, batch_size=batch_size, shuffle=False,
                                  collate_fn=collate_batch)
    valid_dataloader = DataLoader(split_valid_, batch_size=batch_size, shuffle=False,
                                  collate_fn=collate_batch)
    test_dataloader = DataLoader(test_iter, batch_size=batch_size, shuffle=False,
                                 collate_fn=collate_batch)

    losses, valid_losses, train_correct, valid_accuracies, lrs = [], [], [], [], []
    for epoch in range(1, epochs + 1):
        train_correct.append(train(train_dataloader, losses))
        accu_val = evaluate(valid_dataloader, valid_losses)
        if total_accu is not None and total_accu > accu_val:
            scheduler.step()
        else:
            total_accu = accu_val
        valid_accuracies.append(accu_val)
        lrs.append(scheduler.get_last_lr()[0])
    test_accuracy = evaluate(test_dataloader, [])

    def predict(text, text_pipeline):
        with torch.no_grad():
            text = torch.tensor(text_pipeline(text))
            if bags == "padded":
                output = model(text.unsqueeze(0), None)
            else:
                weights = torch.tensor(idf)[text] if bags == "weighted" else None
                output = model(text, torch.tensor([0]), weights)
            return output.argmax(1).item() + 1

    model = model.to("cpu")
    predictions = [TOPICS[predict(text, text_pipeline) - 1] for _, text in test_iter[:6]]
    return {"losses": losses, "valid_losses": valid_losses, "train_correct": train_correct,
            "valid_accuracies": valid_accuracies, "lrs": lrs,
            "test_accuracy": test_accuracy, "predictions": predictions, "state": initial}
