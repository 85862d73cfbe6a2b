"""pytorch/examples mnist/main.py, scaled down: a CNN with dropout trained by Adadelta
under StepLR, tested with a summed NLL and an accuracy count, saved and reloaded."""
import os

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self, dropout):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, 1)
            self.conv2 = nn.Conv2d(8, 16, 3, 1)
            self.dropout1 = nn.Dropout(dropout[0])
            self.dropout2 = nn.Dropout(dropout[1])
            self.fc1 = nn.Linear(16 * 6 * 6, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output

    return Net


def train(torch, model, device, train_loader, optimizer, log):
    F = torch.nn.functional
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        log.append(loss.item())


def test(torch, model, device, test_loader):
    F = torch.nn.functional
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    return test_loss, correct


def main(torch, epochs=3, state=None, device="cpu", dropout=(0.25, 0.5), shuffle=False,
         save_dir=None):
    torch.manual_seed(1)
    device = torch.device(device)
    images, labels = digit_images(384, seed=1)
    images = (images - 0.1307) / 0.3081         # transforms.Normalize((0.1307,), (0.3081,))
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(x[:256], y[:256]), batch_size=64,
                                   shuffle=shuffle)
    test_loader = data.DataLoader(data.TensorDataset(x[256:], y[256:]), batch_size=100)

    model = define(torch)(dropout).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    losses, tests = [], []
    for epoch in range(1, epochs + 1):
        train(torch, model, device, train_loader, optimizer, losses)
        tests.append(test(torch, model, device, test_loader))
        scheduler.step()
    reloaded = None
    if save_dir is not None:
        path = os.path.join(save_dir, "mnist_cnn.pt")
        torch.save(model.state_dict(), path)
        fresh = define(torch)(dropout).to(device)
        fresh.load_state_dict(torch.load(path))
        reloaded = test(torch, fresh, device, test_loader)
    return {"losses": losses, "tests": tests, "reloaded": reloaded, "state": initial,
            "lr": scheduler.get_last_lr()}
