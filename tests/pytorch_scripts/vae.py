"""pytorch/examples vae/main.py, scaled down: a fully connected VAE with the
reparameterisation trick, loss = summed binary cross entropy + KL divergence, Adam; test
loss under no_grad, a reconstruction grid built with torch.cat, samples from the prior."""
import numpy as np

from . import digit_images, load_numpy_state, numpy_state

PIXELS = 16 * 16


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class VAE(nn.Module):
        def __init__(self, noise):
            super(VAE, self).__init__()
            self.noise = noise
            self.fc1 = nn.Linear(PIXELS, 64)
            self.fc21 = nn.Linear(64, 8)
            self.fc22 = nn.Linear(64, 8)
            self.fc3 = nn.Linear(8, 64)
            self.fc4 = nn.Linear(64, PIXELS)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5 * logvar)
            eps = self.noise(std)
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, PIXELS))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    return VAE


def main(torch, epochs=3, state=None, device="cpu", rng=None):
    """``rng``: a numpy Generator to draw the reparameterisation noise from (default:
    ``torch.randn_like``)."""
    torch.manual_seed(1)
    device = torch.device(device)

    def noise(like):
        if rng is None:
            return torch.randn_like(like)
        return torch.from_numpy(rng.standard_normal(tuple(like.shape)).astype(np.float32))

    images, _ = digit_images(192, seed=3)
    data = torch.utils.data
    dataset = data.TensorDataset(torch.from_numpy(images), torch.zeros(192))
    train_set, test_set = data.Subset(dataset, range(128)), data.Subset(dataset, range(128, 192))
    train_loader = data.DataLoader(train_set, batch_size=32, shuffle=False)
    test_loader = data.DataLoader(test_set, batch_size=32, shuffle=False)

    model = define(torch)(noise).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    # Reconstruction + KL divergence losses summed over all elements and batch
    def loss_function(recon_x, x, mu, logvar):
        BCE = torch.nn.functional.binary_cross_entropy(recon_x, x.view(-1, PIXELS),
                                                       reduction='sum')
        # see Appendix B from VAE paper: Kingma and Welling. Auto-Encoding Variational Bayes.
        # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
        KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return BCE + KLD

    def train(log):
        model.train()
        train_loss = 0
        for batch_idx, (data, _) in enumerate(train_loader):
            data = data.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
            log.append(loss.item() / len(data))
        return train_loss / len(train_loader.dataset)

    def test():
        model.eval()
        test_loss = 0
        with torch.no_grad():
            for i, (data, _) in enumerate(test_loader):
                data = data.to(device)
                recon_batch, mu, logvar = model(data)
                test_loss += loss_function(recon_batch, data, mu, logvar).item()
                if i == 0:
                    n = min(data.size(0), 8)
                    comparison = torch.cat([data[:n],
                                            recon_batch.view(32, 1, 16, 16)[:n]])
        test_loss /= len(test_loader.dataset)
        return test_loss, float(comparison.sum())

    losses, epoch_losses, tests, samples = [], [], [], []
    for epoch in range(1, epochs + 1):
        epoch_losses.append(train(losses))
        tests.append(test())
        with torch.no_grad():
            sample = noise(torch.zeros(16, 8)).to(device)
            sample = model.decode(sample).cpu()
            samples.append(sample.view(16, 1, 16, 16).mean().item())
    return {"losses": losses, "epoch_losses": epoch_losses, "tests": tests,
            "samples": samples, "state": initial}
