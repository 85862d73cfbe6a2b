"""SimCLR-style contrastive pretraining (as in sthalles/SimCLR's ``info_nce_loss``), scaled
down: two augmented views of each image (random shifts and noise, drawn from a numpy
generator so both libraries see the same views), an encoder + projection head, the NT-Xent
loss built from ``F.normalize``, a cosine similarity matrix, the diagonal removed with a
boolean mask (and, in the second variant, ``masked_fill`` with -inf), CrossEntropyLoss over
the positive pair; SGD with nesterov momentum and a cosine schedule; then a linear probe on
the frozen features, and top-1 / top-5 accuracy of the positive pair."""
import numpy as np

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn

    class Encoder(nn.Module):
        def __init__(self, out_dim=16):
            super().__init__()
            self.backbone = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
                nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
            dim_mlp = 16
            # add mlp projection head
            self.projection = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(),
                                            nn.Linear(dim_mlp, out_dim))

        def forward(self, x):
            return self.projection(self.backbone(x))

    return Encoder


def info_nce_loss(torch, features, batch_size, n_views=2, temperature=0.5):
    """sthalles/SimCLR's formulation: logits = [positive, negatives] per row, label 0."""
    F = torch.nn.functional
    labels = torch.cat([torch.arange(batch_size) for i in range(n_views)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()

    features = F.normalize(features, dim=1)
    similarity_matrix = torch.matmul(features, features.T)

    # discard the main diagonal from both: labels and similarities matrix
    mask = torch.eye(labels.shape[0], dtype=torch.bool)
    labels = labels[~mask].view(labels.shape[0], -1)
    similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)

    # select and combine multiple positives
    positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
    # select only the negatives
    negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)

    logits = torch.cat([positives, negatives], dim=1)
    labels = torch.zeros(logits.shape[0], dtype=torch.long)
    logits = logits / temperature
    return logits, labels


def nt_xent(torch, z1, z2, temperature=0.5):
    """The same loss written the other common way: the full 2N x 2N cosine similarity with
    the diagonal filled with -inf, the positive of row i at i + N (mod 2N)."""
    F = torch.nn.functional
    z = torch.cat([z1, z2], dim=0)
    sim = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1) / temperature
    n = z1.size(0)
    self_mask = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    sim = sim.masked_fill(self_mask, float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)


def accuracy(torch, output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def augment(images, rng):
    """A random shift of up to 2 pixels (with wrap-around) and additive noise per image."""
    out = np.empty_like(images)
    for i, image in enumerate(images):
        dy, dx = rng.integers(-2, 3, 2)
        out[i] = np.roll(image, (dy, dx), axis=(-2, -1))
    return (out + 0.1 * rng.standard_normal(out.shape)).astype(np.float32)


def main(torch, epochs=3, state=None, device="cpu", rng=None, batch_size=16):
    if rng is None:
        rng = np.random.default_rng()
    torch.manual_seed(0)
    device = torch.device(device)
    images, labels = digit_images(96, size=12, classes=4, seed=9)
    images = (images - 0.5) / 0.25
    n_batches = len(images) // batch_size

    model = define(torch)().to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state["model"])
    criterion = torch.nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer,
                                                           T_max=epochs * n_batches)
    losses, other_losses, top = [], [], []
    model.train()
    for epoch in range(epochs):
        for b in range(n_batches):
            batch = images[b * batch_size:(b + 1) * batch_size]
            views = [torch.from_numpy(augment(batch, rng)) for _ in range(2)]
            x = torch.cat(views, dim=0).to(device)
            features = model(x)
            logits, targets = info_nce_loss(torch, features, batch_size)
            loss = criterion(logits, targets.to(device))
            other_losses.append(nt_xent(torch, features[:batch_size],
                                        features[batch_size:]).item())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            top1, top5 = accuracy(torch, logits, targets, topk=(1, 5))
            top.append((top1[0].item(), top5[0].item()))

    # linear evaluation on frozen backbone features
    model.eval()
    for p in model.backbone.parameters():
        p.requires_grad = False
    with torch.no_grad():
        feats = model.backbone(torch.from_numpy(images).to(device))
    probe = torch.nn.Linear(feats.size(1), 4).to(device)
    probe_state = numpy_state(probe) if state is None else state["probe"]
    load_numpy_state(torch, probe, probe_state)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.5, momentum=0.9, nesterov=True)
    y = torch.from_numpy(labels).to(device)
    probe_losses = []
    for _ in range(20):
        probe_opt.zero_grad()
        loss = criterion(probe(feats[:64]), y[:64])
        loss.backward()
        probe_opt.step()
        probe_losses.append(loss.item())
    with torch.no_grad():
        probe_correct = (probe(feats[64:]).argmax(1) == y[64:]).sum().item()
    return {"losses": losses, "other_losses": other_losses, "top": top,
            "probe_losses": probe_losses, "probe_correct": probe_correct,
            "state": {"model": initial, "probe": probe_state}}
