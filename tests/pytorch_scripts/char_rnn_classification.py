"""The PyTorch "NLP from scratch: classifying names with a character-level RNN" tutorial on
synthetic names: names made ASCII by unicodeToAscii, letters one-hot (lineToTensor), and
either a hand-written RNN module (i2h over ``torch.cat((input, hidden), 1)``, tanh, h2o,
LogSoftmax) trained one random name at a time as in the first edition, or the current
edition's nn.RNN + h2o + LogSoftmax trained on mini-batches of names whose losses are
summed; NLLLoss, the SGD step written by hand (``p.data.add_(p.grad.data,
alpha=-learning_rate)``, or ``p.add_(p.grad, alpha=-learning_rate)`` under no_grad),
guesses by ``output.topk(1)``, top-3 predictions by ``topk(3, 1, True)`` and a confusion
matrix accumulated by ``confusion[i][j] += 1`` on a zeros tensor, then row-normalised.

Random examples and batches come from a numpy generator passed in, so that both libraries
see the same ones."""
import string
import unicodedata

import numpy as np

from . import load_numpy_state, numpy_state

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)

SYLLABLES = {
    "Italian": ["ro", "si", "ni", "bel", "lo", "tti", "ca", "ri", "gio", "vanni"],
    "Japanese": ["ta", "ka", "mo", "to", "shi", "ya", "ma", "ki", "hi", "ro"],
    "Russian": ["ov", "sky", "iev", "vich", "kov", "ba", "zh", "enko", "ra", "tin"],
    "Spanish": ["ez", "gar", "cía", "lo", "pé", "mar", "tín", "ro", "dri", "guez"],
}
all_categories = sorted(SYLLABLES)
n_categories = len(all_categories)


def synthetic_names(n_per_category, seed):
    """{category: [names]}: 2..4 syllables of the category's own (some accented), some
    replaced by another category's, capitalised."""
    rng = np.random.default_rng(seed)
    names = {}
    for category in all_categories:
        lines = []
        for _ in range(n_per_category):
            parts = []
            for _ in range(int(rng.integers(2, 5))):
                source = category if rng.random() < 0.75 else all_categories[
                    rng.integers(n_categories)]
                parts.append(SYLLABLES[source][rng.integers(10)])
            lines.append("".join(parts).capitalize())
        names[category] = lines
    return names


# Turn a Unicode string to plain ASCII, thanks to https://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )


def define(torch):
    nn = torch.nn

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super(RNN, self).__init__()

            self.hidden_size = hidden_size

            self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, input, hidden):
            combined = torch.cat((input, hidden), 1)
            hidden = torch.tanh(self.i2h(combined))
            output = self.h2o(hidden)
            output = self.softmax(output)
            return output, hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size)

    class CharRNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super(CharRNN, self).__init__()

            self.rnn = nn.RNN(input_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, line_tensor):
            rnn_out, hidden = self.rnn(line_tensor)
            output = self.h2o(hidden[0])
            output = self.softmax(output)

            return output

    return RNN, CharRNN


def main(torch, rng, model="cell", state=None, n_iters=1000, plot_every=100,
         n_epoch=6, n_batch_size=16, learning_rate=0.05):
    torch.manual_seed(0)
    names = synthetic_names(30, seed=21)
    category_lines = {c: [unicodeToAscii(line) for line in lines]
                      for c, lines in names.items()}

    # Find letter index from all_letters, e.g. "a" = 0
    def letterToIndex(letter):
        return all_letters.find(letter)

    # Turn a line into a <line_length x 1 x n_letters>,
    # or an array of one-hot letter vectors
    def lineToTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li, letter in enumerate(line):
            tensor[li][0][letterToIndex(letter)] = 1
        return tensor

    def categoryFromOutput(output):
        top_n, top_i = output.topk(1)
        category_i = top_i[0].item()
        return all_categories[category_i], category_i

    def randomChoice(items):
        return items[rng.integers(0, len(items))]

    def randomTrainingExample():
        category = randomChoice(all_categories)
        line = randomChoice(category_lines[category])
        category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
        line_tensor = lineToTensor(line)
        return category, line, category_tensor, line_tensor

    RNN, CharRNN = define(torch)
    n_hidden = 32
    rnn = (RNN if model == "cell" else CharRNN)(n_letters, n_hidden, n_categories)
    initial = numpy_state(rnn)
    if state is not None:
        load_numpy_state(torch, rnn, state)
    criterion = torch.nn.NLLLoss()

    def evaluate(line_tensor):
        if model == "cell":
            hidden = rnn.initHidden()
            for i in range(line_tensor.size()[0]):
                output, hidden = rnn(line_tensor[i], hidden)
            return output
        return rnn(line_tensor)

    def train_cell(category_tensor, line_tensor):
        hidden = rnn.initHidden()

        rnn.zero_grad()

        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)

        loss = criterion(output, category_tensor)
        loss.backward()

        # Add parameters' gradients to their values, multiplied by learning rate
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)

        return output, loss.item()

    def train_batches(training_data):
        all_losses = []
        rnn.train()
        for iter in range(1, n_epoch + 1):
            rnn.zero_grad()  # clear the gradients
            current_loss = 0

            # create some minibatches
            batches = list(range(len(training_data)))
            rng.shuffle(batches)
            batches = np.array_split(batches, len(batches) // n_batch_size)

            for idx, batch in enumerate(batches):
                batch_loss = 0
                for i in batch:  # for each example in this batch
                    (label_tensor, text_tensor, label, text) = training_data[i]
                    output = rnn.forward(text_tensor)
                    loss = criterion(output, label_tensor)
                    batch_loss += loss

                # optimize parameters
                batch_loss.backward()
                torch.nn.utils.clip_grad_norm_(rnn.parameters(), 3)
                with torch.no_grad():
                    for p in rnn.parameters():
                        p.add_(p.grad, alpha=-learning_rate)
                rnn.zero_grad()

                current_loss += batch_loss.item() / len(batch)

            all_losses.append(current_loss / len(batches))
        return all_losses

    if model == "cell":
        current_loss = 0
        all_losses = []
        for iter in range(1, n_iters + 1):
            category, line, category_tensor, line_tensor = randomTrainingExample()
            output, loss = train_cell(category_tensor, line_tensor)
            current_loss += loss

            # Add current loss avg to list of losses
            if iter % plot_every == 0:
                all_losses.append(current_loss / plot_every)
                current_loss = 0
    else:
        training_data = [(torch.tensor([all_categories.index(c)], dtype=torch.long),
                          lineToTensor(line), c, line)
                         for c in all_categories for line in category_lines[c]]
        all_losses = train_batches(training_data)

    # Keep track of correct guesses in a confusion matrix
    confusion = torch.zeros(n_categories, n_categories)
    rnn.eval()
    with torch.no_grad():
        test_names = synthetic_names(10, seed=22)
        for category in all_categories:
            for line in test_names[category]:
                output = evaluate(lineToTensor(unicodeToAscii(line)))
                guess, guess_i = categoryFromOutput(output)
                category_i = all_categories.index(category)
                confusion[category_i][guess_i] += 1
    correct = int(confusion.diag().sum().item())

    # Normalize by dividing every row by its sum
    for i in range(n_categories):
        confusion[i] = confusion[i] / confusion[i].sum()

    def predict(input_line, n_predictions=3):
        with torch.no_grad():
            output = evaluate(lineToTensor(input_line))

            # Get top N categories
            topv, topi = output.topk(n_predictions, 1, True)
            predictions = []

            for i in range(n_predictions):
                value = topv[0][i].item()
                category_index = topi[0][i].item()
                predictions.append([value, all_categories[category_index]])
        return predictions

    return {"losses": all_losses, "correct": correct, "confusion": confusion.tolist(),
            "predictions": [predict(name) for name in ("Dovesky", "Jackson", "Satoshi")],
            "state": initial}
