"""Saving and resuming a general checkpoint (the PyTorch recipe), on an MLP classifier with
BatchNorm1d: train, save ``{"epoch", "model_state_dict", "optimizer_state_dict",
"scheduler_state_dict", "loss"}`` with torch.save mid-run, build fresh model, AdamW and
OneCycleLR objects, torch.load(weights_only=True) the checkpoint into them and finish the
run. The resumed run's numbers equal those of an uninterrupted run."""
import os
import tempfile

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(
                nn.Flatten(),
                nn.Linear(64, 32),
                nn.BatchNorm1d(32),
                nn.ReLU(),
                nn.Linear(32, 4),
            )

        def forward(self, x):
            return self.net(x)

    return Net


def make_loaders(torch):
    images, labels = digit_images(160, size=8, classes=4, seed=13)
    x, y = torch.from_numpy((images - 0.5) / 0.25), torch.from_numpy(labels)
    data = torch.utils.data
    return (data.DataLoader(data.TensorDataset(x[:128], y[:128]), batch_size=16),
            data.DataLoader(data.TensorDataset(x[128:], y[128:]), batch_size=32))


def build(torch, epochs, steps_per_epoch, device):
    model = define(torch)().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs,
                                                    steps_per_epoch=steps_per_epoch)
    return model, optimizer, scheduler


def train_epochs(torch, model, optimizer, scheduler, loaders, epochs, device, log):
    train_loader, val_loader = loaders
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in epochs:
        model.train()
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            log["losses"].append(loss.item())
            log["lrs"].append(scheduler.get_last_lr()[0])
        model.eval()
        with torch.no_grad():
            correct = sum((model(x.to(device)).argmax(1) == y.to(device)).sum().item()
                          for x, y in val_loader)
        log["val_correct"].append(correct)
    return loss


def main(torch, epochs=4, resume_at=2, state=None, device="cpu", checkpoint_dir=None):
    torch.manual_seed(0)
    device = torch.device(device)
    loaders = make_loaders(torch)
    steps = len(loaders[0])

    # the uninterrupted run
    model, optimizer, scheduler = build(torch, epochs, steps, device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    straight = {"losses": [], "lrs": [], "val_correct": []}
    train_epochs(torch, model, optimizer, scheduler, loaders, range(epochs), device, straight)
    final_running_var = model.net[2].running_var.sum().item()

    # the same run, stopped after ``resume_at`` epochs and resumed from a checkpoint
    model, optimizer, scheduler = build(torch, epochs, steps, device)
    load_numpy_state(torch, model, initial if state is None else state)
    resumed = {"losses": [], "lrs": [], "val_correct": []}
    loss = train_epochs(torch, model, optimizer, scheduler, loaders, range(resume_at), device,
                        resumed)
    with tempfile.TemporaryDirectory(dir=checkpoint_dir) as tmp:
        path = os.path.join(tmp, "checkpoint.pt")
        torch.save({
            "epoch": resume_at,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "scheduler_state_dict": scheduler.state_dict(),
            "loss": loss,
        }, path)
        del model, optimizer, scheduler

        torch.manual_seed(123)          # fresh objects start from other weights
        model, optimizer, scheduler = build(torch, epochs, steps, device)
        checkpoint = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
    start_epoch = checkpoint["epoch"]
    saved_loss = checkpoint["loss"].item()
    train_epochs(torch, model, optimizer, scheduler, loaders, range(start_epoch, epochs), device,
                 resumed)
    return {"losses": straight["losses"], "lrs": straight["lrs"],
            "val_correct": straight["val_correct"], "resumed": resumed,
            "saved_loss": saved_loss, "running_var": final_running_var,
            "resumed_running_var": model.net[2].running_var.sum().item(),
            "num_batches_tracked": model.net[2].num_batches_tracked.item(), "state": initial}
