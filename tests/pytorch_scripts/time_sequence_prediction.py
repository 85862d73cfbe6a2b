"""pytorch/examples time_sequence_prediction, scaled down: two stacked LSTMCells unrolled
by hand over sine waves in float64, trained with LBFGS and a closure, then asked to
predict ``future`` steps past the input."""
import numpy as np

from . import load_numpy_state, numpy_state

HIDDEN = 12


def define(torch):
    nn = torch.nn

    class Sequence(nn.Module):
        def __init__(self):
            super(Sequence, self).__init__()
            self.lstm1 = nn.LSTMCell(1, HIDDEN)
            self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
            self.linear = nn.Linear(HIDDEN, 1)

        def forward(self, input, future=0):
            outputs = []
            h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
            c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
            h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
            c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for i in range(future):  # if we should predict the future
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            outputs = torch.cat(outputs, dim=1)
            return outputs

    return Sequence


def sine_waves(n=12, length=20, period=4, seed=2):
    """generate_sine_wave.py of the example: shifted sine waves, float64 (n, length)."""
    rng = np.random.RandomState(seed)
    x = np.empty((n, length), 'int64')
    x[:] = np.array(range(length)) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype('float64')


def main(torch, steps=2, state=None, future=10, max_iter=6):
    # set random seed to 0
    np.random.seed(0)
    torch.manual_seed(0)
    # load data and make training set
    data = sine_waves()
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    # build the model
    seq = define(torch)()
    seq.double()
    initial = numpy_state(seq)
    if state is not None:
        load_numpy_state(torch, seq, state)
    criterion = torch.nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=max_iter)
    losses, test_losses = [], []
    # begin to train
    for i in range(steps):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            test_losses.append(loss.item())
            y = pred.detach().numpy()
    return {"losses": losses, "test_losses": test_losses,
            "prediction": [float(np.abs(y).mean())], "state": initial}
