"""MAML (Finn et al. 2017) on sinusoid regression, as functional MAML code writes it: the
model's parameters copied into a list of fast weights, an inner loop of SGD steps on a
task's support set with torch.autograd.grad(loss, fast_weights, create_graph=True), the
adapted weights used through F.linear, and the query losses of a meta-batch of tasks
averaged and backpropagated (through the inner loop: second order) into the model by
Adam. With ``first_order`` the inner grads are taken without create_graph (FOMAML).
With ``style="by_name"`` the fast weights are an OrderedDict of named parameters instead,
applied by torch.func.functional_call and differentiated through ``fast_weights.values()``;
with ``style="torch_func"`` a dict differentiated by torch.func.grad(loss_fn), and with
``style="torch_func_vmap"`` also the meta-batch's tasks stacked and mapped by
torch.func.vmap (functorch's MAML example).
Tasks (amplitude, phase, sample points) come from a numpy generator. The meta losses
of fresh tasks are noisy; the loss on fixed held-out tasks after five inner steps,
evaluated every ``eval_every`` meta iterations, must fall."""
from collections import OrderedDict

import numpy as np

from . import load_numpy_state, numpy_state


def sine_task(rng, k):
    """Support and query sets (x, y) of one sinusoid, float32 (k, 1) each."""
    amplitude, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
    x = rng.uniform(-5.0, 5.0, (2 * k, 1)).astype(np.float32)
    y = (amplitude * np.sin(x - phase)).astype(np.float32)
    return (x[:k], y[:k]), (x[k:], y[k:])


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    class SineNet(nn.Module):
        def __init__(self, hidden=40):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU(),
                                     nn.Linear(hidden, 1))

        def forward(self, x, params=None):
            if params is None:
                return self.net(x)
            x = F.relu(F.linear(x, params[0], params[1]))
            x = F.relu(F.linear(x, params[2], params[3]))
            return F.linear(x, params[4], params[5])

    return SineNet


def adapt(torch, style, forward, fast_weights, support, inner_lr, inner_steps, create_graph):
    """The fast weights (a list, or a dict by name) after ``inner_steps`` SGD steps on the
    support set."""
    F = torch.nn.functional
    x, y = support

    def loss_fn(params):
        return F.mse_loss(forward(x, params), y)

    for _ in range(inner_steps):
        if style.startswith("torch_func"):
            grads = torch.func.grad(loss_fn)(fast_weights)
            if not create_graph:
                grads = {name: g.detach() for name, g in grads.items()}
            fast_weights = {name: w - inner_lr * grads[name]
                            for name, w in fast_weights.items()}
        elif style == "by_name":
            grads = torch.autograd.grad(loss_fn(fast_weights), fast_weights.values(),
                                        create_graph=create_graph)
            fast_weights = OrderedDict((name, w - inner_lr * g)
                                       for (name, w), g in zip(fast_weights.items(), grads))
        else:
            grads = torch.autograd.grad(loss_fn(fast_weights), fast_weights,
                                        create_graph=create_graph)
            fast_weights = [w - inner_lr * g for w, g in zip(fast_weights, grads)]
    return fast_weights


def main(torch, meta_iters=60, meta_batch=8, k_shot=10, inner_lr=0.01, inner_steps=1,
         meta_lr=1e-2, first_order=False, style="list", eval_every=10, state=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    F = torch.nn.functional
    torch.manual_seed(0)
    model = define(torch)()
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    meta_optimizer = torch.optim.Adam(model.parameters(), lr=meta_lr)
    if style != "list":
        def forward(x, fast_weights):
            return torch.func.functional_call(model, fast_weights, (x,))

        def weights():
            return OrderedDict(model.named_parameters())
    else:
        forward = model

        def weights():
            return list(model.parameters())

    def tensors(task):
        return tuple((torch.from_numpy(x), torch.from_numpy(y)) for x, y in task)

    test_tasks = [tensors(sine_task(rng, k_shot)) for _ in range(8)]

    def evaluate(steps=5):
        """Mean query loss on the held-out tasks after ``steps`` inner steps each."""
        total = 0.0
        for support, (x, y) in test_tasks:
            fast_weights = adapt(torch, style, forward, weights(), support, inner_lr, steps,
                                 create_graph=False)
            with torch.no_grad():
                total += F.mse_loss(forward(x, fast_weights), y).item()
        return total / len(test_tasks)

    def task_loss(x_support, y_support, x_query, y_query):
        """The query loss after adapting to the support set."""
        fast_weights = adapt(torch, style, forward, weights(), (x_support, y_support),
                             inner_lr, inner_steps, create_graph=not first_order)
        return F.mse_loss(forward(x_query, fast_weights), y_query)

    meta_losses, support_losses, eval_losses = [], [], []
    for iteration in range(meta_iters):
        if iteration % eval_every == 0:
            eval_losses.append(evaluate())
        meta_optimizer.zero_grad()
        tasks = [tensors(sine_task(rng, k_shot)) for _ in range(meta_batch)]
        with torch.no_grad():
            support_losses += [F.mse_loss(model(x), y).item() for (x, y), _ in tasks]
        if style == "torch_func_vmap":
            stacked = [torch.stack(part) for part in zip(*[s + q for s, q in tasks])]
            meta_loss = torch.func.vmap(task_loss)(*stacked).mean()
        else:
            meta_loss = sum(task_loss(*support, *query) for support, query in tasks) / meta_batch
        meta_loss.backward()
        meta_optimizer.step()
        meta_losses.append(meta_loss.item())
    eval_losses.append(evaluate())
    grad_norm = sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt().item()
    return {"meta_losses": meta_losses, "support_losses": support_losses,
            "eval_losses": eval_losses, "last_grad_norm": grad_norm, "state": initial}
