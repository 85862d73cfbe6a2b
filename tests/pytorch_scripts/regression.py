"""pytorch/examples regression/main.py: fit a polynomial with one Linear layer on
features [x, x^2, x^3, x^4], smooth_l1_loss, and a hand-written gradient step
(``param.data.add_(-0.1 * param.grad)``, ``fc.weight.grad.data.zero_()``)."""
import numpy as np

from . import load_numpy_state, numpy_state

POLY_DEGREE = 4


def main(torch, steps=40, state=None, seed=0):
    rng = np.random.default_rng(seed)
    W_target = torch.from_numpy(rng.standard_normal((POLY_DEGREE, 1)).astype(np.float32)) * 5
    b_target = torch.from_numpy(rng.standard_normal(1).astype(np.float32)) * 5

    def make_features(x):
        """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
        x = x.unsqueeze(1)
        return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)

    def f(x):
        """Approximated function."""
        return x.mm(W_target) + b_target.item()

    def poly_desc(W, b):
        """Creates a string description of a polynomial."""
        result = 'y = '
        for i, w in enumerate(W):
            result += '{:+.2f} x^{} '.format(w, i + 1)
        result += '{:+.2f}'.format(b[0])
        return result

    def get_batch(batch_size=32):
        """Builds a batch i.e. (x, f(x)) pair."""
        random = torch.from_numpy(rng.standard_normal(batch_size).astype(np.float32))
        x = make_features(random)
        y = f(x)
        return x, y

    # Define model (its initial weights, loaded into the other library, whatever ran before)
    torch.manual_seed(seed)
    fc = torch.nn.Linear(W_target.size(0), 1)
    initial = numpy_state(fc)
    if state is not None:
        load_numpy_state(torch, fc, state)

    losses = []
    for batch_idx in range(1, steps + 1):
        # Get data
        batch_x, batch_y = get_batch()

        # Reset gradients
        fc.zero_grad()

        # Forward pass
        output = torch.nn.functional.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        losses.append(loss)

        # Backward pass
        output.backward()

        # Apply gradients
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)

        # Stop criterion
        if loss < 1e-3:
            break
    fc.weight.grad.data.zero_()
    description = poly_desc(fc.weight.view(-1).tolist(), fc.bias.tolist())
    return {"losses": losses, "learned": [float(v) for v in fc.weight.view(-1).tolist()],
            "description": description, "state": initial}
