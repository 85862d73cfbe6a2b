"""pytorch/examples fast_neural_style, scaled down: the TransformerNet (ReflectionPad2d +
Conv2d layers, InstanceNorm2d(affine=True), residual blocks, UpsampleConvLayer with
nearest ``F.interpolate(scale_factor=2)``) trained against a small fixed VGG-like feature
net (eval mode, requires_grad False, features returned as a namedtuple of slices):
content loss on relu2_2, style loss on Gram matrices (bmm / (c * h * w)) of every slice,
a total variation term, Adam; then the state_dict saved with ``torch.save`` and loaded into
a fresh net that stylizes. Images are synthetic 16x16 colour pictures in [0, 255]."""
import os
import re
import tempfile
from collections import namedtuple

import numpy as np

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    class TransformerNet(torch.nn.Module):
        def __init__(self):
            super(TransformerNet, self).__init__()
            # Initial convolution layers
            self.conv1 = ConvLayer(3, 8, kernel_size=9, stride=1)
            self.in1 = torch.nn.InstanceNorm2d(8, affine=True)
            self.conv2 = ConvLayer(8, 16, kernel_size=3, stride=2)
            self.in2 = torch.nn.InstanceNorm2d(16, affine=True)
            self.conv3 = ConvLayer(16, 32, kernel_size=3, stride=2)
            self.in3 = torch.nn.InstanceNorm2d(32, affine=True)
            # Residual layers
            self.res1 = ResidualBlock(32)
            self.res2 = ResidualBlock(32)
            # Upsampling Layers
            self.deconv1 = UpsampleConvLayer(32, 16, kernel_size=3, stride=1, upsample=2)
            self.in4 = torch.nn.InstanceNorm2d(16, affine=True)
            self.deconv2 = UpsampleConvLayer(16, 8, kernel_size=3, stride=1, upsample=2)
            self.in5 = torch.nn.InstanceNorm2d(8, affine=True)
            self.deconv3 = ConvLayer(8, 3, kernel_size=9, stride=1)
            # Non-linearities
            self.relu = torch.nn.ReLU()

        def forward(self, X):
            y = self.relu(self.in1(self.conv1(X)))
            y = self.relu(self.in2(self.conv2(y)))
            y = self.relu(self.in3(self.conv3(y)))
            y = self.res1(y)
            y = self.res2(y)
            y = self.relu(self.in4(self.deconv1(y)))
            y = self.relu(self.in5(self.deconv2(y)))
            y = self.deconv3(y)
            return y

    class ConvLayer(torch.nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride):
            super(ConvLayer, self).__init__()
            reflection_padding = kernel_size // 2
            self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
            self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            out = self.reflection_pad(x)
            out = self.conv2d(out)
            return out

    class ResidualBlock(torch.nn.Module):
        """ResidualBlock
        introduced in: https://arxiv.org/abs/1512.03385
        recommended architecture: http://torch.ch/blog/2016/02/04/resnets.html
        """

        def __init__(self, channels):
            super(ResidualBlock, self).__init__()
            self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
            self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
            self.relu = torch.nn.ReLU()

        def forward(self, x):
            residual = x
            out = self.relu(self.in1(self.conv1(x)))
            out = self.in2(self.conv2(out))
            out = out + residual
            return out

    class UpsampleConvLayer(torch.nn.Module):
        """UpsampleConvLayer
        Upsamples the input and then does a convolution. This method gives better results
        compared to ConvTranspose2d.
        ref: http://distill.pub/2016/deconv-checkerboard/
        """

        def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
            super(UpsampleConvLayer, self).__init__()
            self.upsample = upsample
            reflection_padding = kernel_size // 2
            self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
            self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            x_in = x
            if self.upsample:
                x_in = torch.nn.functional.interpolate(x_in, mode='nearest',
                                                       scale_factor=self.upsample)
            out = self.reflection_pad(x_in)
            out = self.conv2d(out)
            return out

    class Vgg(torch.nn.Module):
        """vgg16's first blocks in miniature: conv/relu pairs and max pools, cut into the
        slices whose outputs the losses use."""

        def __init__(self, requires_grad=False):
            super(Vgg, self).__init__()
            nn = torch.nn
            features = nn.Sequential(
                nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
                nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
                nn.MaxPool2d(2, 2),
                nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
                nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
                nn.MaxPool2d(2, 2),
                nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True))
            self.slice1 = torch.nn.Sequential()
            self.slice2 = torch.nn.Sequential()
            self.slice3 = torch.nn.Sequential()
            for x in range(4):
                self.slice1.add_module(str(x), features[x])
            for x in range(4, 9):
                self.slice2.add_module(str(x), features[x])
            for x in range(9, 12):
                self.slice3.add_module(str(x), features[x])
            if not requires_grad:
                for param in self.parameters():
                    param.requires_grad = False

        def forward(self, X):
            h = self.slice1(X)
            h_relu1_2 = h
            h = self.slice2(h)
            h_relu2_2 = h
            h = self.slice3(h)
            h_relu3_1 = h
            vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_1'])
            out = vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_1)
            return out

    return TransformerNet, Vgg


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


def total_variation(y):
    return (y[:, :, :, :-1] - y[:, :, :, 1:]).abs().sum() + \
        (y[:, :, :-1, :] - y[:, :, 1:, :]).abs().sum()


def style_image(size=16):
    """Diagonal colour stripes in [0, 255], float32 (1, 3, size, size)."""
    yy, xx = np.mgrid[0:size, 0:size]
    phase = (xx + yy) * np.pi / 3
    channels = [np.sin(phase), np.sin(phase + 2), np.cos(2 * phase)]
    return (127.5 * (np.stack(channels) + 1))[None].astype(np.float32)


def stylize(torch, TransformerNet, model_path, content_image, device):
    """The mean of the stylized images, from a model loaded as fast_neural_style's
    ``stylize`` does (old checkpoints' InstanceNorm running stats deleted)."""
    content_image = torch.from_numpy(content_image).to(device)
    with torch.no_grad():
        style_model = TransformerNet()
        state_dict = torch.load(model_path)
        # remove saved deprecated running_* keys in InstanceNorm from the checkpoint
        for k in list(state_dict.keys()):
            if re.search(r'in\d+\.running_(mean|var)$', k):
                del state_dict[k]
        style_model.load_state_dict(state_dict)
        style_model.to(device)
        style_model.eval()
        output = style_model(content_image).cpu()
    return output.clamp(0, 255).mean().item()


def main(torch, epochs=2, state=None, device="cpu", batch_size=4, lr=1e-3,
         content_weight=1e1, style_weight=1e4, tv_weight=1e-4):
    torch.manual_seed(42)
    device = torch.device(device)
    images, labels = digit_images(16, size=16, channels=3, seed=5)
    train_dataset = torch.utils.data.TensorDataset(torch.from_numpy(images * 255),
                                                   torch.from_numpy(labels))
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=batch_size)

    TransformerNet, Vgg = define(torch)
    transformer = TransformerNet().to(device)
    vgg = Vgg(requires_grad=False).to(device).eval()
    initial = {"transformer": numpy_state(transformer), "vgg": numpy_state(vgg)}
    if state is not None:
        load_numpy_state(torch, transformer, state["transformer"])
        load_numpy_state(torch, vgg, state["vgg"])
    optimizer = torch.optim.Adam(transformer.parameters(), lr)
    mse_loss = torch.nn.MSELoss()

    style = torch.from_numpy(style_image()).to(device)
    style = style.repeat(batch_size, 1, 1, 1)
    features_style = vgg(normalize_batch(style))
    gram_style = [gram_matrix(y) for y in features_style]

    record = {"losses": [], "content": [], "style": [], "tv": []}
    for e in range(epochs):
        transformer.train()
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            optimizer.zero_grad()

            x = x.to(device)
            y = transformer(x)
            tv_loss = tv_weight * total_variation(y)

            y = normalize_batch(y)
            x = normalize_batch(x)

            features_y = vgg(y)
            features_x = vgg(x)

            content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)

            style_loss = 0.
            for ft_y, gm_s in zip(features_y, gram_style):
                gm_y = gram_matrix(ft_y)
                style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
            style_loss *= style_weight

            total_loss = content_loss + style_loss + tv_loss
            total_loss.backward()
            optimizer.step()
            for key, loss in [("losses", total_loss), ("content", content_loss),
                              ("style", style_loss), ("tv", tv_loss)]:
                record[key].append(loss.item())
    # save the model, then stylize with a fresh TransformerNet loaded from the file
    transformer.eval().cpu()
    with tempfile.TemporaryDirectory() as save_dir:
        save_model_path = os.path.join(save_dir, "epoch_{}.model".format(epochs))
        torch.save(transformer.state_dict(), save_model_path)
        record["stylized_mean"] = stylize(torch, TransformerNet, save_model_path,
                                          images[:2] * 255, device)
    record["vgg_frozen"] = all(not p.requires_grad for p in vgg.parameters()) and \
        all(p.grad is None for p in vgg.parameters())
    record["state"] = initial
    return record
