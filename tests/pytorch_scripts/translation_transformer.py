"""The PyTorch "language translation with nn.Transformer" tutorial on a toy parallel corpus
(each target sentence is the source with every word mapped to a word of a second
vocabulary; sentences of 2..6 words):
token Embedding scaled by sqrt(emb_size), a PositionalEncoding module with a registered
buffer, nn.Transformer (sequence-first as in the tutorial, or batch_first=True), a causal
target mask and source/target/memory key padding masks from PAD, sentences batched by
pad_sequence in a DataLoader collate_fn, CrossEntropyLoss(ignore_index=PAD_IDX),
Adam(betas=(0.9, 0.98), eps=1e-9), xavier_uniform_ on every matrix, and greedy decoding
of a few source sentences at the end."""
import math

import numpy as np

from . import load_numpy_state, numpy_state

UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3
SRC_VOCAB_SIZE, TGT_VOCAB_SIZE = 12, 12
# Make sure the tokens are in order of their indices to properly insert them in vocab
special_symbols = ['<unk>', '<pad>', '<bos>', '<eos>']
TGT_ITOS = special_symbols + [f"mot{i}" for i in range(TGT_VOCAB_SIZE - 4)]


def parallel_corpus(n, seed):
    """n (source, target) pairs of token-id lists: a source of 2..6 words from 4..11 and
    its translation, each word mapped by one fixed permutation."""
    mapping = 4 + np.random.default_rng(0).permutation(TGT_VOCAB_SIZE - 4)
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        source = rng.integers(4, SRC_VOCAB_SIZE, rng.integers(2, 7)).tolist()
        pairs.append((source, [int(mapping[w - 4]) for w in source]))
    return pairs


def define(torch, batch_first):
    nn = torch.nn
    Tensor = torch.Tensor

    # helper Module that adds positional encoding to the token embedding to introduce a
    # notion of word order.
    class PositionalEncoding(nn.Module):
        def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
            super(PositionalEncoding, self).__init__()
            den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
            pos = torch.arange(0, maxlen).reshape(maxlen, 1)
            pos_embedding = torch.zeros((maxlen, emb_size))
            pos_embedding[:, 0::2] = torch.sin(pos * den)
            pos_embedding[:, 1::2] = torch.cos(pos * den)
            pos_embedding = pos_embedding.unsqueeze(0 if batch_first else -2)

            self.dropout = nn.Dropout(dropout)
            self.register_buffer('pos_embedding', pos_embedding)

        def forward(self, token_embedding: Tensor):
            if batch_first:
                return self.dropout(token_embedding
                                    + self.pos_embedding[:, :token_embedding.size(1), :])
            return self.dropout(token_embedding
                                + self.pos_embedding[:token_embedding.size(0), :])

    # helper Module to convert tensor of input indices into corresponding tensor of token
    # embeddings
    class TokenEmbedding(nn.Module):
        def __init__(self, vocab_size: int, emb_size):
            super(TokenEmbedding, self).__init__()
            self.embedding = nn.Embedding(vocab_size, emb_size)
            self.emb_size = emb_size

        def forward(self, tokens: Tensor):
            return self.embedding(tokens.long()) * math.sqrt(self.emb_size)

    # Seq2Seq Network
    class Seq2SeqTransformer(nn.Module):
        def __init__(self, num_encoder_layers: int, num_decoder_layers: int, emb_size: int,
                     nhead: int, src_vocab_size: int, tgt_vocab_size: int,
                     dim_feedforward: int = 512, dropout: float = 0.1):
            super(Seq2SeqTransformer, self).__init__()
            self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead,
                                              num_encoder_layers=num_encoder_layers,
                                              num_decoder_layers=num_decoder_layers,
                                              dim_feedforward=dim_feedforward,
                                              dropout=dropout, batch_first=batch_first)
            self.generator = nn.Linear(emb_size, tgt_vocab_size)
            self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
            self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
            self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout,
                                                          maxlen=32)

        def forward(self, src: Tensor, trg: Tensor, src_mask: Tensor, tgt_mask: Tensor,
                    src_padding_mask: Tensor, tgt_padding_mask: Tensor,
                    memory_key_padding_mask: Tensor):
            src_emb = self.positional_encoding(self.src_tok_emb(src))
            tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
            outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                    src_padding_mask, tgt_padding_mask,
                                    memory_key_padding_mask)
            return self.generator(outs)

        def encode(self, src: Tensor, src_mask: Tensor):
            return self.transformer.encoder(self.positional_encoding(
                self.src_tok_emb(src)), src_mask)

        def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
            return self.transformer.decoder(self.positional_encoding(
                self.tgt_tok_emb(tgt)), memory, tgt_mask)

    return Seq2SeqTransformer


def main(torch, epochs=10, state=None, device="cpu", batch_first=False, batch_size=32,
         builtin_mask=False, lr=0.005, n_train=256, dropout=0.0):
    torch.manual_seed(0)
    DEVICE = torch.device(device)
    nn = torch.nn
    pad_sequence = torch.nn.utils.rnn.pad_sequence
    DataLoader = torch.utils.data.DataLoader
    seq_dim = 1 if batch_first else 0

    def generate_square_subsequent_mask(sz):
        if builtin_mask:
            return nn.Transformer.generate_square_subsequent_mask(sz, device=DEVICE)
        mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1,
                                                                               float(0.0))
        return mask

    def create_mask(src, tgt):
        src_seq_len = src.shape[seq_dim]
        tgt_seq_len = tgt.shape[seq_dim]

        tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
        src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)

        if batch_first:
            return src_mask, tgt_mask, src == PAD_IDX, tgt == PAD_IDX
        src_padding_mask = (src == PAD_IDX).transpose(0, 1)
        tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
        return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask

    # function to add BOS/EOS and create tensor for input sequence indices
    def tensor_transform(token_ids):
        return torch.cat((torch.tensor([BOS_IDX]),
                          torch.tensor(token_ids),
                          torch.tensor([EOS_IDX])))

    # function to collate data samples into batch tensors
    def collate_fn(batch):
        src_batch, tgt_batch = [], []
        for src_sample, tgt_sample in batch:
            src_batch.append(tensor_transform(src_sample))
            tgt_batch.append(tensor_transform(tgt_sample))

        src_batch = pad_sequence(src_batch, padding_value=PAD_IDX, batch_first=batch_first)
        tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX, batch_first=batch_first)
        return src_batch, tgt_batch

    train_iter, val_iter = parallel_corpus(n_train, seed=3), parallel_corpus(32, seed=4)

    Seq2SeqTransformer = define(torch, batch_first)
    transformer = Seq2SeqTransformer(2, 2, 16, 2, SRC_VOCAB_SIZE, TGT_VOCAB_SIZE,
                                     dim_feedforward=32, dropout=dropout)
    for p in transformer.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    transformer = transformer.to(DEVICE)
    initial = numpy_state(transformer)
    if state is not None:
        load_numpy_state(torch, transformer, state)

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optimizer = torch.optim.Adam(transformer.parameters(), lr=lr, betas=(0.9, 0.98),
                                 eps=1e-9)

    def split_target(tgt):
        if batch_first:
            return tgt[:, :-1], tgt[:, 1:]
        return tgt[:-1, :], tgt[1:, :]

    def train_epoch(model, optimizer, log):
        model.train()
        losses = 0
        train_dataloader = DataLoader(train_iter, batch_size=batch_size,
                                      collate_fn=collate_fn)

        for src, tgt in train_dataloader:
            src = src.to(DEVICE)
            tgt = tgt.to(DEVICE)

            tgt_input, tgt_out = split_target(tgt)

            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src,
                                                                                 tgt_input)

            logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask,
                           tgt_padding_mask, src_padding_mask)

            optimizer.zero_grad()

            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            loss.backward()

            optimizer.step()
            losses += loss.item()
            log.append(loss.item())

        return losses / len(list(train_dataloader))

    def evaluate(model):
        model.eval()
        losses = 0

        val_dataloader = DataLoader(val_iter, batch_size=batch_size, collate_fn=collate_fn)

        for src, tgt in val_dataloader:
            src = src.to(DEVICE)
            tgt = tgt.to(DEVICE)

            tgt_input, tgt_out = split_target(tgt)

            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src,
                                                                                 tgt_input)

            logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask,
                           tgt_padding_mask, src_padding_mask)

            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            losses += loss.item()

        return losses / len(list(val_dataloader))

    # function to generate output sequence using greedy algorithm
    def greedy_decode(model, src, src_mask, max_len, start_symbol):
        src = src.to(DEVICE)
        src_mask = src_mask.to(DEVICE)

        memory = model.encode(src, src_mask)
        ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
        for i in range(max_len - 1):
            memory = memory.to(DEVICE)
            tgt_mask = (generate_square_subsequent_mask(ys.size(seq_dim))
                        .type(torch.bool)).to(DEVICE)
            out = model.decode(ys, memory, tgt_mask)
            if not batch_first:
                out = out.transpose(0, 1)
            prob = model.generator(out[:, -1])
            _, next_word = torch.max(prob, dim=1)
            next_word = next_word.item()

            ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)],
                           dim=seq_dim)
            if next_word == EOS_IDX:
                break
        return ys

    # actual function to translate input sentence into target language
    def translate(model, src_sentence):
        model.eval()
        src = tensor_transform(src_sentence).view(-1, 1)
        if batch_first:
            src = src.t()
        num_tokens = src.numel()
        src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
        tgt_tokens = greedy_decode(model, src, src_mask, max_len=num_tokens + 5,
                                   start_symbol=BOS_IDX).flatten()
        decoded_ids.append(tgt_tokens.tolist())
        return " ".join(TGT_ITOS[i] for i in list(tgt_tokens.cpu().numpy())).replace(
            "<bos>", "").replace("<eos>", "")

    losses, train_losses, val_losses, decoded_ids = [], [], [], []
    for epoch in range(1, epochs + 1):
        train_losses.append(train_epoch(transformer, optimizer, losses))
        val_losses.append(evaluate(transformer))
    with torch.no_grad():
        translations = [translate(transformer, src) for src, _ in val_iter[:4]]
        expected = [" ".join(TGT_ITOS[i] for i in tgt) for _, tgt in val_iter[:4]]
    return {"losses": losses, "train_losses": train_losses, "val_losses": val_losses,
            "decoded_ids": decoded_ids, "translations": translations, "references": expected,
            "state": initial}
