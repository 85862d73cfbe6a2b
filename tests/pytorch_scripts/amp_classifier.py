"""A modern PyTorch training loop: device picked through ``torch.accelerator``, a small
CNN trained under ``torch.autocast`` in float16 with ``torch.amp.GradScaler`` and AdamW,
``torch.testing.assert_close`` checking that eval mode is deterministic, and the scaler's
state saved beside the model's."""
import numpy as np

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.fc1 = nn.Linear(8 * 8 * 8, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
            x = torch.relu(self.fc1(torch.flatten(x, 1)))
            return self.fc2(x)
    return Net


def main(torch, epochs=3, state=None, batch_size=32, init_scale=2.0 ** 12):
    torch.manual_seed(0)
    use_accel = torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    amp_dtype = torch.float16

    images, labels = digit_images(256, size=16, seed=3)
    data = torch.utils.data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=False)
    model = define(torch)().to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
    scaler = torch.amp.GradScaler(device.type, init_scale=init_scale, growth_interval=4)

    losses, scales = [], []
    for _ in range(epochs):
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device.type, dtype=amp_dtype):
                logits = model(x)
                assert logits.dtype == amp_dtype
                loss = torch.nn.functional.cross_entropy(logits, y)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(optimizer)
            scaler.update()
            losses.append(loss.item())
            scales.append(scaler.get_scale())

    model.eval()
    with torch.no_grad(), torch.autocast(device_type=device.type, dtype=amp_dtype):
        x = torch.from_numpy(images[:64]).to(device)
        first, second = model(x), model(x)
        torch.testing.assert_close(first, second)
        correct = int((first.argmax(1).cpu() == torch.from_numpy(labels[:64])).sum())
    return {"losses": losses, "scales": scales, "correct": correct,
            "scaler_state": scaler.state_dict(), "state": initial}
