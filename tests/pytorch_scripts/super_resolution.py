"""pytorch/examples super_resolution, scaled down: an ESPCN-style Conv2d stack ending in
nn.PixelShuffle(upscale_factor), weights from init.orthogonal_ with
init.calculate_gain('relu'), MSELoss and Adam, and the average PSNR
(10 * log10(1 / mse)) on a held-out set, next to that of plain bicubic upsampling.
High-resolution images are scikit-learn's digits enlarged to 16x16 (bicubic
``F.interpolate``); the low-resolution inputs are those shrunk by ``F.avg_pool2d`` or by
antialiased bicubic ``F.interpolate``."""
from math import log10

from . import load_numpy_state, numpy_state, sklearn_digits


def define(torch):
    nn = torch.nn
    init = torch.nn.init

    class Net(nn.Module):
        def __init__(self, upscale_factor):
            super(Net, self).__init__()

            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
            self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
            self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

            self._initialize_weights()

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.relu(self.conv2(x))
            x = self.relu(self.conv3(x))
            x = self.pixel_shuffle(self.conv4(x))
            return x

        def _initialize_weights(self):
            init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv4.weight)

    return Net


def make_dataset(torch, images, upscale_factor, downsample):
    """(input, target) tensors: targets are the digits enlarged to 16x16, inputs those
    shrunk by ``upscale_factor``."""
    F = torch.nn.functional
    target = F.interpolate(torch.from_numpy(images), scale_factor=2, mode="bicubic",
                           align_corners=False).clamp(0, 1)
    if downsample == "avg_pool":
        input = F.avg_pool2d(target, upscale_factor)
    else:   # as the example's Resize of PIL images: antialiased bicubic
        input = F.interpolate(target, scale_factor=1 / upscale_factor, mode="bicubic",
                              align_corners=False, antialias=True)
    return torch.utils.data.TensorDataset(input, target)


def main(torch, epochs=4, upscale_factor=2, downsample="avg_pool", lr=0.01, state=None,
         device="cpu"):
    torch.manual_seed(123)
    device = torch.device(device)
    F = torch.nn.functional
    images, _ = sklearn_digits(320)
    data = torch.utils.data
    train_set = make_dataset(torch, images[:256], upscale_factor, downsample)
    test_set = make_dataset(torch, images[256:], upscale_factor, downsample)
    training_data_loader = data.DataLoader(dataset=train_set, batch_size=32, shuffle=False)
    testing_data_loader = data.DataLoader(dataset=test_set, batch_size=16, shuffle=False)

    model = define(torch)(upscale_factor=upscale_factor).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train():
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0].to(device), batch[1].to(device)

            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            losses.append(loss.item())
            loss.backward()
            optimizer.step()
        return epoch_loss / len(training_data_loader)

    def test(upsample=model):
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0].to(device), batch[1].to(device)

                prediction = upsample(input)
                mse = criterion(prediction, target)
                psnr = 10 * log10(1 / mse.item())
                avg_psnr += psnr
        return avg_psnr / len(testing_data_loader)

    def bicubic(input):
        return F.interpolate(input, scale_factor=upscale_factor, mode="bicubic",
                             align_corners=False).clamp(0, 1)

    losses, epoch_losses, psnrs = [], [], []
    for epoch in range(1, epochs + 1):
        epoch_losses.append(train())
        psnrs.append(test())
    return {"losses": losses, "epoch_losses": epoch_losses, "psnrs": psnrs,
            "bicubic_psnr": test(bicubic), "state": initial}
