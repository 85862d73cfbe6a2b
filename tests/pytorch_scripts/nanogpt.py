"""nanoGPT (karpathy/nanoGPT model.py and train.py), scaled down to a character model of a
small Markov-chain text: LayerNorm with optional bias via F.layer_norm, causal self
attention by F.scaled_dot_product_attention(is_causal=True) or by the masked_fill of a
registered tril buffer, GELU MLP, weight tying of wte and lm_head, scaled init of c_proj,
AdamW with decay / no-decay groups (``fused`` looked up with inspect), the cosine learning
rate with warmup written into param_groups, gradient accumulation, a disabled GradScaler,
clip_grad_norm_, estimate_loss under @torch.no_grad(), a checkpoint dict, and generation
with top-k (k=1, so multinomial is deterministic) and cropping to block_size.

Batches are drawn with numpy's generator (``rng``) instead of torch.randint so both
libraries train on the same ones."""
import inspect
import math
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from . import load_numpy_state, markov_text, numpy_state


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 32
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = True  # True: bias in Linears and LayerNorms, like GPT-2. False: a bit better


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class LayerNorm(nn.Module):
        """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):

        def __init__(self, config, flash):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            # key, query, value projections for all heads, but in a batch
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            # output projection
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            # regularization
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.dropout = config.dropout
            # flash attention make GPU go brrrrr but support is only in PyTorch >= 2.0
            self.flash = flash and hasattr(torch.nn.functional, 'scaled_dot_product_attention')
            if not self.flash:
                # causal mask to ensure that attention is only applied to the left in the
                # input sequence
                self.register_buffer("bias", torch.tril(torch.ones(config.block_size,
                                                                   config.block_size))
                                     .view(1, 1, config.block_size, config.block_size))

        def forward(self, x):
            B, T, C = x.size()  # batch size, sequence length, embedding dimensionality

            # calculate query, key, values for all heads in batch and move head forward to
            # be the batch dim
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)

            # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
            if self.flash:
                # efficient attention using Flash Attention CUDA kernels
                y = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0,
                    is_causal=True)
            else:
                # manual implementation of attention
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
            # re-assemble all head outputs side by side
            y = y.transpose(1, 2).contiguous().view(B, T, C)

            # output projection
            y = self.resid_dropout(self.c_proj(y))
            return y

    class MLP(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            x = self.c_fc(x)
            x = self.gelu(x)
            x = self.c_proj(x)
            x = self.dropout(x)
            return x

    class Block(nn.Module):

        def __init__(self, config, flash):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config, flash)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    class GPT(nn.Module):

        def __init__(self, config, flash=True):
            super().__init__()
            assert config.vocab_size is not None
            assert config.block_size is not None
            self.config = config

            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config, flash) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            # with weight tying when using torch.compile() some warnings get generated:
            # "UserWarning: functional_call was passed multiple values for tied weights.
            # This behavior is deprecated and will be an error in future versions"
            # not 100% sure what this is, so far seems to be harmless. TODO investigate
            self.transformer.wte.weight = self.lm_head.weight  # https://paperswithcode.com/method/weight-tying

            # init all weights
            self.apply(self._init_weights)
            # apply special scaled init to the residual projections, per GPT-2 paper
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        def get_num_params(self, non_embedding=True):
            """Return the number of parameters in the model. For non-embedding count
            (default), the position embeddings get subtracted."""
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.config.block_size, \
                f"Cannot forward sequence of length {t}, block size is only " \
                f"{self.config.block_size}"
            pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)

            # forward the GPT model itself
            tok_emb = self.transformer.wte(idx)  # token embeddings of shape (b, t, n_embd)
            pos_emb = self.transformer.wpe(pos)  # position embeddings of shape (t, n_embd)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)

            if targets is not None:
                # if we are given some desired targets also calculate the loss
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)
            else:
                # inference-time mini-optimization: only forward the lm_head on the very
                # last position
                logits = self.lm_head(x[:, [-1], :])  # note: using list [-1] to preserve the time dim
                loss = None

            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            # start with all of the candidate parameters
            param_dict = {pn: p for pn, p in self.named_parameters()}
            # filter out those that do not require grad
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            # create optim groups. Any parameters that is 2D will be weight decayed,
            # otherwise no. i.e. all weight tensors in matmuls + embeddings decay, all
            # biases and layernorms don't.
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {'params': decay_params, 'weight_decay': weight_decay},
                {'params': nodecay_params, 'weight_decay': 0.0}
            ]
            # Create AdamW optimizer and use the fused version if it is available
            fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and device_type == 'cuda'
            extra_args = dict(fused=True) if use_fused else dict()
            optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas,
                                          **extra_args)
            return optimizer

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            """Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and
            complete the sequence max_new_tokens times, feeding the predictions back into
            the model each time."""
            for _ in range(max_new_tokens):
                # if the sequence context is growing too long we must crop it at block_size
                idx_cond = idx if idx.size(1) <= self.config.block_size else \
                    idx[:, -self.config.block_size:]
                # forward the model to get the logits for the index in the sequence
                logits, _ = self(idx_cond)
                # pluck the logits at the final step and scale by desired temperature
                logits = logits[:, -1, :] / temperature
                # optionally crop the logits to only the top k options
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                # apply softmax to convert logits to (normalized) probabilities
                probs = F.softmax(logits, dim=-1)
                # sample from the distribution
                idx_next = torch.multinomial(probs, num_samples=1)
                # append sampled index to the running sequence and continue
                idx = torch.cat((idx, idx_next), dim=1)

            return idx

    return GPT


def main(torch, max_iters=24, state=None, device="cpu", rng=None, flash=True):
    torch.manual_seed(1337)
    device_type = 'cuda' if 'cuda' in device else 'cpu'
    text = " ".join(markov_text(1500, vocab=12, seed=4))
    chars = sorted(list(set(text)))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    encode = lambda s: [stoi[c] for c in s]  # noqa: E731
    decode = lambda l: ''.join([itos[i] for i in l])  # noqa: E731
    data = np.array(encode(text), dtype=np.int64)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]

    batch_size, block_size, gradient_accumulation_steps = 8, 16, 2
    eval_iters, eval_interval = 4, 8
    learning_rate, min_lr, warmup_iters, lr_decay_iters = 3e-3, 3e-4, 4, max_iters

    def get_batch(split):
        data = train_data if split == 'train' else val_data
        if rng is None:
            ix = torch.randint(len(data) - block_size, (batch_size,))
        else:
            ix = torch.from_numpy(rng.integers(0, len(data) - block_size, batch_size))
        x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64))
                         for i in ix])
        y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64))
                         for i in ix])
        return x.to(device), y.to(device)

    model_args = dict(n_layer=2, n_head=2, n_embd=32, block_size=block_size, bias=True,
                      vocab_size=len(chars), dropout=0.0)
    gptconf = GPTConfig(**model_args)
    model = define(torch)(gptconf, flash=flash)
    model.to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    tied = model.transformer.wte.weight is model.lm_head.weight

    # initialize a GradScaler. If enabled=False scaler is a no-op
    scaler = torch.amp.GradScaler(device_type, enabled=False)
    optimizer = model.configure_optimizers(1e-1, learning_rate, (0.9, 0.99), device_type)
    ctx = nullcontext()

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                with ctx:
                    logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    # learning rate decay scheduler (cosine with warmup)
    def get_lr(it):
        # 1) linear warmup for warmup_iters steps
        if it < warmup_iters:
            return learning_rate * (it + 1) / (warmup_iters + 1)
        # 2) if it > lr_decay_iters, return min learning rate
        if it > lr_decay_iters:
            return min_lr
        # 3) in between, use cosine decay down to min learning rate
        decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))  # coeff ranges 0..1
        return min_lr + coeff * (learning_rate - min_lr)

    losses, lrs, evals, grad_norms = [], [], [], []
    best_val_loss, checkpoint = 1e9, None
    X, Y = get_batch('train')  # fetch the very first batch
    for iter_num in range(max_iters + 1):
        lr = get_lr(iter_num)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        lrs.append(lr)

        if iter_num % eval_interval == 0:
            split_losses = estimate_loss()
            evals.append((split_losses['train'].item(), split_losses['val'].item()))
            if split_losses['val'] < best_val_loss:
                best_val_loss = split_losses['val']
                checkpoint = {
                    'model': model.state_dict(),
                    'optimizer': optimizer.state_dict(),
                    'model_args': model_args,
                    'iter_num': iter_num,
                    'best_val_loss': best_val_loss,
                }

        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                # scale the loss to account for gradient accumulation
                loss = loss / gradient_accumulation_steps
            # immediately async prefetch next batch while model is doing the forward pass
            X, Y = get_batch('train')
            # backward pass, with gradient scaling if training in fp16
            scaler.scale(loss).backward()
        # clip the gradient
        scaler.unscale_(optimizer)
        grad_norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        # step the optimizer and scaler if training in fp16
        scaler.step(optimizer)
        scaler.update()
        # flush the gradients as soon as we can, no need for this memory anymore
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item() * gradient_accumulation_steps)

    start_ids = encode(text[:4])
    x = torch.tensor(start_ids, dtype=torch.long, device=device)[None, ...]
    y = model.generate(x, block_size + 4, temperature=0.8, top_k=1)
    return {"losses": losses, "lrs": lrs, "evals": evals, "grad_norms": grad_norms,
            "num_params": model.get_num_params(), "tied": tied,
            "best": (checkpoint['iter_num'], checkpoint['best_val_loss'].item()),
            "sample": decode(y[0].tolist()), "state": initial}
