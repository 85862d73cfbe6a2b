"""pytorch/examples dcgan/main.py, scaled down to 16x16 images: a ConvTranspose2d
generator and a Conv2d discriminator with BatchNorm2d, LeakyReLU and Tanh/Sigmoid,
weights_init applied by class name, BCELoss, two Adam optimizers with beta1 = 0.5, the
discriminator trained on real then detached fake images."""
import numpy as np

from . import digit_images, load_numpy_state, numpy_state

nz, ngf, ndf, nc = 8, 8, 8, 1


def define(torch):
    nn = torch.nn

    # custom weights initialization called on netG and netD
    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find('Conv') != -1:
            torch.nn.init.normal_(m.weight, 0.0, 0.02)
        elif classname.find('BatchNorm') != -1:
            torch.nn.init.normal_(m.weight, 1.0, 0.02)
            torch.nn.init.zeros_(m.bias)

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()
            self.main = nn.Sequential(
                # input is Z, going into a convolution
                nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
                nn.BatchNorm2d(ngf * 4),
                nn.ReLU(True),
                # state size. (ngf*4) x 4 x 4
                nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ngf * 2),
                nn.ReLU(True),
                # state size. (ngf*2) x 8 x 8
                nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
                nn.Tanh()
                # state size. (nc) x 16 x 16
            )

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()
            self.main = nn.Sequential(
                # input is (nc) x 16 x 16
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
                nn.LeakyReLU(0.2, inplace=True),
                # state size. (ndf) x 8 x 8
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ndf * 2),
                nn.LeakyReLU(0.2, inplace=True),
                # state size. (ndf*2) x 4 x 4
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
                nn.Sigmoid()
            )

        def forward(self, input):
            output = self.main(input)
            return output.view(-1, 1).squeeze(1)

    return Generator, Discriminator, weights_init


def main(torch, epochs=2, state=None, device="cpu", rng=None):
    """``rng``: a numpy Generator for the latent noise (default: ``torch.randn``)."""
    torch.manual_seed(999)
    device = torch.device(device)

    def randn(*shape):
        if rng is None:
            return torch.randn(*shape, device=device)
        return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device)

    images, _ = digit_images(128, seed=4)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(images * 2 - 1))
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=False)

    Generator, Discriminator, weights_init = define(torch)
    netG = Generator().to(device)
    netG.apply(weights_init)
    netD = Discriminator().to(device)
    netD.apply(weights_init)
    initial = {"G": numpy_state(netG), "D": numpy_state(netD)}
    if state is not None:
        load_numpy_state(torch, netG, state["G"])
        load_numpy_state(torch, netD, state["D"])

    criterion = torch.nn.BCELoss()
    fixed_noise = randn(32, nz, 1, 1)
    real_label = 1
    fake_label = 0

    # setup optimizer
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))

    record = {"errD": [], "errG": [], "D_x": [], "D_G_z1": [], "D_G_z2": []}
    for epoch in range(epochs):
        for i, data in enumerate(dataloader, 0):
            ############################
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            ###########################
            # train with real
            netD.zero_grad()
            real_cpu = data[0].to(device)
            batch_size = real_cpu.size(0)
            label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)

            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = output.mean().item()

            # train with fake
            noise = randn(batch_size, nz, 1, 1)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = output.mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()

            ############################
            # (2) Update G network: maximize log(D(G(z)))
            ###########################
            netG.zero_grad()
            label.fill_(real_label)  # fake labels are real for generator cost
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = output.mean().item()
            optimizerG.step()
            for key, value in [("errD", errD.item()), ("errG", errG.item()), ("D_x", D_x),
                               ("D_G_z1", D_G_z1), ("D_G_z2", D_G_z2)]:
                record[key].append(value)
    netG.eval()
    with torch.no_grad():
        fake = netG(fixed_noise)
    record["fixed"] = [fake.detach().abs().mean().item()]
    record["state"] = initial
    return record
