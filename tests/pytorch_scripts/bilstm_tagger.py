"""A part-of-speech tagger in the style of the PyTorch "sequence models and LSTM networks"
tutorial, batched as people do next: word indices and tag indices of variable-length
sentences padded by nn.utils.rnn.pad_sequence(batch_first=True, padding_value=...), an
Embedding(padding_idx), a bidirectional GRU or LSTM over pack_padded_sequence(...,
batch_first=True, enforce_sorted=False), pad_packed_sequence back (optionally to a fixed
total_length), a Linear layer to tag scores, no CRF; the loss is
CrossEntropyLoss(reduction="none") times the padding mask, ``.sum() / mask.sum()``; Adam,
or SGD with momentum, and clip_grad_norm_. Accuracy is counted over real tokens only.

The synthetic language has words that are a noun in one sentence and a verb in another
("book", "run"), so the tagger needs the context on both sides."""
import numpy as np

from . import load_numpy_state, numpy_state

TAGS = ["<pad>", "DET", "ADJ", "NN", "V", "PREP"]
LEXICON = {
    "DET": ["the", "a", "every", "that"],
    "ADJ": ["big", "red", "old", "quick"],
    "NN": ["dog", "apple", "man", "book", "run", "park", "city"],
    "V": ["ate", "read", "saw", "book", "run", "likes"],
    "PREP": ["in", "near", "with"],
}


def tagged_sentences(n, seed):
    """n (words, tags) pairs from DET ADJ* NN V DET ADJ* NN (PREP DET NN)?."""
    rng = np.random.default_rng(seed)

    def pick(tag):
        return LEXICON[tag][rng.integers(len(LEXICON[tag]))], tag

    def noun_phrase():
        adjectives = [pick("ADJ") for _ in range(rng.integers(0, 3))]
        return [pick("DET")] + adjectives + [pick("NN")]

    data = []
    for _ in range(n):
        sentence = noun_phrase() + [pick("V")] + noun_phrase()
        if rng.random() < 0.4:
            sentence += [pick("PREP")] + noun_phrase()[::2]
        words, tags = zip(*sentence)
        data.append((list(words), list(tags)))
    return data


def define(torch, rnn_type, num_layers):
    nn = torch.nn
    pack_padded_sequence = nn.utils.rnn.pack_padded_sequence
    pad_packed_sequence = nn.utils.rnn.pad_packed_sequence

    class BiRNNTagger(nn.Module):
        def __init__(self, vocab_size, embedding_dim, hidden_dim, tagset_size, pad_idx):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab_size, embedding_dim,
                                                padding_idx=pad_idx)
            rnn = nn.LSTM if rnn_type == "LSTM" else nn.GRU
            self.rnn = rnn(embedding_dim, hidden_dim, num_layers=num_layers,
                           batch_first=True, bidirectional=True)
            self.hidden2tag = nn.Linear(2 * hidden_dim, tagset_size)

        def forward(self, sentences, lengths, total_length=None):
            embeds = self.word_embeddings(sentences)
            packed = pack_padded_sequence(embeds, lengths.cpu(), batch_first=True,
                                          enforce_sorted=False)
            packed_out, _ = self.rnn(packed)
            rnn_out, _ = pad_packed_sequence(packed_out, batch_first=True,
                                             total_length=total_length)
            return self.hidden2tag(rnn_out)

    return BiRNNTagger


def main(torch, rnn_type="LSTM", epochs=5, state=None, device="cpu", num_layers=1,
         optimizer_name="Adam", fixed_length=False, batch_size=16):
    torch.manual_seed(1)
    device = torch.device(device)
    nn = torch.nn
    pad_sequence = nn.utils.rnn.pad_sequence

    training_data = tagged_sentences(160, seed=31)
    test_data = tagged_sentences(40, seed=32)
    word_to_ix = {"<pad>": 0, "<unk>": 1}
    for sent, tags in training_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    tag_to_ix = {tag: i for i, tag in enumerate(TAGS)}
    WORD_PAD, TAG_PAD = word_to_ix["<pad>"], tag_to_ix["<pad>"]
    max_len = max(len(sent) for sent, _ in training_data + test_data)

    def prepare_sequence(seq, to_ix):
        idxs = [to_ix.get(w, 1) for w in seq]
        return torch.tensor(idxs, dtype=torch.long)

    def collate(batch):
        sentences = [prepare_sequence(sent, word_to_ix) for sent, _ in batch]
        tags = [prepare_sequence(tags, tag_to_ix) for _, tags in batch]
        lengths = torch.tensor([len(s) for s in sentences])
        sentences = pad_sequence(sentences, batch_first=True, padding_value=WORD_PAD)
        tags = pad_sequence(tags, batch_first=True, padding_value=TAG_PAD)
        if fixed_length:
            sentences = nn.functional.pad(sentences, (0, max_len - sentences.size(1)),
                                          value=WORD_PAD)
            tags = nn.functional.pad(tags, (0, max_len - tags.size(1)), value=TAG_PAD)
        return sentences.to(device), tags.to(device), lengths

    model = define(torch, rnn_type, num_layers)(len(word_to_ix), 12, 16, len(TAGS),
                                                WORD_PAD).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    loss_function = nn.CrossEntropyLoss(reduction="none")
    if optimizer_name == "Adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    train_loader = torch.utils.data.DataLoader(training_data, batch_size=batch_size,
                                               collate_fn=collate)
    test_loader = torch.utils.data.DataLoader(test_data, batch_size=batch_size,
                                              collate_fn=collate)

    def masked_loss(tag_scores, tags):
        mask = (tags != TAG_PAD).float()
        loss = loss_function(tag_scores.view(-1, tag_scores.size(-1)), tags.view(-1))
        return (loss * mask.view(-1)).sum() / mask.sum()

    def run_epoch(loader, train, log):
        model.train(train)
        correct = 0
        for sentences, tags, lengths in loader:
            total_length = sentences.size(1) if fixed_length else None
            with torch.set_grad_enabled(train):
                tag_scores = model(sentences, lengths, total_length)
                loss = masked_loss(tag_scores, tags)
            if train:
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
                optimizer.step()
            log.append(loss.item())
            mask = tags != TAG_PAD
            correct += ((tag_scores.argmax(dim=-1) == tags) & mask).sum().item()
        return correct

    losses, test_losses, train_correct, test_correct = [], [], [], []
    for epoch in range(epochs):
        train_correct.append(run_epoch(train_loader, True, losses))
        test_correct.append(run_epoch(test_loader, False, test_losses))

    # See what the scores are after training
    model.eval()
    with torch.no_grad():
        sentence = "the old man book a park near the city".split()
        inputs = prepare_sequence(sentence, word_to_ix).unsqueeze(0)
        tag_scores = model(inputs, torch.tensor([len(sentence)]))
        predicted = [TAGS[i] for i in tag_scores.argmax(-1)[0].tolist()]
    return {"losses": losses, "test_losses": test_losses, "train_correct": train_correct,
            "test_correct": test_correct, "predicted": predicted, "state": initial}
