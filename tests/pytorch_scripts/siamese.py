"""Siamese / triplet metric learning (in the style of adambielski/siamese-triplet and the
siamese-network tutorials) on scikit-learn's digits: one embedding net (Conv2d +
BatchNorm2d + AdaptiveAvgPool2d + Linear) shared by the anchor, positive and negative
images; a hand-written contrastive loss on F.pairwise_distance, nn.TripletMarginLoss(p=2)
and nn.CosineEmbeddingLoss, monitored with F.cosine_similarity; SGD with momentum under
MultiStepLR; evaluation by nearest neighbours in the embedding (torch.cdist + topk) of the
held-out digits against the training ones."""
import numpy as np

from . import load_numpy_state, numpy_state, sklearn_digits


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class EmbeddingNet(nn.Module):
        def __init__(self, embedding_dim=8):
            super(EmbeddingNet, self).__init__()
            self.convnet = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16),
                                         nn.ReLU(), nn.MaxPool2d(2, stride=2),
                                         nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32),
                                         nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)))
            self.fc = nn.Linear(32, embedding_dim)

        def forward(self, x):
            output = self.convnet(x)
            output = output.view(output.size()[0], -1)
            output = self.fc(output)
            return output

    class TripletNet(nn.Module):
        def __init__(self, embedding_net):
            super(TripletNet, self).__init__()
            self.embedding_net = embedding_net

        def forward(self, x1, x2, x3):
            output1 = self.embedding_net(x1)
            output2 = self.embedding_net(x2)
            output3 = self.embedding_net(x3)
            return output1, output2, output3

        def get_embedding(self, x):
            return self.embedding_net(x)

    class ContrastiveLoss(nn.Module):
        """Contrastive loss: label 0 for a similar pair, 1 for a dissimilar one.
        loss = (1 - y) d^2 + y max(margin - d, 0)^2, d the euclidean distance."""

        def __init__(self, margin=2.0):
            super(ContrastiveLoss, self).__init__()
            self.margin = margin

        def forward(self, output1, output2, label):
            euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
            loss_contrastive = torch.mean(
                (1 - label) * torch.pow(euclidean_distance, 2)
                + label * torch.pow(torch.clamp(self.margin - euclidean_distance, min=0.0), 2))
            return loss_contrastive

    return EmbeddingNet, TripletNet, ContrastiveLoss


def triplets(labels, rng):
    """(positive, negative) index per anchor: another image of its class, one of another."""
    positives, negatives = [], []
    for i, label in enumerate(labels):
        same = np.flatnonzero((labels == label) & (np.arange(len(labels)) != i))
        positives.append(rng.choice(same))
        negatives.append(rng.choice(np.flatnonzero(labels != label)))
    return np.array(positives), np.array(negatives)


def main(torch, epochs=4, state=None, device="cpu", batch_size=32, n_train=256,
         n_test=64):
    torch.manual_seed(1)
    device = torch.device(device)
    F = torch.nn.functional
    images, labels = sklearn_digits(n_train + n_test)
    images = (images - 0.3) / 0.4
    positives, negatives = triplets(labels[:n_train], np.random.default_rng(0))
    data = torch.utils.data
    x = torch.from_numpy(images[:n_train])
    train_set = data.TensorDataset(x, x[positives], x[negatives])
    train_loader = data.DataLoader(train_set, batch_size=batch_size, shuffle=False)

    EmbeddingNet, TripletNet, ContrastiveLoss = define(torch)
    embedding_net = EmbeddingNet()
    model = TripletNet(embedding_net).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    contrastive = ContrastiveLoss(margin=2.0)
    triplet = torch.nn.TripletMarginLoss(margin=1.0, p=2)
    cosine = torch.nn.CosineEmbeddingLoss(margin=0.2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], gamma=0.1)

    record = {"losses": [], "contrastive": [], "triplet": [], "cosine": [], "cos_pos": [],
              "closer_positives": [], "lrs": []}
    for epoch in range(epochs):
        model.train()
        for anchor, positive, negative in train_loader:
            anchor, positive = anchor.to(device), positive.to(device)
            negative = negative.to(device)
            optimizer.zero_grad()
            e_a, e_p, e_n = model(anchor, positive, negative)
            n = e_a.size(0)
            loss_contrastive = (contrastive(e_a, e_p, torch.zeros(n, 1, device=device))
                                + contrastive(e_a, e_n, torch.ones(n, 1, device=device)))
            loss_triplet = triplet(e_a, e_p, e_n)
            target = torch.cat([torch.ones(n), -torch.ones(n)]).to(device)
            loss_cosine = cosine(torch.cat([e_a, e_a]), torch.cat([e_p, e_n]), target)
            loss = loss_contrastive + loss_triplet + loss_cosine
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                cos_pos = F.cosine_similarity(e_a, e_p)
                cos_neg = F.cosine_similarity(e_a, e_n)
                # anchors whose positive is more similar than their negative
                closer = (cos_pos > cos_neg).sum().item()
            for key, value in [("losses", loss.item()), ("contrastive", loss_contrastive.item()),
                               ("triplet", loss_triplet.item()), ("cosine", loss_cosine.item()),
                               ("cos_pos", cos_pos.mean().item()), ("closer_positives", closer)]:
                record[key].append(value)
        scheduler.step()
        record["lrs"].append(scheduler.get_last_lr()[0])

    # nearest neighbours of the held-out digits among the training ones, in the embedding
    model.eval()
    with torch.no_grad():
        gallery = model.get_embedding(x.to(device))
        query = model.get_embedding(torch.from_numpy(images[n_train:]).to(device))
        distances = torch.cdist(query, gallery, p=2)
        nearest, indices = distances.topk(5, dim=1, largest=False)
    gallery_labels = torch.from_numpy(labels[:n_train]).to(device)
    query_labels = torch.from_numpy(labels[n_train:]).to(device)
    hits = gallery_labels[indices] == query_labels.unsqueeze(1)
    record["top1_correct"] = hits[:, 0].sum().item()
    record["top5_any"] = hits.any(dim=1).sum().item()
    record["nearest_mean"] = nearest[:, 0].mean().item()
    record["state"] = initial
    return record
