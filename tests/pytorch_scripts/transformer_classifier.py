"""A Transformer text classifier as often written: Embedding scaled by sqrt(d_model) plus a
sinusoidal positional encoding, a batch_first nn.TransformerEncoder given the padding as
src_key_padding_mask, mean pooling over all positions, a Linear head; Adam with a linear
warmup by LambdaLR, clip_grad_norm_. Evaluated in eval() under torch.no_grad(), where
PyTorch runs the encoder on nested tensors: padded positions come out as zeros and so
count as zeros in the mean (training computes them)."""
import math

from . import load_numpy_state, numpy_state
from .data_pipeline import PAD, VOCAB, TokenDataset, collate_batch


def define(torch):
    nn = torch.nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=64):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(1, max_len, d_model)
            pe[0, :, 0::2] = torch.sin(position * div_term)
            pe[0, :, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):
            return x + self.pe[:, :x.size(1)]

    class TransformerClassifier(nn.Module):
        def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, num_class):
            super().__init__()
            self.d_model = d_model
            self.embedding = nn.Embedding(ntoken, d_model, padding_idx=PAD)
            self.pos_encoder = PositionalEncoding(d_model)
            encoder_layers = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0,
                                                        batch_first=True)
            self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers)
            self.fc = nn.Linear(d_model, num_class)

        def forward(self, src, src_key_padding_mask):
            x = self.embedding(src) * math.sqrt(self.d_model)
            x = self.pos_encoder(x)
            x = self.transformer_encoder(x, src_key_padding_mask=src_key_padding_mask)
            return self.fc(x.mean(dim=1))

    return TransformerClassifier


def main(torch, epochs=4, state=None, device="cpu", warmup=4):
    torch.manual_seed(0)
    device = torch.device(device)
    data = torch.utils.data
    dataset = TokenDataset(torch, 160, seed=8)

    def collate(batch):
        return collate_batch(torch, batch)

    train_loader = data.DataLoader(data.Subset(dataset, range(128)), batch_size=16,
                                   collate_fn=collate)
    test_loader = data.DataLoader(data.Subset(dataset, range(128, 160)), batch_size=16,
                                  collate_fn=collate)

    model = define(torch)(VOCAB, 16, 2, 32, 2, 3).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                  lambda step: min(1.0, (step + 1) / warmup))

    def evaluate(loader):
        model.eval()
        total_loss, correct = 0.0, 0
        with torch.no_grad():
            for batch in loader:
                padding = ~batch["mask"].to(device)
                logits = model(batch["tokens"].to(device), src_key_padding_mask=padding)
                labels = batch["labels"].to(device)
                total_loss += criterion(logits, labels).item() * labels.size(0)
                correct += (logits.argmax(1) == labels).sum().item()
        return total_loss / len(loader.dataset), correct

    losses, tests, train_evals = [], [], []
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            padding = ~batch["mask"].to(device)
            logits = model(batch["tokens"].to(device), src_key_padding_mask=padding)
            loss = criterion(logits, batch["labels"].to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
        tests.append(evaluate(test_loader))
        train_evals.append(evaluate(train_loader))
    return {"losses": losses, "tests": tests, "train_evals": train_evals, "state": initial}
