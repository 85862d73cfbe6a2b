"""A small U-Net (Pytorch-UNet style) for binary segmentation: double conv blocks of
Conv2d/BatchNorm2d/ReLU, MaxPool2d down, one ConvTranspose2d and one bilinear
``F.interpolate(align_corners=False)`` up, skip connections joined with ``torch.cat`` (padded
with ``F.pad`` where sizes differ); loss = BCEWithLogitsLoss(pos_weight) + a soft Dice loss,
Adam under ReduceLROnPlateau stepped on the validation loss, and a (soft) validation
Dice score."""
import numpy as np

from . import load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class DoubleConv(nn.Module):
        """(convolution => [BN] => ReLU) * 2"""

        def __init__(self, in_channels, out_channels, mid_channels=None):
            super().__init__()
            if not mid_channels:
                mid_channels = out_channels
            self.double_conv = nn.Sequential(
                nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(mid_channels),
                nn.ReLU(inplace=True),
                nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(inplace=True)
            )

        def forward(self, x):
            return self.double_conv(x)

    class Down(nn.Module):
        """Downscaling with maxpool then double conv"""

        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.maxpool_conv = nn.Sequential(
                nn.MaxPool2d(2),
                DoubleConv(in_channels, out_channels)
            )

        def forward(self, x):
            return self.maxpool_conv(x)

    class Up(nn.Module):
        """Upscaling then double conv"""

        def __init__(self, in_channels, out_channels, bilinear=True):
            super().__init__()
            self.bilinear = bilinear
            if bilinear:
                self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
            else:
                self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2,
                                             stride=2)
                self.conv = DoubleConv(in_channels, out_channels)

        def forward(self, x1, x2):
            if self.bilinear:
                x1 = F.interpolate(x1, scale_factor=2, mode="bilinear", align_corners=False)
            else:
                x1 = self.up(x1)
            # input is CHW
            diffY = x2.size()[2] - x1.size()[2]
            diffX = x2.size()[3] - x1.size()[3]
            x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2,
                            diffY // 2, diffY - diffY // 2])
            x = torch.cat([x2, x1], dim=1)
            return self.conv(x)

    class UNet(nn.Module):
        def __init__(self, n_channels, n_classes):
            super(UNet, self).__init__()
            self.n_channels = n_channels
            self.n_classes = n_classes
            self.inc = DoubleConv(n_channels, 8)
            self.down1 = Down(8, 16)
            self.down2 = Down(16, 32)
            self.up1 = Up(32, 16, bilinear=False)
            self.up2 = Up(16 + 8, 8, bilinear=True)
            self.outc = nn.Conv2d(8, n_classes, kernel_size=1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down1(x1)
            x3 = self.down2(x2)
            x = self.up1(x3, x2)
            x = self.up2(x, x1)
            logits = self.outc(x)
            return logits

    return UNet


def blobs(n, size=18, seed=0):
    """(images, masks): noisy pictures of one or two discs, and the discs' masks, float32
    (n, 1, size, size) each. Foreground is a minority of pixels (hence pos_weight)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    images = np.empty((n, 1, size, size), np.float32)
    masks = np.zeros((n, 1, size, size), np.float32)
    for i in range(n):
        for _ in range(rng.integers(1, 3)):
            cy, cx = rng.uniform(3, size - 3, 2)
            r = rng.uniform(2, 4)
            masks[i, 0][(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = 1
        images[i, 0] = masks[i, 0] * 0.6 + 0.5 * rng.standard_normal((size, size))
    return images, masks


def dice_loss(torch, logits, target, epsilon=1e-6):
    """1 - the soft Dice coefficient of sigmoid(logits) and the target, averaged over the
    batch."""
    probs = torch.sigmoid(logits)
    sum_dim = (-1, -2, -3)
    inter = 2 * (probs * target).sum(dim=sum_dim)
    sets_sum = probs.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return 1 - dice.mean()


def main(torch, epochs=5, state=None, device="cpu"):
    torch.manual_seed(0)
    device = torch.device(device)
    images, masks = blobs(48, seed=4)
    data = torch.utils.data
    dataset = data.TensorDataset(torch.from_numpy(images), torch.from_numpy(masks))
    train_loader = data.DataLoader(data.Subset(dataset, range(32)), batch_size=16)
    val_loader = data.DataLoader(data.Subset(dataset, range(32, 48)), batch_size=16)

    model = define(torch)(n_channels=1, n_classes=1).to(device=device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    foreground = masks[:32].mean()
    pos_weight = torch.tensor([(1 - foreground) / foreground], dtype=torch.float32)
    criterion = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight.to(device))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=0,
                                                           factor=0.5, threshold=0.1)

    @torch.inference_mode()
    def evaluate():
        model.eval()
        dice_score, val_loss = 0, 0
        for image, mask_true in val_loader:
            image = image.to(device=device, dtype=torch.float32)
            mask_true = mask_true.to(device=device, dtype=torch.float32)
            mask_pred = model(image)
            val_loss += criterion(mask_pred, mask_true).item()
            # soft Dice: thresholding at 0.5 would flip pixels whose logit rounds to 0
            dice_score += 1 - dice_loss(torch, mask_pred, mask_true).item()
        model.train()
        return val_loss / len(val_loader), dice_score / max(len(val_loader), 1)

    losses, vals, lrs = [], [], []
    for epoch in range(1, epochs + 1):
        model.train()
        epoch_loss = 0
        for images_b, true_masks in train_loader:
            images_b = images_b.to(device=device, dtype=torch.float32,
                                   memory_format=torch.channels_last)
            true_masks = true_masks.to(device=device)
            masks_pred = model(images_b)
            loss = criterion(masks_pred, true_masks)
            loss += dice_loss(torch, masks_pred, true_masks)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
            losses.append(loss.item())
        val_loss, val_score = evaluate()
        scheduler.step(val_loss)
        vals.append((val_loss, val_score))
        lrs.append(optimizer.param_groups[0]["lr"])
    return {"losses": losses, "vals": vals, "lrs": lrs, "state": initial}
