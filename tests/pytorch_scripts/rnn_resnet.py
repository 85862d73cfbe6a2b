"""pytorch/examples mnist_rnn grown a ResNet-style head: an nn.LSTM (batch_first=True) reads
each digit row by row, its per-row outputs form a one-channel image that a small ResNet (a 3x3
stem and torchvision-style BasicBlocks: 3x3 convolutions, BatchNorm2d, a strided 1x1
downsample shortcut) classifies, with
nn.Dropout2d before the pooling; weights set by ``model.apply(init_weights)``
(kaiming_normal_(mode="fan_out", nonlinearity="relu") for convolutions, constant_ for
BatchNorm), CrossEntropyLoss with label smoothing, RMSprop(centered=True, momentum=0.9)
and CosineAnnealingWarmRestarts stepped at fractional epochs. Data: scikit-learn's
digits."""
from . import load_numpy_state, numpy_state, sklearn_digits


def define(torch):
    nn = torch.nn

    def conv3x3(in_planes, out_planes, stride=1):
        """3x3 convolution with padding"""
        return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1,
                         bias=False)

    def conv1x1(in_planes, out_planes, stride=1):
        """1x1 convolution"""
        return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = conv3x3(inplanes, planes, stride)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = conv3x3(planes, planes)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample
            self.stride = stride

        def forward(self, x):
            identity = x

            out = self.conv1(x)
            out = self.bn1(out)
            out = self.relu(out)

            out = self.conv2(out)
            out = self.bn2(out)

            if self.downsample is not None:
                identity = self.downsample(x)

            out += identity
            out = self.relu(out)

            return out

    class Net(nn.Module):
        def __init__(self, hidden_size=16, planes=8, num_classes=10, dropout=0.25):
            super(Net, self).__init__()
            self.rnn = nn.LSTM(input_size=8, hidden_size=hidden_size, batch_first=True)
            self.conv1 = conv3x3(1, planes)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.layer1 = BasicBlock(planes, planes)
            self.layer2 = BasicBlock(planes, 2 * planes, stride=2, downsample=nn.Sequential(
                conv1x1(planes, 2 * planes, stride=2), nn.BatchNorm2d(2 * planes)))
            self.dropout = nn.Dropout2d(dropout)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(2 * planes, num_classes)

        def forward(self, input):
            # Shape of input is (batch_size, 1, 8, 8): the RNN reads the 8 rows in turn
            input = input.reshape(-1, 8, 8)
            output, hidden = self.rnn(input)
            # the per-row outputs (batch_size, 8, hidden_size) as a one-channel image
            x = self.relu(self.bn1(self.conv1(output.unsqueeze(1))))
            x = self.layer1(x)
            x = self.layer2(x)
            x = self.dropout(x)
            x = self.avgpool(x)
            x = torch.flatten(x, 1)
            return self.fc(x)

    def init_weights(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)

    return Net, init_weights


def main(torch, epochs=4, state=None, device="cpu", dropout=0.0, batch_size=32, n_train=320,
         n_test=128):
    torch.manual_seed(7)
    device = torch.device(device)
    F = torch.nn.functional
    images, labels = sklearn_digits(n_train + n_test)
    images = (images - 0.3) / 0.4
    data = torch.utils.data
    dataset = data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    train_loader = data.DataLoader(data.Subset(dataset, range(n_train)), batch_size=batch_size)
    test_loader = data.DataLoader(data.Subset(dataset, range(n_train, n_train + n_test)),
                                  batch_size=batch_size)

    Net, init_weights = define(torch)
    model = Net(dropout=dropout).to(device)
    model.apply(init_weights)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=2e-3, alpha=0.9, momentum=0.9,
                                    centered=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2,
                                                                     T_mult=2, eta_min=1e-4)
    iters = len(train_loader)

    def train(epoch):
        model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            output = model(data)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            scheduler.step(epoch + batch_idx / iters)
            losses.append(loss.item())
            lrs.append(scheduler.get_last_lr()[0])

    def test():
        model.eval()
        test_loss = 0
        correct = 0
        with torch.no_grad():
            for data, target in test_loader:
                data, target = data.to(device), target.to(device)
                output = model(data)
                # sum up batch loss
                test_loss += F.cross_entropy(output, target, reduction='sum').item()
                # get the index of the max log-probability
                pred = output.argmax(dim=1, keepdim=True)
                correct += pred.eq(target.view_as(pred)).sum().item()
        return test_loss / len(test_loader.dataset), correct

    losses, lrs, tests = [], [], []
    for epoch in range(epochs):
        train(epoch)
        tests.append(test())
    return {"losses": losses, "lrs": lrs, "tests": tests, "state": initial}
