"""The PyTorch seq2seq translation tutorial (batched version), on a toy task (reverse a
sequence): a GRU encoder, a GRU decoder with Bahdanau attention (bmm over the encoder
outputs), teacher forcing in training and greedy ``topk(1)`` decoding in evaluation,
NLLLoss with an ignore_index for padding, one Adam optimizer per network."""
import numpy as np

from . import load_numpy_state, numpy_state

SOS_token, EOS_token, PAD_token = 0, 1, 2
VOCAB, MAX_LENGTH = 12, 7


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.1):
            super(EncoderRNN, self).__init__()
            self.hidden_size = hidden_size
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            output, hidden = self.gru(embedded)
            return output, hidden

    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super(BahdanauAttention, self).__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.1):
            super(AttnDecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long,
                                        device=encoder_outputs.device).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs = []
            attentions = []

            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)

                if target_tensor is not None:
                    # Teacher forcing: Feed the target as the next input
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
                else:
                    # Without teacher forcing: use its own predictions as the next input
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()  # detach from history as input

            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            attentions = torch.cat(attentions, dim=1)

            return decoder_outputs, decoder_hidden, attentions

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))

            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)

            output, hidden = self.gru(input_gru, hidden)
            output = self.out(output)

            return output, hidden, attn_weights

    return EncoderRNN, AttnDecoderRNN


def pairs(n, seed):
    """(inputs, targets) int64 (n, MAX_LENGTH): random token strings of length 2..5 and
    their reverses, each followed by EOS and padded."""
    rng = np.random.default_rng(seed)
    inputs = np.full((n, MAX_LENGTH), PAD_token, dtype=np.int64)
    targets = inputs.copy()
    for row in range(n):
        length = rng.integers(2, MAX_LENGTH - 1)
        tokens = rng.integers(3, VOCAB, length)
        inputs[row, :length + 1] = np.append(tokens, EOS_token)
        targets[row, :length + 1] = np.append(tokens[::-1], EOS_token)
    return inputs, targets


def main(torch, epochs=3, state=None, device="cpu", dropout=0.1, hidden_size=16):
    torch.manual_seed(2)
    device = torch.device(device)
    inputs, targets = pairs(96, seed=6)
    train_data = torch.utils.data.TensorDataset(torch.LongTensor(inputs).to(device),
                                                torch.LongTensor(targets).to(device))
    train_dataloader = torch.utils.data.DataLoader(train_data, batch_size=32)

    EncoderRNN, AttnDecoderRNN = define(torch)
    encoder = EncoderRNN(VOCAB, hidden_size, dropout).to(device)
    decoder = AttnDecoderRNN(hidden_size, VOCAB, dropout).to(device)
    initial = {"encoder": numpy_state(encoder), "decoder": numpy_state(decoder)}
    if state is not None:
        load_numpy_state(torch, encoder, state["encoder"])
        load_numpy_state(torch, decoder, state["decoder"])

    encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.01)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
    criterion = torch.nn.NLLLoss(ignore_index=PAD_token)

    def train_epoch(log):
        encoder.train()
        decoder.train()
        total_loss = 0
        for data in train_dataloader:
            input_tensor, target_tensor = data

            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()

            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)

            loss = criterion(
                decoder_outputs.view(-1, decoder_outputs.size(-1)),
                target_tensor.view(-1)
            )
            loss.backward()

            encoder_optimizer.step()
            decoder_optimizer.step()

            total_loss += loss.item()
            log.append(loss.item())
        return total_loss / len(train_dataloader)

    def evaluate(input_tensor):
        encoder.eval()
        decoder.eval()
        with torch.no_grad():
            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs,
                                                                    encoder_hidden)
            _, topi = decoder_outputs.topk(1)
            decoded_ids = topi.squeeze()
        return decoded_ids, decoder_attn

    losses, epoch_losses = [], []
    for epoch in range(1, epochs + 1):
        epoch_losses.append(train_epoch(losses))
    decoded, attn = evaluate(train_data.tensors[0][:8])
    return {"losses": losses, "epoch_losses": epoch_losses,
            "decoded": decoded.tolist(), "attention": [attn.sum(dim=-1).mean().item(),
                                                       attn.max().item()],
            "state": initial}
