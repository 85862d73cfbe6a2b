"""The PyTorch tutorial "Spatial Transformer Networks", scaled down: a localization network
regresses a 2x3 affine matrix (its last layer initialised to the identity transform with
``weight.data.zero_()`` and ``bias.data.copy_``), F.affine_grid + F.grid_sample warp the
input, then a small CNN with Dropout2d classifies; SGD, summed NLL test loss and accuracy
count. The digits are shifted and rotated at random (numpy), which the transformer learns
to undo."""
import numpy as np

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self, dropout):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d(dropout)
            self.fc1 = nn.Linear(20 * 4 * 4, 50)
            self.fc2 = nn.Linear(50, 10)
            self.dropout = dropout

            # Spatial transformer localization-network
            self.localization = nn.Sequential(
                nn.Conv2d(1, 8, kernel_size=7),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
                nn.Conv2d(8, 10, kernel_size=5),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True)
            )

            # Regressor for the 3 * 2 affine matrix
            self.fc_loc = nn.Sequential(
                nn.Linear(10 * 3 * 3, 32),
                nn.ReLU(True),
                nn.Linear(32, 3 * 2)
            )

            # Initialize the weights/bias with identity transformation
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

        # Spatial transformer network forward function
        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 10 * 3 * 3)
            theta = self.fc_loc(xs)
            theta = theta.view(-1, 2, 3)

            grid = F.affine_grid(theta, x.size(), align_corners=False)
            x = F.grid_sample(x, grid, align_corners=False)

            return x, theta

        def forward(self, x):
            # transform the input
            x, theta = self.stn(x)

            # Perform the usual forward pass
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 20 * 4 * 4)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, p=self.dropout, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1), theta

    return Net


def distorted_digits(n, seed):
    """28x28 digit pictures, each rotated by up to 25 degrees and shifted by up to 3 pixels
    (nearest-neighbour resampling in numpy), plus faint noise."""
    images, labels = digit_images(n, size=28, seed=seed)
    rng = np.random.default_rng(seed + 100)
    yy, xx = np.mgrid[0:28, 0:28] - 13.5
    out = np.zeros_like(images)
    for i in range(n):
        angle = np.deg2rad(rng.uniform(-25, 25))
        dy, dx = rng.uniform(-3, 3, 2)
        sy = np.cos(angle) * yy - np.sin(angle) * xx + 13.5 - dy
        sx = np.sin(angle) * yy + np.cos(angle) * xx + 13.5 - dx
        iy, ix = np.rint(sy).astype(int), np.rint(sx).astype(int)
        inside = (iy >= 0) & (iy < 28) & (ix >= 0) & (ix < 28)
        out[i, 0][inside] = images[i, 0][iy[inside], ix[inside]]
    # a little noise everywhere: constant patches would make max-pool ties that rounding
    # breaks differently in each library
    return (out + 0.05 * rng.standard_normal(out.shape)).astype(np.float32), labels


def main(torch, epochs=5, state=None, device="cpu", dropout=0.0):
    F = torch.nn.functional
    torch.manual_seed(0)
    device = torch.device(device)
    images, labels = distorted_digits(192, seed=21)
    images = (images - 0.1307) / 0.3081
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(x[:128], y[:128]), batch_size=64)
    test_loader = data.DataLoader(data.TensorDataset(x[128:], y[128:]), batch_size=64)

    model = define(torch)(dropout).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)

    def train(log, thetas):
        model.train()
        for batch_idx, (data_b, target) in enumerate(train_loader):
            data_b, target = data_b.to(device), target.to(device)

            optimizer.zero_grad()
            output, theta = model(data_b)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            log.append(loss.item())
            # how far the transforms moved from the identity
            identity = torch.tensor([[1.0, 0, 0], [0, 1.0, 0]], device=device)
            thetas.append((theta.detach() - identity).abs().mean().item())

    def test():
        with torch.no_grad():
            model.eval()
            test_loss = 0
            correct = 0
            for data_b, target in test_loader:
                data_b, target = data_b.to(device), target.to(device)
                output, _ = model(data_b)

                # sum up batch loss
                test_loss += F.nll_loss(output, target, reduction='sum').item()
                # get the index of the max log-probability
                pred = output.max(1, keepdim=True)[1]
                correct += pred.eq(target.view_as(pred)).sum().item()

            test_loss /= len(test_loader.dataset)
            return test_loss, correct

    losses, thetas, tests = [], [], []
    for epoch in range(1, epochs + 1):
        train(losses, thetas)
        tests.append(test())
    with torch.no_grad():
        warped, _ = model.stn(x[:8].to(device))
    return {"losses": losses, "thetas": thetas, "tests": tests,
            "warped": warped.sum().item(), "state": initial}
