"""A small Vision Transformer (timm / "ViT from scratch" tutorials style): patch embedding by a
Conv2d with stride = patch size, a learned cls token and positional embedding
(``nn.Parameter``, trunc_normal_ init), a pre-norm ``nn.TransformerEncoder`` with GELU
(batch_first=True, norm_first=True), label smoothing cross entropy; AdamW with two parameter
groups (no weight decay on norms, biases and embeddings), linear warmup then cosine decay by
LambdaLR stepped per optimizer step, gradient accumulation over 2 micro-batches and
clip_grad_norm_ (its returned total norm recorded)."""
import math

from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn

    class PatchEmbed(nn.Module):
        """Image to Patch Embedding"""

        def __init__(self, img_size=16, patch_size=4, in_chans=1, embed_dim=32):
            super().__init__()
            self.num_patches = (img_size // patch_size) ** 2
            self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size,
                                  stride=patch_size)

        def forward(self, x):
            x = self.proj(x)                    # B, E, H/P, W/P
            return x.flatten(2).transpose(1, 2)  # B, N, E

    class VisionTransformer(nn.Module):
        def __init__(self, img_size=16, patch_size=4, in_chans=1, num_classes=10,
                     embed_dim=32, depth=2, num_heads=4, mlp_ratio=2.0):
            super().__init__()
            self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
            num_patches = self.patch_embed.num_patches
            self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
            self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, embed_dim))
            encoder_layer = nn.TransformerEncoderLayer(
                d_model=embed_dim, nhead=num_heads, dim_feedforward=int(embed_dim * mlp_ratio),
                dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(encoder_layer, num_layers=depth,
                                                enable_nested_tensor=False)
            self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
            self.head = nn.Linear(embed_dim, num_classes)

            nn.init.trunc_normal_(self.pos_embed, std=.02)
            nn.init.trunc_normal_(self.cls_token, std=.02)
            self.apply(self._init_weights)

        def _init_weights(self, m):
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=.02)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.LayerNorm):
                nn.init.constant_(m.bias, 0)
                nn.init.constant_(m.weight, 1.0)

        def forward(self, x):
            x = self.patch_embed(x)
            cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
            x = torch.cat((cls_tokens, x), dim=1)
            x = x + self.pos_embed
            x = self.blocks(x)
            x = self.norm(x)
            return self.head(x[:, 0])

    return VisionTransformer


def param_groups(model, weight_decay):
    """Weight decay on matrices only: not on biases, norm weights, cls token, pos embed."""
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in ("cls_token", "pos_embed"):
            no_decay.append(param)
        else:
            decay.append(param)
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]


def main(torch, epochs=4, state=None, device="cpu", accum_steps=2, warmup_steps=3):
    torch.manual_seed(42)
    device = torch.device(device)
    images, labels = digit_images(192, seed=7)
    x, y = torch.from_numpy((images - 0.5) / 0.25), torch.from_numpy(labels)
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(x[:128], y[:128]), batch_size=16)
    val_loader = data.DataLoader(data.TensorDataset(x[128:], y[128:]), batch_size=64)

    model = define(torch)().to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.AdamW(param_groups(model, 0.05), lr=2e-3, betas=(0.9, 0.999))
    total_steps = epochs * len(train_loader) // accum_steps

    def lr_lambda(step):
        if step < warmup_steps:
            return float(step + 1) / float(warmup_steps)
        progress = float(step - warmup_steps) / float(max(1, total_steps - warmup_steps))
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    losses, grad_norms, lrs, evals = [], [], [], []
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        running = 0.0
        for i, (images_b, targets) in enumerate(train_loader):
            images_b, targets = images_b.to(device), targets.to(device)
            loss = criterion(model(images_b), targets) / accum_steps
            loss.backward()
            running += loss.item()
            if (i + 1) % accum_steps == 0:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                losses.append(running)
                grad_norms.append(grad_norm.item())
                lrs.append([group["lr"] for group in optimizer.param_groups])
                running = 0.0

        model.eval()
        correct, val_loss = 0, 0.0
        with torch.no_grad():
            for images_b, targets in val_loader:
                outputs = model(images_b.to(device))
                val_loss += torch.nn.functional.cross_entropy(
                    outputs, targets.to(device), reduction="sum").item()
                correct += (outputs.argmax(dim=-1) == targets.to(device)).sum().item()
        evals.append((val_loss / len(val_loader.dataset), correct))
    return {"losses": losses, "grad_norms": grad_norms, "lrs": lrs, "evals": evals,
            "state": initial}
