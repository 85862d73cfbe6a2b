"""A CIFAR-style ResNet (pytorch-cifar / torchvision basic blocks), scaled down: residual
blocks with strided 1x1 shortcuts, kaiming_normal_ init, AdaptiveAvgPool2d, SGD with
momentum and weight decay under CosineAnnealingLR, CrossEntropyLoss with label smoothing,
accuracy from ``outputs.max(1)``."""
from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, in_planes, planes, stride=1):
            super(BasicBlock, self).__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1,
                                   bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1,
                                   bias=False)
            self.bn2 = nn.BatchNorm2d(planes)

            self.shortcut = nn.Sequential()
            if stride != 1 or in_planes != self.expansion * planes:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride,
                              bias=False),
                    nn.BatchNorm2d(self.expansion * planes)
                )

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            out = F.relu(out)
            return out

    class ResNet(nn.Module):
        def __init__(self, block, num_blocks, num_classes=10):
            super(ResNet, self).__init__()
            self.in_planes = 8

            self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
            self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.linear = nn.Linear(16 * block.expansion, num_classes)

            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

        def _make_layer(self, block, planes, num_blocks, stride):
            strides = [stride] + [1] * (num_blocks - 1)
            layers = []
            for stride in strides:
                layers.append(block(self.in_planes, planes, stride))
                self.in_planes = planes * block.expansion
            return nn.Sequential(*layers)

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.layer1(out)
            out = self.layer2(out)
            out = self.avgpool(out)
            out = torch.flatten(out, 1)
            out = self.linear(out)
            return out

    return BasicBlock, ResNet


def main(torch, epochs=2, state=None, device="cpu"):
    torch.manual_seed(0)
    device = torch.device(device)
    images, labels = digit_images(160, size=12, classes=4, channels=3, seed=5)
    mean = images.mean(axis=(0, 2, 3), keepdims=True)
    std = images.std(axis=(0, 2, 3), keepdims=True)
    x = torch.from_numpy((images - mean) / std)
    y = torch.from_numpy(labels)
    data = torch.utils.data
    trainloader = data.DataLoader(data.TensorDataset(x[:128], y[:128]), batch_size=32)
    testloader = data.DataLoader(data.TensorDataset(x[128:], y[128:]), batch_size=32)

    BasicBlock, ResNet = define(torch)
    net = ResNet(BasicBlock, [1, 1], num_classes=4).to(device)
    initial = numpy_state(net)
    if state is not None:
        load_numpy_state(torch, net, state)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    def train(log):
        net.train()
        train_loss = 0
        correct = 0
        total = 0
        for batch_idx, (inputs, targets) in enumerate(trainloader):
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()

            train_loss += loss.item()
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
            log.append(loss.item())
        return train_loss / (batch_idx + 1), 100. * correct / total

    def test():
        net.eval()
        test_loss = 0
        correct = 0
        total = 0
        with torch.no_grad():
            for batch_idx, (inputs, targets) in enumerate(testloader):
                inputs, targets = inputs.to(device), targets.to(device)
                outputs = net(inputs)
                loss = criterion(outputs, targets)
                test_loss += loss.item()
                _, predicted = outputs.max(1)
                total += targets.size(0)
                correct += predicted.eq(targets).sum().item()
        return test_loss / (batch_idx + 1), 100. * correct / total

    losses, epochs_out, tests, lrs = [], [], [], []
    for epoch in range(epochs):
        epochs_out.append(train(losses))
        tests.append(test())
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    running = [net.bn1.running_mean.sum().item(), net.bn1.running_var.sum().item()]
    return {"losses": losses, "epochs": epochs_out, "tests": tests, "lrs": lrs,
            "running": running, "state": initial}
