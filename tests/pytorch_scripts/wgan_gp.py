"""WGAN-GP (Gulrajani et al., the toy experiment of the reference code) on a 2-d mixture of
eight Gaussians: critic and generator MLPs with LeakyReLU (LayerNorm in the critic, since
the penalty is per sample and BatchNorm would mix them), the gradient penalty by
torch.autograd.grad(outputs=..., inputs=interpolates, grad_outputs=torch.ones_like(...),
create_graph=True, retain_graph=True) and .norm(2, dim=1), D_real.backward(mone) /
D_fake.backward(one) as the reference code writes it, Adam with betas (0.5, 0.9),
``n_critic`` critic steps per generator step with requires_grad_(False) toggling.
Real data, noise and interpolation weights come from a numpy generator so both libraries
see the same; the mean distance of generated samples to the nearest mode must fall.

NOTE: the penalty differentiates a piecewise-linear critic, so its gradient jumps where a
LeakyReLU input crosses zero; a longer run (here from the 104th critic step with LayerNorm)
meets an input within float rounding of the kink, and the two libraries part there."""
import math

import numpy as np

from . import load_numpy_state, numpy_state

CENTERS = 2.0 * np.array([(math.cos(a), math.sin(a))
                          for a in np.arange(8) * 2 * math.pi / 8], dtype=np.float32)


def eight_gaussians(n, rng, std=0.05):
    """Samples of the mixture, float32 (n, 2)."""
    centres = CENTERS[rng.integers(0, len(CENTERS), n)]
    return (centres + std * rng.standard_normal((n, 2))).astype(np.float32)


def define(torch, layer_norm):
    nn = torch.nn

    class Generator(nn.Module):
        def __init__(self, nz=2, dim=64):
            super().__init__()
            self.main = nn.Sequential(
                nn.Linear(nz, dim), nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(dim, dim), nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(dim, 2))

        def forward(self, noise):
            return self.main(noise)

    class Critic(nn.Module):
        def __init__(self, dim=64):
            super().__init__()
            norm = (lambda: nn.LayerNorm(dim)) if layer_norm else nn.Identity
            self.main = nn.Sequential(
                nn.Linear(2, dim), norm(), nn.LeakyReLU(0.2),
                nn.Linear(dim, dim), norm(), nn.LeakyReLU(0.2),
                nn.Linear(dim, 1))

        def forward(self, inputs):
            return self.main(inputs).view(-1)

    return Generator, Critic


def calc_gradient_penalty(torch, netD, real_data, fake_data, alpha, LAMBDA=0.1):
    alpha = alpha.expand(real_data.size())
    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                    grad_outputs=torch.ones_like(disc_interpolates),
                                    create_graph=True, retain_graph=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def main(torch, iters=20, n_critic=5, batch=64, layer_norm=True, state=None, rng=None,
         device="cpu"):
    if rng is None:
        rng = np.random.default_rng()
    torch.manual_seed(1)
    device = torch.device(device)
    Generator, Critic = define(torch, layer_norm)
    netG, netD = Generator().to(device), Critic().to(device)
    initial = {"G": numpy_state(netG), "D": numpy_state(netD)}
    if state is not None:
        load_numpy_state(torch, netG, state["G"])
        load_numpy_state(torch, netD, state["D"])
    optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-3, betas=(0.5, 0.9))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-3, betas=(0.5, 0.9))
    one = torch.tensor(1.0, device=device)
    mone = one * -1
    centers = torch.from_numpy(CENTERS).to(device)

    def noise(n):
        return torch.from_numpy(rng.standard_normal((n, 2)).astype(np.float32)).to(device)

    d_costs, g_costs, penalties, wassersteins, mode_distances = [], [], [], [], []
    for iteration in range(iters):
        netD.requires_grad_(True)
        for _ in range(n_critic):
            real_data = torch.from_numpy(eight_gaussians(batch, rng)).to(device)
            netD.zero_grad()
            D_real = netD(real_data).mean()
            D_real.backward(mone)
            with torch.no_grad():
                fake = netG(noise(batch))
            D_fake = netD(fake).mean()
            D_fake.backward(one)
            alpha = torch.from_numpy(rng.random((batch, 1)).astype(np.float32)).to(device)
            gradient_penalty = calc_gradient_penalty(torch, netD, real_data, fake, alpha)
            gradient_penalty.backward()
            D_cost = D_fake - D_real + gradient_penalty
            Wasserstein_D = D_real - D_fake
            optimizerD.step()
        d_costs.append(D_cost.item())
        penalties.append(gradient_penalty.item())
        wassersteins.append(Wasserstein_D.item())

        netD.requires_grad_(False)
        netG.zero_grad()
        G = netD(netG(noise(batch))).mean()
        G.backward(mone)
        optimizerG.step()
        g_costs.append(-G.item())

        with torch.no_grad():
            samples = netG(noise(256))
            mode_distances.append(torch.cdist(samples, centers).min(1).values.mean().item())
    return {"d_costs": d_costs, "g_costs": g_costs, "penalties": penalties,
            "wassersteins": wassersteins, "mode_distances": mode_distances,
            "critic_requires_grad": [p.requires_grad for p in netD.parameters()],
            "state": initial}
