"""A GAN on a 2-d ring of Gaussians, as SNGAN / StyleGAN-style training loops write it: the
discriminator's Linear layers under nn.utils.parametrizations.spectral_norm, hinge losses,
Adam with betas (0.0, 0.9), two discriminator steps per generator step with
requires_grad_ toggling, the generator's hidden block under torch.utils.checkpoint
(use_reentrant=False), an EMA copy of the generator by swa_utils.AveragedModel with
get_ema_multi_avg_fn, and a forward hook that records the discriminator's features.
Noise is drawn from a numpy generator so both libraries see the same."""
import math

import numpy as np

from . import load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional
    SN = nn.utils.parametrizations.spectral_norm

    class Generator(nn.Module):
        def __init__(self, nz=4, hidden=32):
            super().__init__()
            self.inp = nn.Linear(nz, hidden)
            self.block = nn.Sequential(nn.Linear(hidden, hidden), nn.LeakyReLU(0.2),
                                       nn.Linear(hidden, hidden), nn.LeakyReLU(0.2))
            self.out = nn.Linear(hidden, 2)

        def forward(self, z):
            h = F.leaky_relu(self.inp(z), 0.2)
            if self.training:
                h = h + torch.utils.checkpoint.checkpoint(self.block, h, use_reentrant=False)
            else:
                h = h + self.block(h)
            return self.out(h)

    class Discriminator(nn.Module):
        def __init__(self, hidden=32):
            super().__init__()
            self.features = nn.Sequential(SN(nn.Linear(2, hidden)), nn.LeakyReLU(0.2),
                                          SN(nn.Linear(hidden, hidden)), nn.LeakyReLU(0.2))
            self.head = SN(nn.Linear(hidden, 1))

        def forward(self, x):
            return self.head(self.features(x)).view(-1)

    return Generator, Discriminator


def ring(n, rng, modes=6, radius=2.0, std=0.05):
    """Samples of a mixture of ``modes`` Gaussians on a circle, float32 (n, 2)."""
    angles = 2 * math.pi * rng.integers(0, modes, n) / modes
    centres = radius * np.stack([np.cos(angles), np.sin(angles)], 1)
    return (centres + std * rng.standard_normal((n, 2))).astype(np.float32)


def main(torch, steps=30, state=None, device="cpu", rng=None, n_critic=2, batch=64):
    if rng is None:
        rng = np.random.default_rng()
    F = torch.nn.functional
    swa = torch.optim.swa_utils
    torch.manual_seed(0)
    device = torch.device(device)
    Generator, Discriminator = define(torch)
    netG, netD = Generator().to(device), Discriminator().to(device)
    initial = {"G": numpy_state(netG), "D": numpy_state(netD)}
    if state is not None:
        load_numpy_state(torch, netG, state["G"])
        load_numpy_state(torch, netD, state["D"])
    ema = swa.AveragedModel(netG, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    optD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.0, 0.9))
    optG = torch.optim.Adam(netG.parameters(), lr=1e-3, betas=(0.0, 0.9))

    features = {}

    def hook(module, inputs, output):
        features["d"] = output.detach()

    handle = netD.features.register_forward_hook(hook)

    def noise(n):
        return torch.from_numpy(rng.standard_normal((n, 4)).astype(np.float32)).to(device)

    d_losses, g_losses, feature_means, sigmas = [], [], [], []
    for step in range(steps):
        netD.requires_grad_(True)
        for _ in range(n_critic):
            real = torch.from_numpy(ring(batch, rng)).to(device)
            with torch.no_grad():
                fake = netG(noise(batch))
            optD.zero_grad(set_to_none=True)
            loss_d = F.relu(1.0 - netD(real)).mean() + F.relu(1.0 + netD(fake)).mean()
            loss_d.backward()
            optD.step()
        d_losses.append(loss_d.item())
        feature_means.append(features["d"].mean().item())

        netD.requires_grad_(False)
        optG.zero_grad(set_to_none=True)
        loss_g = -netD(netG(noise(batch))).mean()
        loss_g.backward()
        optG.step()
        ema.update_parameters(netG)
        g_losses.append(loss_g.item())
        # the spectral norm's power iteration estimate of the first layer's largest singular value
        sn = netD.features[0].parametrizations.weight[0]
        sigmas.append(torch.dot(sn._u, torch.mv(netD.features[0].parametrizations.weight
                                                 .original, sn._v)).item())
    handle.remove()

    ema.eval()
    netG.eval()
    with torch.no_grad():
        z = noise(256)
        samples = ema(z)
        radius = samples.norm(dim=1).mean().item()
        spread = netG(z).std(dim=0).sum().item()
    return {"d_losses": d_losses, "g_losses": g_losses, "feature_means": feature_means,
            "sigmas": sigmas, "ema_radius": radius, "spread": spread,
            "n_averaged": int(ema.n_averaged.item()), "state": initial}
