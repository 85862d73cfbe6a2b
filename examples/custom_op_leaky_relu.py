"""A user op end to end, in one file: leaky_relu under the namespace "myns".

definition -> numpy kernel -> hand-written CUDA kernel -> public function -> eager
gradient (capture / apply) -> graph gradient (grad-op conf) -> check_op -> train a small
model eagerly and through nn.Graph. Run: python examples/custom_op_leaky_relu.py
"""
import numpy as np

import minflow
import minflow.library as L
from minflow import nn, optim
from minflow.testing import Sample, check_op

# ---- 1. definition: what the op IS (inference reads shapes and dtypes, never data) ----

def infer(input, negative_slope):
    L.check_dtype(input, L.FLOATS)
    return input.shape, input.dtype


def infer_grad(grad_out, input, negative_slope):
    return infer(input, negative_slope)


SLOPE = L.Attr("negative_slope", "float", 0.01, min=0.0)
EW = ("elementwise", "no_side_effect")
LEAKY_RELU = L.define_op("myns.leaky_relu", ["input"], attrs=[SLOPE], traits=EW, infer=infer,
                         doc="x if x > 0 else negative_slope * x.")
LEAKY_RELU_GRAD = L.define_op("myns.leaky_relu_grad", ["grad_out", "input"], attrs=[SLOPE],
                              traits=EW, infer=infer_grad,
                              doc="grad_out if input > 0 else negative_slope * grad_out.")

# ---- 2. kernels: how it RUNS, on raw arrays (numpy on cpu, cupy on cuda) ----------------

@L.register_kernel("myns.leaky_relu", "cpu", L.FLOATS)
def leaky_relu_cpu(input, negative_slope):
    return np.where(input > 0, input, input * input.dtype.type(negative_slope))


@L.register_kernel("myns.leaky_relu_grad", "cpu", L.FLOATS)
def leaky_relu_grad_cpu(grad_out, input, negative_slope):
    return np.where(input > 0, grad_out, grad_out * grad_out.dtype.type(negative_slope))


# one pass over memory each; compiled by cupy on first use (this file runs without cupy)
_forward_cuda = L.cuda_elementwise("T x, T slope", "T y",
                                   "y = x > 0 ? x : (T)(x * slope)", "myns_leaky_relu")
_backward_cuda = L.cuda_elementwise("T g, T x, T slope", "T dx",
                                    "dx = x > 0 ? g : (T)(g * slope)", "myns_leaky_relu_grad")


@L.register_kernel("myns.leaky_relu", "cuda", L.FLOATS)
def leaky_relu_cuda(input, negative_slope):
    return _forward_cuda(input, input.dtype.type(negative_slope))


@L.register_kernel("myns.leaky_relu_grad", "cuda", L.FLOATS)
def leaky_relu_grad_cuda(grad_out, input, negative_slope):
    return _backward_cuda(grad_out, input, input.dtype.type(negative_slope))


# ---- 3. public function, made from the signature: minflow.ops.myns.leaky_relu ---------

leaky_relu = L.bind_function(LEAKY_RELU, doc="""leaky_relu(input, negative_slope=0.01)

out = x if x > 0 else negative_slope * x.

>>> minflow.ops.myns.leaky_relu(minflow.tensor([-2.0, 3.0]), 0.5).tolist()
[-1.0, 3.0]
""")

# ---- 4. eager gradient: capture saves what backward needs, apply computes with ops ----

@L.register_grad("myns.leaky_relu")
class LeakyReluGrad(L.GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.negative_slope = attrs["negative_slope"]
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        return L.call(LEAKY_RELU_GRAD, grad_out, x, negative_slope=ctx.negative_slope)


# ---- 5. graph gradient: the grad ops nn.Graph adds for one forward node ---------------
# NOTE: optional here: without it graph mode derives the same from LeakyReluGrad.

@L.register_grad_conf("myns.leaky_relu")
def leaky_relu_conf(ctx):
    grad_in = L.call(LEAKY_RELU_GRAD, ctx.output_grad("out"), ctx.input("input"),
                     negative_slope=ctx.attrs["negative_slope"])
    ctx.bind_input_grad("input", grad_in)


# The grad op's own gradient (double backward) in one declaration, from which both the
# eager and the graph side are derived: it is linear in grad_out, constant in input.
L.backward_spec("myns.leaky_relu_grad", LEAKY_RELU_GRAD, inputs=[L.grad("out"), "input"],
                outputs={"out": "grad_out"})

# ---- 6. check it like a built-in op ----------------------------------------------------

def reference(x, negative_slope=0.01):
    return np.where(x > 0, x, x * x.dtype.type(negative_slope))


def check():
    x = np.random.default_rng(0).uniform(-2, 2, (3, 4))
    return check_op(leaky_relu, [Sample(x), Sample(x[0], negative_slope=0.3)], reference,
                    errors=[(Sample(x, negative_slope=-1.0), ValueError, "expected >= 0.0"),
                            (Sample(np.array([1, 2])), TypeError, "myns.leaky_relu")])


# ---- 7. use it: a small classifier, trained eagerly and through nn.Graph ---------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden, self.out = nn.Linear(2, 32), nn.Linear(32, 2)

    def forward(self, x):
        return self.out(leaky_relu(self.hidden(x), 0.1))


class TrainGraph(nn.Graph):
    def __init__(self, model, optimizer):
        super().__init__()
        self.model = model
        self.add_optimizer(optimizer)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def data(n=256, seed=0):
    """Two interleaved spirals-ish classes: not linearly separable."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, 2))
    y = (np.sin(3 * x[:, 0]) > x[:, 1]).astype(np.int64)
    return minflow.tensor(x, dtype=minflow.float32), minflow.tensor(y)


def train(steps=200, graph=False, seed=0):
    """Train an MLP; the losses and the final accuracy."""
    minflow.manual_seed(seed)
    x, y = data()
    model = MLP()
    optimizer = optim.Adam(model.parameters(), lr=0.02)
    step = TrainGraph(model, optimizer) if graph else None
    losses = []
    for _ in range(steps):
        if graph:
            loss = step(x, y)
        else:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    with minflow.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    return losses, accuracy


if __name__ == "__main__":
    print(check())
    for mode in ("eager", "graph"):
        losses, accuracy = train(graph=mode == "graph")
        print(f"{mode}: loss {losses[0]:.3f} -> {losses[-1]:.3f}, accuracy {accuracy:.1%}")
