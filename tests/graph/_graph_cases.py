"""One case per differentiable op (and a few composites) for the eager == graph tests.

A case is (fn, inputs): ``fn(*tensors)`` calls the op (through its public function where
there is one, else through the dispatcher) and returns a tensor or a tuple of them;
``inputs`` say how to make each tensor. Keys are op names, or "op/variant"; keys under
"composite/" name public functions built from other ops.
"""
import numpy as np

import minflow
import minflow.nn.functional as nnF
from minflow.core.device import Device
from minflow.core.dispatch import apply
from minflow.ops import get_op

F64 = minflow.float64


class Leaf:
    """A float64 tensor that requires grad, uniform in [low, high)."""

    def __init__(self, *shape, low=-2.0, high=2.0):
        self.shape, self.low, self.high = shape, low, high

    def make(self, rng):
        values = rng.uniform(self.low, self.high, self.shape)
        return minflow.tensor(values, dtype=F64, requires_grad=True)


class Ints:
    """An int64 tensor with values in [0, high), no grad."""

    def __init__(self, high, *shape):
        self.high, self.shape = high, shape

    def make(self, rng):
        return minflow.tensor(rng.integers(0, self.high, self.shape), dtype=minflow.int64)


class Mask:
    """A bool tensor, no grad."""

    def __init__(self, *shape):
        self.shape = shape

    def make(self, rng):
        return minflow.tensor(rng.uniform(size=self.shape) > 0.5)


def op(name, *inputs, **attrs):
    """Call op ``name`` through the dispatcher (for ops with no public function)."""
    return apply(get_op(name), inputs, attrs)


POS = dict(low=0.5, high=2.0)
PROB = dict(low=0.1, high=0.9)
CONV = dict(stride=(1, 1), padding=(1, 1, 1, 1), dilation=(1, 1), groups=1)
POOL = dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))

CASES = {
    "abs": (lambda x: x.abs(), [Leaf(3, 4)]),
    "adaptive_avg_pool2d": (lambda x: nnF.adaptive_avg_pool2d(x, (2, 3)), [Leaf(2, 3, 5, 6)]),
    "adaptive_avg_pool2d_grad": (lambda g: op("adaptive_avg_pool2d_grad", g, input_size=(5, 6)),
                                 [Leaf(2, 3, 2, 3)]),
    "add": (lambda a, b: a + b * 2, [Leaf(3, 4), Leaf(4)]),
    "amax": (lambda x: x.amax(1), [Leaf(3, 4)]),
    "amin": (lambda x: x.amin((0, 1), keepdim=True), [Leaf(3, 4)]),
    "avg_pool2d": (lambda x: nnF.avg_pool2d(x, 2, padding=1, count_include_pad=False),
                   [Leaf(2, 3, 5, 5)]),
    "avg_pool2d_grad": (lambda g: op("avg_pool2d_grad", g, input_size=(6, 6), **POOL),
                        [Leaf(2, 3, 3, 3)]),
    "batch_norm": (lambda x, w, b: nnF.batch_norm(x, None, None, w, b, training=True),
                   [Leaf(4, 3, 2), Leaf(3), Leaf(3)]),
    "batch_norm/eval": (lambda x, w, b, m, v: nnF.batch_norm(x, m, v, w, b, training=False),
                        [Leaf(4, 3, 2), Leaf(3), Leaf(3), Leaf(3), Leaf(3, **POS)]),
    "binary_cross_entropy": (nnF.binary_cross_entropy, [Leaf(3, 4, **PROB), Leaf(3, 4, **PROB)]),
    "binary_cross_entropy_with_logits": (
        lambda x, t, p: nnF.binary_cross_entropy_with_logits(x, t, pos_weight=p),
        [Leaf(3, 4), Leaf(3, 4, **PROB), Leaf(4, **POS)]),
    "cast": (lambda x: x.float() * 3, [Leaf(3, 4)]),
    "cat": (lambda a, b: minflow.cat([a, b], 1), [Leaf(2, 3), Leaf(2, 2)]),
    "ceil": (lambda x: x.ceil() + x, [Leaf(3, 4)]),
    "clamp": (lambda x: x.clamp(-0.5, 0.7), [Leaf(3, 4)]),
    "clone": (lambda x: x.clone(), [Leaf(3, 4)]),
    "contiguous": (lambda x: op("contiguous", x.T), [Leaf(3, 4)]),
    "conv2d": (lambda x, w, b: nnF.conv2d(x, w, b, stride=2, padding=1),
               [Leaf(2, 3, 5, 5), Leaf(4, 3, 3, 3), Leaf(4)]),
    "conv2d/groups": (lambda x, w: nnF.conv2d(x, w, groups=2, dilation=2),
                      [Leaf(1, 4, 6, 6), Leaf(2, 2, 2, 2)]),
    "conv2d_grad_input": (lambda g, w: op("conv2d_grad_input", g, w, input_size=(5, 5), **CONV),
                          [Leaf(2, 4, 5, 5), Leaf(4, 3, 3, 3)]),
    "conv2d_grad_weight": (lambda g, x: op("conv2d_grad_weight", g, x, kernel_size=(3, 3),
                                           **CONV), [Leaf(2, 4, 5, 5), Leaf(2, 3, 5, 5)]),
    "cos": (lambda x: x.cos(), [Leaf(3, 4)]),
    "cross_entropy": (nnF.cross_entropy, [Leaf(4, 5), Ints(5, 4)]),
    "cross_entropy/weighted": (
        lambda x, t, w: nnF.cross_entropy(x, t, weight=w.detach(), reduction="sum"),
        [Leaf(4, 5, 3), Ints(5, 4, 3), Leaf(5, **POS)]),
    "cumsum": (lambda x: x.cumsum(1), [Leaf(3, 4)]),
    "cumprod": (lambda x: x.cumprod(1), [Leaf(3, 4, **POS)]),
    "atan2": (lambda y, x: minflow.atan2(y, x), [Leaf(3, 4, **POS), Leaf(3, 4, **POS)]),
    "erf": (lambda x: minflow.erf(x), [Leaf(3, 4)]),
    "erfinv": (lambda x: minflow.erfinv(x), [Leaf(3, 4, low=-0.9, high=0.9)]),
    "trunc": (lambda x: minflow.trunc(x), [Leaf(3, 4)]),
    "flip": (lambda x: minflow.flip(x, (1,)), [Leaf(3, 4)]),
    "roll": (lambda x: minflow.roll(x, 1, 1), [Leaf(3, 4)]),
    "diagonal": (lambda x: minflow.diagonal(x, 1), [Leaf(4, 4)]),
    "diagonal_grad": (lambda g: op("diagonal_grad", g, input_size=(4, 4), offset=0, dim1=0,
                                   dim2=1), [Leaf(4)]),
    "det": (lambda x: minflow.linalg.det(x + 4 * minflow.eye(3, dtype=F64)), [Leaf(3, 3)]),
    "inverse": (lambda x: minflow.linalg.inv(x + 4 * minflow.eye(3, dtype=F64)), [Leaf(3, 3)]),
    "div": (lambda a, b: a / b, [Leaf(3, 4), Leaf(3, 1, **POS)]),
    "dropout": (lambda x: nnF.dropout(x, 0.4), [Leaf(6, 5)]),
    "dropout_grad": (lambda g, m: op("dropout_grad", g, m, scale=2.0), [Leaf(3, 4), Mask(3, 4)]),
    "einsum": (lambda a, b: minflow.einsum("ij,jk->ik", a, b), [Leaf(2, 3), Leaf(3, 4)]),
    "embedding": (lambda i, w: nnF.embedding(i, w, padding_idx=1), [Ints(6, 4, 3), Leaf(6, 3)]),
    "embedding_grad": (lambda g, i: op("embedding_grad", g, i, num_weights=6,
                                       scale_grad_by_freq=True), [Leaf(4, 3), Ints(6, 4)]),
    "exp": (lambda x: x.exp(), [Leaf(3, 4)]),
    "expand": (lambda x: x.expand(2, 3, 4), [Leaf(3, 1)]),
    "expm1": (lambda x: x.expm1(), [Leaf(3, 4)]),
    "floor": (lambda x: x.floor() * x, [Leaf(3, 4)]),
    "floor_divide": (lambda a, b: minflow.floor_divide(a, b) + a, [Leaf(3, 4), Leaf(4, **POS)]),
    "gather": (lambda x, i: x.gather(1, i), [Leaf(3, 4), Ints(4, 3, 2)]),
    "gelu": (nnF.gelu, [Leaf(3, 4)]),
    "gelu_grad": (lambda g, x: op("gelu_grad", g, x), [Leaf(3, 4), Leaf(3, 4)]),
    "getitem": (lambda x: x[1:, None, ::2], [Leaf(3, 4)]),
    "getitem_scatter": (lambda x, s: op("getitem_scatter", x, s, index=(slice(0, 2), 1)),
                        [Leaf(3, 4), Leaf(2)]),
    "index": (lambda x, i: x[i, 1:], [Leaf(4, 3), Ints(4, 5)]),
    "index_put": (lambda x, i, v: x.index_put((i,), v, accumulate=True),
                  [Leaf(4, 3), Ints(4, 5), Leaf(5, 3)]),
    "layer_norm": (lambda x, w, b: nnF.layer_norm(x, (4,), w, b), [Leaf(3, 4), Leaf(4), Leaf(4)]),
    "leaky_relu": (lambda x: nnF.leaky_relu(x, 0.2), [Leaf(3, 4)]),
    "leaky_relu_grad": (lambda g, x: op("leaky_relu_grad", g, x, negative_slope=0.2),
                        [Leaf(3, 4), Leaf(3, 4)]),
    "linear": (nnF.linear, [Leaf(2, 3), Leaf(4, 3), Leaf(4)]),
    "log": (lambda x: x.log(), [Leaf(3, 4, **POS)]),
    "log1p": (lambda x: x.log1p(), [Leaf(3, 4, **POS)]),
    "log_softmax": (lambda x: x.log_softmax(1), [Leaf(3, 4)]),
    "masked_fill": (lambda x, m: x.masked_fill(m, 0.5), [Leaf(3, 4), Mask(4)]),
    "matmul": (lambda a, b: a @ b, [Leaf(2, 2, 3), Leaf(3, 4)]),
    "max_dim": (lambda x: x.max(1), [Leaf(3, 4)]),
    "max_pool2d": (lambda x: nnF.max_pool2d(x, 2, stride=1, padding=1), [Leaf(2, 3, 4, 4)]),
    "max_pool2d_gather": (
        lambda x: op("max_pool2d_gather", x, op("max_pool2d", x.detach(), dilation=(1, 1),
                                                 **POOL)[1], input_size=(4, 4),
                     dilation=(1, 1), **POOL), [Leaf(2, 3, 4, 4)]),
    "max_pool2d_grad": (
        lambda g, x: op("max_pool2d_grad", g, op("max_pool2d", x, dilation=(1, 1), **POOL)[1],
                        input_size=(4, 4), dilation=(1, 1), **POOL),
        [Leaf(2, 3, 2, 2), Leaf(2, 3, 4, 4)]),
    "maximum": (minflow.maximum, [Leaf(3, 4), Leaf(4)]),
    "min_dim": (lambda x: x.min(0, keepdim=True)[0], [Leaf(3, 4)]),
    "minimum": (minflow.minimum, [Leaf(3, 4), Leaf(3, 4)]),
    "mul": (lambda a, b: a * b, [Leaf(3, 4), Leaf(3, 1)]),
    "narrow": (lambda x: x.narrow(1, 1, 2), [Leaf(3, 4)]),
    "neg": (lambda x: -x, [Leaf(3, 4)]),
    "nll_loss": (lambda x, t: nnF.nll_loss(x, t, ignore_index=2), [Leaf(5, 4), Ints(4, 5)]),
    "pad": (lambda x: nnF.pad(x, (1, 2, 0, 1), value=0.5), [Leaf(3, 4)]),
    "permute": (lambda x: x.permute(2, 0, 1), [Leaf(2, 3, 4)]),
    "pow": (lambda a, b: a ** b, [Leaf(3, 4, **POS), Leaf(4)]),
    "prod": (lambda x: x.prod(1), [Leaf(3, 4)]),
    "reciprocal": (lambda x: x.reciprocal(), [Leaf(3, 4, **POS)]),
    "relu": (lambda x: x.relu(), [Leaf(3, 4)]),
    "relu_grad": (lambda g, y: op("relu_grad", g, y.relu()), [Leaf(3, 4), Leaf(3, 4)]),
    "remainder": (lambda a, b: a % b, [Leaf(3, 4), Leaf(4, **POS)]),
    "reshape": (lambda x: x.reshape(4, 3), [Leaf(3, 4)]),
    "round": (lambda x: x.round() + x, [Leaf(3, 4)]),
    "rsqrt": (lambda x: x.rsqrt(), [Leaf(3, 4, **POS)]),
    "scatter": (lambda x, s: x.scatter(0, minflow.tensor([[0, 1, 2, 0]]), s),
                [Leaf(3, 4), Leaf(1, 4)]),
    "scatter_add": (lambda x, i, s: x.scatter_add(1, i, s), [Leaf(3, 4), Ints(4, 3, 5),
                                                              Leaf(3, 5)]),
    "sigmoid": (lambda x: x.sigmoid(), [Leaf(3, 4)]),
    "sigmoid_grad": (lambda g, y: op("sigmoid_grad", g, y.sigmoid()), [Leaf(3, 4), Leaf(3, 4)]),
    "sign": (lambda x: x.sign() * x, [Leaf(3, 4)]),
    "sin": (lambda x: x.sin(), [Leaf(3, 4)]),
    "softmax": (lambda x: x.softmax(0), [Leaf(3, 4)]),
    "sqrt": (lambda x: x.sqrt(), [Leaf(3, 4, **POS)]),
    "square": (lambda x: x.square(), [Leaf(3, 4)]),
    "sub": (lambda a, b: 1 - a - b, [Leaf(3, 4), Leaf(4)]),
    "sum": (lambda x: x.sum((0, 2)), [Leaf(3, 4, 2)]),
    "tanh": (lambda x: x.tanh(), [Leaf(3, 4)]),
    "tanh_grad": (lambda g, y: op("tanh_grad", g, y.tanh()), [Leaf(3, 4), Leaf(3, 4)]),
    "to_device": (lambda x: op("to_device", x, device=Device("cpu")), [Leaf(3, 4)]),
    "tril": (lambda x: x.tril(1), [Leaf(4, 4)]),
    "triu": (lambda x: x.triu(-1), [Leaf(4, 4)]),
    "unsqueeze": (lambda x: x.unsqueeze(1), [Leaf(3, 4)]),
    "where": (lambda c, a, b: minflow.where(c, a, b), [Mask(3, 4), Leaf(3, 4), Leaf(4)]),
    # composites: no op of their own, common in models
    "composite/mse_loss": (nnF.mse_loss, [Leaf(3, 4), Leaf(3, 4)]),
    "composite/var": (lambda x: x.var(1), [Leaf(3, 4)]),
    "composite/logsumexp": (lambda x: x.logsumexp(1), [Leaf(3, 4)]),
    "composite/softplus": (nnF.softplus, [Leaf(3, 4)]),
    "composite/attention": (nnF.scaled_dot_product_attention,
                            [Leaf(2, 3, 4), Leaf(2, 5, 4), Leaf(2, 5, 4)]),
    "composite/shared_input": (lambda x: x * x.exp() + x.sin(), [Leaf(3, 4)]),
}

# Differentiable ops with no case, each with the reason: graph backward raises a clear
# error naming the op and its source line for them (tests/graph/test_autodiff.py).
EXCLUDED = {
    "batch_norm_grad": "no grad function: double backward runs a composite instead",
    "layer_norm_grad": "no grad function: double backward runs a composite instead",
    "cross_entropy_grad": "no grad function: double backward runs a composite instead",
}


def make_inputs(key, seed=0):
    rng = np.random.default_rng(seed)
    return [spec.make(rng) for spec in CASES[key][1]]

# sorting, special math and matrix ops (tests/ops/test_sorting.py, test_special.py,
# test_linalg_extra.py); sort and topk are composites of argsort / topk indices and gather
CASES.update({
    "trunc": (lambda x: x.trunc() * x, [Leaf(3, 4)]),
    "erf": (lambda x: x.erf(), [Leaf(3, 4)]),
    "erfinv": (lambda x: x.erfinv(), [Leaf(3, 4, low=-0.9, high=0.9)]),
    "atan2": (lambda a, b: minflow.atan2(a, b), [Leaf(3, 4), Leaf(4, **POS)]),
    "cumprod": (lambda x: x.cumprod(1), [Leaf(3, 4)]),
    "flip": (lambda x: x.flip([0, 1]), [Leaf(3, 4)]),
    "roll": (lambda x: x.roll((1, -2), (0, 1)), [Leaf(3, 4)]),
    "diagonal": (lambda x: x.diagonal(1, 0, 2), [Leaf(3, 2, 4)]),
    "diagonal_grad": (lambda v: minflow.diag(v, -1), [Leaf(3)]),
    "inverse": (lambda a: (a + 3 * minflow.eye(3, dtype=F64)).inverse(), [Leaf(2, 3, 3)]),
    "det": (lambda a: (a + 3 * minflow.eye(3, dtype=F64)).det(), [Leaf(2, 3, 3)]),
    "composite/sort": (lambda x: x.sort(1, descending=True).values, [Leaf(3, 4)]),
    "composite/topk": (lambda x: x.topk(2).values, [Leaf(3, 4)]),
    "composite/lerp": (lambda a, b, w: minflow.lerp(a, b, w), [Leaf(3, 4), Leaf(3, 4),
                                                              Leaf(4)]),
    "composite/addmm": (lambda c, a, b: minflow.addmm(c, a, b, beta=0.5, alpha=2),
                        [Leaf(4), Leaf(3, 2), Leaf(2, 4)]),
    "composite/trace": (lambda x: x.trace(), [Leaf(4, 4)]),
    "composite/vector_norm": (lambda x: minflow.linalg.vector_norm(x, 3, dim=1),
                              [Leaf(3, 4, **POS)]),
    "composite/matrix_norm": (lambda x: minflow.linalg.matrix_norm(x), [Leaf(2, 3, 4)]),
})

# unary math (tests/ops/test_unary_math.py)
UNIT = dict(low=-0.9, high=0.9)
CASES.update({
    "tan": (lambda x: x.tan(), [Leaf(3, 4, low=-1.2, high=1.2)]),
    "asin": (lambda x: x.asin(), [Leaf(3, 4, **UNIT)]),
    "acos": (lambda x: minflow.arccos(x), [Leaf(3, 4, **UNIT)]),
    "atan": (lambda x: x.atan(), [Leaf(3, 4)]),
    "sinh": (lambda x: x.sinh(), [Leaf(3, 4)]),
    "cosh": (lambda x: x.cosh(), [Leaf(3, 4)]),
    "asinh": (lambda x: x.asinh(), [Leaf(3, 4)]),
    "acosh": (lambda x: x.acosh(), [Leaf(3, 4, low=1.1, high=3.0)]),
    "atanh": (lambda x: x.atanh(), [Leaf(3, 4, **UNIT)]),
    "log2": (lambda x: x.log2(), [Leaf(3, 4, **POS)]),
    "log10": (lambda x: x.log10(), [Leaf(3, 4, **POS)]),
    "exp2": (lambda x: x.exp2(), [Leaf(3, 4)]),
    "erfc": (lambda x: x.erfc(), [Leaf(3, 4)]),
    "sinc": (lambda x: x.sinc(), [Leaf(3, 4)]),
    "deg2rad": (lambda x: x.deg2rad(), [Leaf(3, 4)]),
    "rad2deg": (lambda x: x.rad2deg(), [Leaf(3, 4)]),
    "logit": (lambda x: x.logit(0.2), [Leaf(3, 4, low=0.05, high=0.95)]),
    "nan_to_num": (lambda x: (x.log() * 0.5).nan_to_num(posinf=3.0), [Leaf(3, 4)]),
})

# binary math (tests/ops/test_binary_math.py)
CASES.update({
    "fmod": (lambda a, b: minflow.fmod(a, b), [Leaf(3, 4), Leaf(4, **POS)]),
    "hypot": (lambda a, b: a.hypot(b), [Leaf(3, 4), Leaf(3, 1)]),
    "copysign": (lambda a, b: a.copysign(b), [Leaf(3, 4), Leaf(4)]),
    "nextafter": (lambda a, b: a.nextafter(b), [Leaf(3, 4), Leaf(4)]),
    "logaddexp": (lambda a, b: a.logaddexp(b), [Leaf(3, 4), Leaf(4)]),
    "logaddexp2": (lambda a, b: a.logaddexp2(b), [Leaf(3, 4), Leaf(3, 1)]),
    "xlogy": (lambda a, b: a.xlogy(b), [Leaf(3, 4), Leaf(4, **POS)]),
    "fmax": (lambda a, b: a.fmax(b), [Leaf(3, 4), Leaf(4)]),
    "fmin": (lambda a, b: a.fmin(b), [Leaf(3, 4), Leaf(3, 1)]),
    "composite/float_power": (lambda a, b: a.float_power(b), [Leaf(3, 4, **POS), Leaf(4)]),
    "composite/ldexp": (lambda a, b: a.ldexp(b), [Leaf(3, 4), Leaf(4)]),
})

# scans and composite reductions (tests/ops/test_scan_reduce.py)
CASES.update({
    "logcumsumexp": (lambda x: x.logcumsumexp(1), [Leaf(3, 4)]),
    "cummax": (lambda x: x.cummax(0).values, [Leaf(3, 4)]),
    "cummin": (lambda x: minflow.cummin(x, 1), [Leaf(3, 4)]),
    "composite/nansum": (lambda x: (x.log() * 0.5).nansum(1), [Leaf(3, 4)]),
    "composite/nanmean": (lambda x: (x.log() * 0.5).nanmean(0), [Leaf(3, 4)]),
    "composite/aminmax": (lambda x: tuple(x.aminmax(dim=1)), [Leaf(3, 4)]),
})

def _tanh_normal_log_prob(loc, scale):
    """SAC's squashed Gaussian: log-probability of its own reparameterized action."""
    D = minflow.distributions
    policy = D.TransformedDistribution(D.Normal(loc, scale), [D.TanhTransform(cache_size=1)])
    action = policy.rsample((2,))
    return policy.log_prob(action) + action


# the gamma family and Bessel functions (tests/ops/test_gamma.py)
CASES.update({
    "lgamma": (lambda x: x.lgamma(), [Leaf(3, 4, **POS)]),
    "digamma": (lambda x: x.digamma(), [Leaf(3, 4, **POS)]),
    "polygamma": (lambda x: minflow.polygamma(2, x), [Leaf(3, 4, **POS)]),
    "i0": (lambda x: x.i0(), [Leaf(3, 4)]),
    "i1": (lambda x: op("i1", x), [Leaf(3, 4)]),
    "composite/mvlgamma": (lambda x: x.mvlgamma(3), [Leaf(3, 4, low=1.5, high=3.0)]),
    "igamma": (lambda x: minflow.igamma(minflow.full_like(x, 1.5), x), [Leaf(3, 4, **POS)]),
    "igammac": (lambda x: minflow.igammac(minflow.full_like(x, 2.5), x), [Leaf(3, 4, **POS)]),
    # the same seed in eager and graph runs: the same draws, so the same implicit grads
    "standard_gamma": (lambda a: minflow._standard_gamma(a), [Leaf(3, 4, **POS)]),
    "composite/Gamma.rsample": (
        lambda a, b: minflow.distributions.Gamma(a, b).rsample((2,)),
        [Leaf(3, **POS), Leaf(3, **POS)]),
    "composite/Normal.log_prob": (
        lambda m, s, x: minflow.distributions.Normal(m, s).log_prob(x),
        [Leaf(3), Leaf(3, **POS), Leaf(2, 3)]),
    "composite/Dirichlet.log_prob": (
        lambda c: minflow.distributions.Dirichlet(c).log_prob(minflow.full_like(c, 0.25)),
        [Leaf(2, 4, **POS)]),
    "composite/MultivariateNormal.log_prob": (
        lambda m, t, x: minflow.distributions.MultivariateNormal(
            m, scale_tril=t.tril(-1) + minflow.eye(3, dtype=F64) * 2).log_prob(x),
        [Leaf(3), Leaf(3, 3), Leaf(4, 3)]),
    "composite/kl_divergence": (
        lambda a, b: minflow.distributions.kl_divergence(
            minflow.distributions.Categorical(logits=a),
            minflow.distributions.Categorical(logits=b)),
        [Leaf(3, 4), Leaf(3, 4)]),
    "composite/StudentT.log_prob": (
        lambda df, s, x: minflow.distributions.StudentT(df + 2, 0.5, s).log_prob(x),
        [Leaf(3, **POS), Leaf(3, **POS), Leaf(2, 3)]),
    "composite/LowRankMultivariateNormal.log_prob": (
        lambda m, w, d, x: minflow.distributions.LowRankMultivariateNormal(m, w, d).log_prob(x),
        [Leaf(3), Leaf(3, 2), Leaf(3, **POS), Leaf(4, 3)]),
    "composite/Kumaraswamy.rsample": (
        lambda a, b: minflow.distributions.Kumaraswamy(a, b).rsample((2,)),
        [Leaf(3, **POS), Leaf(3, **POS)]),
    "composite/tanh_normal.log_prob(rsample)": (
        lambda m, s: _tanh_normal_log_prob(m, s),
        [Leaf(3), Leaf(3, **POS)]),
    "composite/kl_divergence(Gumbel, Normal)": (
        lambda a, b: minflow.distributions.kl_divergence(
            minflow.distributions.Gumbel(a, b), minflow.distributions.Normal(b, a.exp())),
        [Leaf(3), Leaf(3, **POS)]),
})

# nn composites added with the functional/module batch (activations, distances, losses,
# interpolate, group_norm, conv_transpose2d, pools, an LSTM step): no ops of their own
CASES.update({
    "composite/relu6": (nnF.relu6, [Leaf(3, 4, low=-2.0, high=8.0)]),
    "composite/hardsigmoid": (nnF.hardsigmoid, [Leaf(3, 4, low=-5.0, high=5.0)]),
    "composite/hardswish": (nnF.hardswish, [Leaf(3, 4, low=-5.0, high=5.0)]),
    "composite/mish": (nnF.mish, [Leaf(3, 4)]),
    "composite/logsigmoid": (nnF.logsigmoid, [Leaf(3, 4)]),
    "composite/normalize": (lambda x: nnF.normalize(x, dim=0), [Leaf(3, 4)]),
    "composite/cosine_similarity": (nnF.cosine_similarity, [Leaf(3, 4), Leaf(3, 4)]),
    "composite/smooth_l1_loss": (lambda a, b: nnF.smooth_l1_loss(a, b, beta=0.5),
                                 [Leaf(3, 4), Leaf(3, 4)]),
    "composite/kl_div": (lambda a, b: nnF.kl_div(a.log_softmax(1), b, reduction="batchmean"),
                         [Leaf(3, 4), Leaf(3, 4, **PROB)]),
    "composite/interpolate_nearest": (lambda x: nnF.interpolate(x, scale_factor=1.5),
                                      [Leaf(2, 3, 4, 4)]),
    "composite/interpolate_bilinear": (
        lambda x: nnF.interpolate(x, size=(5, 7), mode="bilinear"), [Leaf(2, 3, 4, 4)]),
    "composite/interpolate_bicubic": (
        lambda x: nnF.interpolate(x, scale_factor=(1.5, 0.5), mode="bicubic"),
        [Leaf(2, 3, 4, 4)]),
    "composite/interpolate_antialias": (
        lambda x: nnF.interpolate(x, size=(3, 2), mode="bicubic", antialias=True),
        [Leaf(2, 3, 7, 5)]),
    "composite/group_norm": (lambda x, w, b: nnF.group_norm(x, 2, w, b),
                             [Leaf(2, 4, 5), Leaf(4), Leaf(4)]),
    "composite/conv_transpose2d": (
        lambda x, w, b: nnF.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [Leaf(2, 3, 4, 4), Leaf(3, 2, 3, 3), Leaf(2)]),
    "composite/adaptive_max_pool2d": (lambda x: nnF.adaptive_max_pool2d(x, (2, 3)),
                                      [Leaf(2, 3, 5, 5)]),
    "composite/selu": (nnF.selu, [Leaf(3, 4)]),
    "composite/celu": (lambda x: nnF.celu(x, 0.6), [Leaf(3, 4)]),
    "composite/softmin": (lambda x: nnF.softmin(x, 1), [Leaf(3, 4)]),
    "composite/shrinks": (lambda x: nnF.softshrink(x, 0.3) + nnF.hardshrink(x, 0.4)
                          + nnF.tanhshrink(x), [Leaf(3, 4)]),
    "composite/threshold": (lambda x: nnF.threshold(x, 0.1, 2.0), [Leaf(3, 4)]),
    "composite/rrelu_eval": (lambda x: nnF.rrelu(x, 0.2, 0.3), [Leaf(3, 4)]),
    "im2col": (lambda x: nnF.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
               [Leaf(2, 3, 5, 6)]),
    "col2im": (lambda x: nnF.fold(x, (4, 5), 2, padding=(1, 0)), [Leaf(2, 8, 20)]),
    "composite/rms_norm": (lambda x, w: nnF.rms_norm(x, (3, 4), w), [Leaf(2, 3, 4),
                                                                     Leaf(3, 4)]),
    "composite/shuffles": (lambda x: nnF.channel_shuffle(nnF.pixel_unshuffle(
        nnF.pixel_shuffle(x, 2), 2), 2), [Leaf(2, 8, 3, 2)]),
    "composite/gaussian_nll_loss": (lambda x, y, v: nnF.gaussian_nll_loss(x, y, v, full=True),
                                    [Leaf(3, 4), Leaf(3, 4), Leaf(3, 1, **POS)]),
    "composite/poisson_nll_loss": (lambda x, y: nnF.poisson_nll_loss(x, y, full=True),
                                   [Leaf(3, 4), Leaf(3, 4, low=0.0, high=4.0)]),
    "composite/multi_margin_loss": (lambda x, t: nnF.multi_margin_loss(x, t, p=2),
                                    [Leaf(3, 4), Ints(4, 3)]),
    "composite/multilabel_margin_loss": (
        lambda x: nnF.multilabel_margin_loss(x, minflow.tensor([[2, 0, -1, 1], [3, -1, 0, 0],
                                                                [0, 1, 2, 3]])), [Leaf(3, 4)]),
    "composite/bilinear": (nnF.bilinear, [Leaf(3, 4), Leaf(3, 2), Leaf(5, 4, 2), Leaf(5)]),
    "composite/local_response_norm": (lambda x: nnF.local_response_norm(x, 3, 0.5),
                                      [Leaf(2, 4, 3)]),
    "composite/lp_pool2d": (lambda x: nnF.lp_pool2d(x, 2.0, 2), [Leaf(2, 3, 4, 4, **POS)]),
    "composite/triplet_with_distance": (
        lambda a, p, n: nnF.triplet_margin_with_distance_loss(a, p, n, swap=True),
        [Leaf(3, 4), Leaf(3, 4), Leaf(3, 4)]),
    "composite/embedding_bag": (lambda w, i: nnF.embedding_bag(
        i, w, minflow.tensor([0, 2, 2]), mode="mean", padding_idx=1) + nnF.embedding_bag(
        i, w, minflow.tensor([0, 3, 3]), mode="max"), [Leaf(5, 3), Ints(5, 6)]),
    "composite/lstm": (lambda x, h, c, w, u: minflow.nn.modules.rnn._lstm_step(
        nnF.linear(x, w), h, c, u, None), [Leaf(2, 3), Leaf(2, 4), Leaf(2, 4), Leaf(16, 3),
                                          Leaf(16, 4)]),
})

# public functions and attr variants the cases above do not reach: 1-d conv and pooling,
# losses, matrix products, shape composites, moments, in-place ops on graph tensors
CASES.update({
    "composite/conv1d": (lambda x, w, b: nnF.conv1d(x, w, b, stride=2, padding=1),
                         [Leaf(2, 3, 7), Leaf(4, 3, 3), Leaf(4)]),
    "composite/conv_transpose1d": (lambda x, w: nnF.conv_transpose1d(x, w, stride=2),
                                   [Leaf(2, 3, 5), Leaf(3, 2, 3)]),
    "composite/avg_pool1d": (lambda x: nnF.avg_pool1d(x, 2), [Leaf(2, 3, 6)]),
    "composite/pad_reflect": (lambda x: nnF.pad(x, (2, 1, 1, 0), mode="reflect"),
                              [Leaf(2, 3, 4)]),
    "composite/pad_replicate": (lambda x: nnF.pad(x, (3, -1), mode="replicate"), [Leaf(2, 4)]),
    "composite/pad_circular": (lambda x: nnF.pad(x, (1, 2, 2, 0), mode="circular"),
                               [Leaf(1, 2, 3, 4)]),
    "composite/max_pool1d": (lambda x: nnF.max_pool1d(x, 3, stride=2, padding=1),
                             [Leaf(2, 3, 7)]),
    "composite/dropout2d": (lambda x: nnF.dropout2d(x, 0.5), [Leaf(2, 6, 3, 3)]),
    "composite/instance_norm": (lambda x, w, b: nnF.instance_norm(x, weight=w, bias=b),
                                [Leaf(2, 3, 5), Leaf(3), Leaf(3)]),
    "composite/layer_norm_no_affine": (lambda x: nnF.layer_norm(x, (3, 4)), [Leaf(2, 3, 4)]),
    "composite/batch_norm_no_affine": (lambda x: nnF.batch_norm(x, None, None, training=True),
                                       [Leaf(5, 3)]),
    "composite/l1_loss": (nnF.l1_loss, [Leaf(3, 4), Leaf(3, 4)]),
    "composite/huber_loss": (lambda a, b: nnF.huber_loss(a, b, delta=0.7),
                             [Leaf(3, 4), Leaf(3, 4)]),
    "composite/margin_ranking_loss": (lambda a, b, y: nnF.margin_ranking_loss(
        a, b, y.detach().sign(), margin=0.2), [Leaf(5), Leaf(5), Leaf(5)]),
    "composite/soft_margin_loss": (lambda a, y: nnF.soft_margin_loss(a, y.detach().sign()),
                                   [Leaf(3, 4), Leaf(3, 4)]),
    "composite/pairwise_distance": (nnF.pairwise_distance, [Leaf(3, 4), Leaf(3, 4)]),
    "composite/softsign": (nnF.softsign, [Leaf(3, 4)]),
    "composite/upsample": (lambda x: nnF.upsample(x, scale_factor=2), [Leaf(1, 2, 3, 3)]),
    "composite/cross_entropy_smoothing": (
        lambda x, t: nnF.cross_entropy(x, t, label_smoothing=0.1), [Leaf(4, 5), Ints(5, 4)]),
    "composite/cross_entropy_probs": (
        lambda x, p: nnF.cross_entropy(x, p.detach().softmax(1)), [Leaf(4, 5), Leaf(4, 5)]),
    "composite/nll_loss_weighted": (
        lambda x, t, w: nnF.nll_loss(x, t, weight=w.detach(), reduction="sum"),
        [Leaf(4, 5), Ints(5, 4), Leaf(5, **POS)]),
    "composite/mm": (minflow.mm, [Leaf(2, 3), Leaf(3, 4)]),
    "composite/bmm": (minflow.bmm, [Leaf(2, 2, 3), Leaf(2, 3, 4)]),
    "composite/mv": (minflow.mv, [Leaf(2, 3), Leaf(3)]),
    "composite/dot": (minflow.dot, [Leaf(3), Leaf(3)]),
    "composite/outer": (minflow.outer, [Leaf(3), Leaf(4)]),
    "composite/stack_unbind": (lambda a, b: minflow.stack([a, b], 1).unbind(2),
                               [Leaf(3, 4), Leaf(3, 4)]),
    "composite/split_chunk": (lambda x: (*x.split([1, 3], 1), *x.chunk(2, 0)), [Leaf(4, 4)]),
    "composite/shape_views": (
        lambda x: x.unsqueeze(0).transpose(0, 2).flatten().unflatten(0, (4, 3)).squeeze(),
        [Leaf(3, 4)]),
    "composite/broadcast_to": (lambda x: minflow.broadcast_to(x, (2, 3, 4)), [Leaf(3, 1)]),
    "composite/index_select": (lambda x, i: x.index_select(1, i), [Leaf(3, 4), Ints(4, 6)]),
    "composite/take_along_dim": (lambda x, i: minflow.take_along_dim(x, i, 1),
                                 [Leaf(3, 4), Ints(4, 3, 2)]),
    "composite/mean": (lambda x: x.mean() + x.mean(1, keepdim=True).sum(), [Leaf(3, 4)]),
    "composite/std": (lambda x: x.std(0, correction=0), [Leaf(3, 4)]),
    "composite/var_mean": (lambda x: minflow.var_mean(x, 1), [Leaf(3, 4)]),
    "composite/std_mean": (lambda x: minflow.std_mean(x, (0, 1)), [Leaf(3, 4)]),
    "composite/linalg_norm": (lambda x: minflow.linalg.norm(x) + minflow.norm(x, 1),
                              [Leaf(3, 4)]),
    "composite/frac_fix": (lambda x: x.frac() + minflow.fix(x) * x, [Leaf(3, 4)]),
    "composite/fliplr_flipud_msort": (lambda x: (x.fliplr(), x.flipud(), minflow.msort(x)),
                                      [Leaf(3, 4)]),
    "composite/clamp_tensor_bounds": (lambda x, lo, hi: x.clamp(min=lo, max=hi),
                                      [Leaf(3, 4), Leaf(4, low=-2.0, high=0.0),
                                       Leaf(3, 1, low=0.0, high=2.0)]),
    "composite/clamp_min_max": (lambda x: x.clamp_min(-0.5) + x.clamp_max(0.5), [Leaf(3, 4)]),
    "composite/div_rounding": (lambda a, b: a / 3 + minflow.div(a, b, rounding_mode="trunc"),
                               [Leaf(3, 4), Leaf(4, **POS)]),
    "composite/pow_scalars": (lambda x: x ** 3 + 2 ** x, [Leaf(3, 4, **POS)]),
    "composite/where_scalar": (lambda c, x: minflow.where(c, x, 0.5), [Mask(3, 4), Leaf(3, 4)]),
    "composite/max_all": (lambda x: x.max() + x.min(), [Leaf(3, 4)]),
    "composite/softmax_dtype": (lambda x: x.softmax(-1, dtype=minflow.float32),
                                [Leaf(3, 4)]),
    "composite/inplace_ops": (lambda x, w: x.clone().mul_(w).add_(1).exp_().clamp_(max=5.0),
                              [Leaf(3, 4), Leaf(4)]),
    "composite/setitem": (lambda x, v: _setitem(x, v), [Leaf(3, 4), Leaf(4)]),
    "composite/inplace_index_ops": (
        lambda x, s: x.clone().index_put_((minflow.tensor([0, 2]),), s[:2], accumulate=True)
        .masked_fill_(minflow.tensor([True, False, False, True]), 0.0)
        .scatter_add_(0, minflow.tensor([[1, 0, 2, 1]]), s[2:3]), [Leaf(3, 4), Leaf(3, 4)]),
})


# shape, indexing, sorting and statistics functions: composites of the ops above
CASES.update({
    "composite/broadcast_meshgrid_atleast": (
        lambda x, y: (*minflow.meshgrid(x, y, indexing="xy"),
                      *minflow.broadcast_tensors(x, y[:, None]), minflow.atleast_3d(x)),
        [Leaf(3), Leaf(2)]),
    "composite/splits_stacks": (
        lambda x, y: (*x.tensor_split([1, -1], 1), *x.hsplit(2), *x.vsplit([2]),
                      minflow.dstack([x, y]), minflow.column_stack([x, y[:, 0]])),
        [Leaf(3, 4), Leaf(3, 4)]),
    "composite/diff_trapezoid": (
        lambda y, x: (y.diff(2, 0, prepend=y[:1], append=y[:2]), minflow.trapezoid(y, x),
                      minflow.cumulative_trapezoid(y, dx=0.5, dim=0),
                      *minflow.gradient(y, spacing=(2.0, x.detach().cumsum(0)), edge_order=2)),
        [Leaf(3, 4), Leaf(4)]),
    "median": (lambda x: minflow.median(x) + minflow.nanmedian(x * 2), [Leaf(3, 4)]),
    "composite/order_statistics": (
        lambda x: (x.median(1).values, x.nanmedian(0, True).values, x.kthvalue(2, 0).values,
                   x.mode(1).values, x.quantile(0.3, dim=1),
                   minflow.nanquantile(x, minflow.tensor([0.2, 0.9], dtype=F64),
                                       interpolation="midpoint")),
        [Leaf(3, 4)]),
    "composite/index_update": (
        lambda x, s, v: (x.index_add(1, minflow.tensor([3, 0, 3]), s, alpha=2),
                         x.index_copy(1, minflow.tensor([2, 0, 1]), s),
                         x.index_fill(0, minflow.tensor([2, -1]), v.sum()),
                         x.clone().index_add_(1, minflow.tensor([1, 1, 1]), s),
                         x.select_scatter(s[:, 0], 1, 2), x.slice_scatter(s[:, :2], 1, 0, 3, 2),
                         x.masked_scatter(minflow.tensor([True, False, True, True]), s)),
        [Leaf(3, 4), Leaf(3, 3), Leaf(2)]),
    "scatter_reduce": (
        lambda x, s: (x.scatter_reduce(0, minflow.tensor([[0, 2, 2, 1], [0, 0, 1, 1]]), s,
                                       "prod"),
                      x.scatter_reduce(1, minflow.tensor([[3, 3], [0, 1], [2, 2]]), s[:, :2],
                                       "amax", include_self=False),
                      x.scatter_reduce(0, minflow.tensor([[1, 1, 1, 1]]), s, "mean"),
                      x.clone().scatter_reduce_(0, minflow.tensor([[2, 0, 2, 0]]), s, "sum")),
        [Leaf(3, 4), Leaf(3, 4)]),
    "frexp": (lambda x: minflow.frexp(x * 3).mantissa, [Leaf(3, 4)]),
    "composite/surface": (
        lambda x, s, v: (x.narrow_copy(1, 1, 2), x.prelu(v[:1]), x.diagonal_scatter(s[0, :3]),
                         x.diagonal_scatter(s[:2, 0], -1),
                         x.index_reduce(0, minflow.tensor([0, 2, 0]), s, "prod"),
                         x.index_reduce(1, minflow.tensor([3, 0]), s[:, :2], "amax",
                                        include_self=False),
                         x.index_reduce(0, minflow.tensor([1, 1, 1]), s, "mean"),
                         x.clone().index_reduce_(1, minflow.tensor([2, 2]), s[:, 1:3], "amin")),
        [Leaf(3, 4), Leaf(3, 4), Leaf(3)]),
    "composite/construct": (
        lambda x, v: (x.ravel(), x.rot90(1, (1, 0)), x.take(minflow.tensor([[1, -1]])),
                      minflow.diagflat(v, 1), minflow.diag_embed(x, -1, 0, 2),
                      minflow.block_diag(x, v, v[0]), minflow.cartesian_prod(v, v[:2]),
                      minflow.combinations(v, 2), minflow.vander(v, 3)),
        [Leaf(3, 4), Leaf(3)]),
})


def _setitem(x, v):
    y = x * 1
    y[1] = v
    y[:, 0] = 2.0
    return y


def _spd(a):
    return a @ a.mT + minflow.eye(a.shape[-1], dtype=F64)


def _well(a):
    return a + 3 * minflow.eye(a.shape[-1], dtype=F64)


# minflow.linalg's ops (tests/ops/test_linalg_ops.py): invariant outputs where the sign of
# a factor's vectors is implementation-defined
CASES.update({
    "linalg_solve": (lambda a, b: minflow.linalg.solve(_well(a), b), [Leaf(2, 3, 3),
                                                                       Leaf(2, 3, 2)]),
    "linalg_solve/left_false": (
        lambda a, b: minflow.linalg.solve(_well(a), b, left=False), [Leaf(3, 3), Leaf(2, 3)]),
    "linalg_solve_triangular": (
        lambda a, b: minflow.linalg.solve_triangular(_well(a), b, upper=True),
        [Leaf(2, 3, 3), Leaf(3, 2)]),
    "linalg_solve_triangular/right_unit": (
        lambda a, b: minflow.linalg.solve_triangular(a, b, upper=False, left=False,
                                                     unitriangular=True),
        [Leaf(3, 3), Leaf(2, 3)]),
    "linalg_cholesky_ex": (lambda a: minflow.linalg.cholesky(_spd(a)), [Leaf(2, 3, 3)]),
    "linalg_cholesky_ex/upper": (lambda a: minflow.linalg.cholesky(_spd(a), upper=True),
                                 [Leaf(3, 3)]),
    "linalg_qr": (lambda a: minflow.linalg.qr(a), [Leaf(2, 4, 3)]),
    "linalg_qr/wide": (lambda a: minflow.linalg.qr(a), [Leaf(3, 5)]),
    "linalg_svd": (lambda a: minflow.linalg.svd(a, full_matrices=False), [Leaf(2, 4, 3)]),
    "linalg_svd/svdvals": (minflow.linalg.svdvals, [Leaf(3, 5)]),
    "linalg_eigh": (lambda a: minflow.linalg.eigh(a + a.mT), [Leaf(2, 3, 3)]),
    "linalg_slogdet": (lambda a: minflow.linalg.slogdet(_well(a)).logabsdet, [Leaf(2, 3, 3)]),
    "linalg_pinv": (minflow.linalg.pinv, [Leaf(2, 4, 3)]),
    "linalg_pinv/hermitian": (lambda a: minflow.linalg.pinv(a + a.mT, hermitian=True),
                              [Leaf(3, 3)]),
    "linalg_matrix_exp": (minflow.linalg.matrix_exp, [Leaf(2, 3, 3, low=-1.0, high=1.0)]),
    "composite/lstsq": (lambda a, b: minflow.linalg.lstsq(a, b).solution,
                        [Leaf(5, 3), Leaf(5, 2)]),
    "composite/matrix_power": (lambda a: minflow.linalg.matrix_power(_well(a), -2),
                               [Leaf(3, 3)]),
    "composite/multi_dot": (lambda a, b, c: minflow.linalg.multi_dot([a, b, c]),
                            [Leaf(3), Leaf(3, 4), Leaf(4, 2)]),
    "composite/cross": (lambda a, b: minflow.linalg.cross(a, b), [Leaf(2, 3), Leaf(1, 3)]),
})


def _lu_solve(a, b, **kwargs):
    return minflow.linalg.lu_solve(*minflow.linalg.lu_factor(_well(a)), b, **kwargs)


# the LU family (tests/ops/test_linalg_lu.py) and the rest of torch.linalg: pivots are
# outputs of the factorization, so eager and graph differentiate the same P A = L U
CASES.update({
    "linalg_lu_factor_ex": (lambda a: minflow.linalg.lu_factor(a).LU, [Leaf(2, 4, 4)]),
    "linalg_lu_factor_ex/lu_tall": (lambda a: minflow.linalg.lu(a), [Leaf(5, 3)]),
    "linalg_lu_factor_ex/lu_wide": (lambda a: minflow.linalg.lu(a)[1:], [Leaf(2, 3, 5)]),
    "composite/lu_solve": (_lu_solve, [Leaf(2, 3, 3), Leaf(3, 2)]),
    "composite/lu_solve_adjoint_right": (
        lambda a, b: _lu_solve(a, b, left=False, adjoint=True), [Leaf(3, 3), Leaf(2, 4, 3)]),
    "composite/solve_ex": (lambda a, b: minflow.linalg.solve_ex(_well(a), b).result,
                           [Leaf(2, 3, 3), Leaf(2, 3)]),
    "cholesky_solve": (lambda b, a: minflow.cholesky_solve(b, _well(a).tril()),
                       [Leaf(2, 3, 2), Leaf(2, 3, 3)]),
    "cholesky_solve/upper_inverse": (
        lambda a: minflow.cholesky_inverse(_well(a).triu(), upper=True), [Leaf(2, 3, 3)]),
    "composite/householder_product": (minflow.linalg.householder_product,
                                      [Leaf(2, 4, 3), Leaf(2, 2)]),
    "composite/tensorinv_tensorsolve": (
        lambda a, b: (minflow.linalg.tensorinv(_well(a).reshape(2, 3, 6), ind=2),
                      minflow.linalg.tensorsolve(_well(a).reshape(6, 2, 3), b, dims=(0,))),
        [Leaf(6, 6), Leaf(2, 3)]),
    "composite/vander": (lambda x: minflow.linalg.vander(x, N=4), [Leaf(2, 3)]),
    "composite/ormqr": (lambda a, tau, c: minflow.ormqr(a, tau, c, transpose=True),
                        [Leaf(2, 4, 3), Leaf(2, 3), Leaf(2, 4, 3)]),
})

# the torch namespace's products and distances (minflow/ops/products.py) and the torch
# versions of the factorizations
CASES.update({
    "composite/kron": (minflow.kron, [Leaf(2, 3), Leaf(2, 2)]),
    "composite/tensordot": (lambda a, b: minflow.tensordot(a, b, dims=([0, 2], [2, 0])),
                            [Leaf(2, 3, 4), Leaf(4, 5, 2)]),
    "composite/inner_vdot": (lambda a, b: (minflow.inner(a, b), minflow.vdot(a[0], b[1])),
                             [Leaf(2, 3), Leaf(4, 3)]),
    "composite/dist_cdist": (lambda a, b: (minflow.dist(a, b[:2], 3), minflow.cdist(a, b)),
                             [Leaf(2, 3), Leaf(4, 3)]),
    "composite/addmv_addr": (lambda x, m, v: (minflow.addmv(x, m, v, beta=0.5),
                                              minflow.addr(m, x, v, alpha=2)),
                             [Leaf(3), Leaf(3, 4), Leaf(4)]),
    "composite/baddbmm_addbmm": (lambda x, a, b: (minflow.baddbmm(x, a, b, beta=2),
                                                  minflow.addbmm(x, a, b, alpha=0.5)),
                                 [Leaf(3, 5), Leaf(2, 3, 4), Leaf(2, 4, 5)]),
    "composite/torch_svd_slogdet": (
        lambda a: (minflow.svd(a).S, minflow.logdet(_spd(a)), minflow.pinverse(a)),
        [Leaf(3, 3)]),
    "composite/linalg_norms_cond": (
        lambda a: (minflow.linalg.matrix_norm(a, "nuc"), minflow.linalg.cond(a),
                   minflow.linalg.matrix_norm(a, -2)), [Leaf(2, 3, 3)]),
})

# the torch namespace and Tensor surface: Tensor.unfold, renorm, cov / corrcoef
CASES.update({
    "unfold": (lambda x: x.unfold(1, 3, 2) * 2, [Leaf(2, 7, 3)]),
    "unfold_grad": (lambda g: op("unfold_grad", g, input_size=(2, 7), dimension=1, size=3,
                                 step=2), [Leaf(2, 3, 3)]),
    "composite/renorm": (lambda x: minflow.renorm(x, 2, 0, 1.0), [Leaf(3, 4)]),
    "composite/cov_corrcoef": (lambda x, w: (minflow.cov(x, aweights=w), minflow.corrcoef(x)),
                               [Leaf(3, 5), Leaf(5, **POS)]),
})

# as_strided (overlapping windows of the storage), its backward, and what is built on it
CASES.update({
    "as_strided": (lambda x: minflow.as_strided(x, (3, 4), (2, 1), 1) * 2, [Leaf(3, 4)]),
    "as_strided_grad": (lambda g: op("as_strided_grad", g, input_size=(3, 4),
                                     input_stride=(4, 1), size=(3, 4), stride=(2, 1), offset=1),
                        [Leaf(3, 4)]),
    "composite/as_strided_scatter": (
        lambda x, s: minflow.as_strided_scatter(x, s, (2, 2), (1, 3), 1), [Leaf(3, 4), Leaf(2, 2)]),
    "composite/view_copies": (
        lambda x: (minflow.t_copy(x), minflow.slice_copy(x, 1, 1, None, 2),
                   minflow.unfold_copy(x, 1, 2, 1), minflow.as_strided_copy(x, (2, 2), (1, 1))),
        [Leaf(3, 4)]),
})

# minflow.special's ops of its own, and its composites
CASES.update({
    "special_i0e": (minflow.special.i0e, [Leaf(3, 4)]),
    "special_i1e": (minflow.special.i1e, [Leaf(3, 4)]),
    "special_erfcx": (minflow.special.erfcx, [Leaf(3, 4)]),
    "special_ndtri": (minflow.special.ndtri, [Leaf(3, 4, **PROB)]),
    "special_log_ndtr": (minflow.special.log_ndtr, [Leaf(3, 4)]),
    "special_entr": (minflow.special.entr, [Leaf(3, 4, **POS)]),
    "composite/ndtr_xlog1py": (lambda x, y: (minflow.special.ndtr(x),
                                             minflow.special.xlog1py(x, y)),
                               [Leaf(3, 4), Leaf(3, 4, **POS)]),
})
CASES["composite/pdist"] = (lambda x: minflow.nn.functional.pdist(x, 3), [Leaf(4, 3)])
CASES.update({    # zeta: differentiable in other (q) only; a broadcast input, a number input
    "special_zeta": (
        lambda q: minflow.special.zeta(minflow.tensor([[2.0, 3.5, 5.0, 2.5]], dtype=F64), q),
        [Leaf(3, 4, **POS)]),
    "special_zeta/number": (lambda q: minflow.special.zeta(3, q), [Leaf(4, **POS)]),
})
CASES.update({    # igamma / igammac: differentiable in other only; a broadcast input too
    "composite/special.gammaincc": (
        lambda x: minflow.special.gammaincc(minflow.tensor([[0.5, 1.5, 2.0, 3.0]], dtype=F64), x),
        [Leaf(3, 4, **POS)]),
})

# 3-D convolution and pooling ops, and the 3-D, unpooling and spatial sampling composites
CONV3 = dict(stride=(1, 2, 1), padding=(1, 0, 0, 1, 1, 1), dilation=(1, 1, 2), groups=1)
POOL3 = dict(kernel_size=(2, 2, 2), stride=(2, 1, 2), padding=(1, 0, 0))
CASES.update({
    "conv3d": (lambda x, w, b: nnF.conv3d(x, w, b, stride=(1, 2, 1), padding=1),
               [Leaf(2, 3, 4, 5, 4), Leaf(4, 3, 3, 2, 3), Leaf(4)]),
    "conv3d/groups": (lambda x, w: nnF.conv3d(x, w, groups=2, dilation=(1, 2, 1)),
                      [Leaf(1, 4, 3, 5, 4), Leaf(2, 2, 2, 2, 2)]),
    "conv3d_grad_input": (lambda g, w: op("conv3d_grad_input", g, w, input_size=(4, 5, 4),
                                          **CONV3), [Leaf(2, 4, 3, 3, 4), Leaf(4, 3, 3, 2, 2)]),
    "conv3d_grad_weight": (lambda g, x: op("conv3d_grad_weight", g, x, kernel_size=(3, 2, 2),
                                           **CONV3),
                           [Leaf(2, 4, 3, 3, 4), Leaf(2, 3, 4, 5, 4)]),
    "max_pool3d": (lambda x: nnF.max_pool3d(x, 2, stride=1, padding=1), [Leaf(2, 3, 3, 4, 3)]),
    "max_pool3d_gather": (
        lambda x: op("max_pool3d_gather", x, op("max_pool3d", x.detach(), dilation=(1, 1, 1),
                                                 **POOL3)[1], input_size=(3, 4, 4),
                     dilation=(1, 1, 1), **POOL3), [Leaf(2, 3, 3, 4, 4)]),
    "max_pool3d_grad": (
        lambda g, x: op("max_pool3d_grad", g, op("max_pool3d", x, dilation=(1, 1, 1),
                                                 **POOL3)[1],
                        input_size=(3, 4, 4), dilation=(1, 1, 1), **POOL3),
        [Leaf(2, 3, 2, 3, 2), Leaf(2, 3, 3, 4, 4)]),
    "avg_pool3d": (lambda x: nnF.avg_pool3d(x, 2, padding=1, count_include_pad=False),
                   [Leaf(2, 3, 3, 4, 3)]),
    "avg_pool3d_grad": (lambda g: op("avg_pool3d_grad", g, input_size=(3, 4, 4), **POOL3),
                        [Leaf(2, 3, 2, 3, 2)]),
    "adaptive_avg_pool3d": (lambda x: nnF.adaptive_avg_pool3d(x, (2, 3, 2)),
                            [Leaf(2, 3, 3, 5, 4)]),
    "adaptive_avg_pool3d_grad": (lambda g: op("adaptive_avg_pool3d_grad", g,
                                              input_size=(3, 5, 4)), [Leaf(2, 3, 2, 3, 2)]),
})
CASES.update({
    "composite/conv_transpose3d": (
        lambda x, w, b: nnF.conv_transpose3d(x, w, b, stride=2, padding=1,
                                             output_padding=(1, 0, 1)),
        [Leaf(2, 3, 3, 2, 3), Leaf(3, 2, 3, 2, 3), Leaf(2)]),
    "composite/adaptive_max_pool3d": (lambda x: nnF.adaptive_max_pool3d(x, (2, 3, 2)),
                                      [Leaf(2, 3, 3, 5, 4)]),
    "composite/lp_pool3d": (lambda x: nnF.lp_pool3d(x, 2.0, 2), [Leaf(2, 3, 2, 4, 4, **POS)]),
    "composite/max_unpool": (
        lambda x: nnF.max_unpool3d(*nnF.max_pool3d(x, 2, return_indices=True), 2,
                                   output_size=(4, 5, 4))
        + nnF.max_unpool2d(*nnF.max_pool2d(x[:, :, 0], 2, return_indices=True), 2,
                           output_size=(5, 4)).unsqueeze(2),
        [Leaf(2, 3, 4, 5, 4)]),
    "composite/grid_sample": (
        lambda x, g: (nnF.grid_sample(x, g, align_corners=False),
                      nnF.grid_sample(x, g, "bicubic", "reflection", align_corners=True),
                      nnF.grid_sample(x, g, "nearest", "border", align_corners=False)),
        [Leaf(2, 3, 4, 5), Leaf(2, 3, 2, 2, low=-1.2, high=1.2)]),
    "composite/grid_sample_5d": (
        lambda x, g: nnF.grid_sample(x, g, padding_mode="border", align_corners=False),
        [Leaf(1, 2, 3, 4, 3), Leaf(1, 2, 2, 3, 3, low=-1.2, high=1.2)]),
    "composite/affine_grid": (
        lambda t, u: (nnF.affine_grid(t, (2, 3, 4, 5), align_corners=False),
                      nnF.affine_grid(u, (2, 1, 2, 3, 2), align_corners=True)),
        [Leaf(2, 2, 3), Leaf(2, 3, 4)]),
    "composite/interpolate_trilinear": (
        lambda x: nnF.interpolate(x, scale_factor=(1.5, 2, 0.7), mode="trilinear"),
        [Leaf(1, 2, 3, 3, 4)]),
    "composite/interpolate_trilinear_corners": (
        lambda x: nnF.interpolate(x, size=(4, 2, 5), mode="trilinear", align_corners=True),
        [Leaf(1, 2, 3, 3, 4)]),
    "composite/interpolate_5d_area_nearest_exact": (
        lambda x: (nnF.interpolate(x, size=(2, 3, 2), mode="area"),
                   nnF.interpolate(x, scale_factor=1.6, mode="nearest-exact")),
        [Leaf(1, 2, 3, 3, 4)]),
    "composite/interpolate_linear": (
        lambda x: (nnF.interpolate(x, scale_factor=1.7, mode="linear"),
                   nnF.interpolate(x, size=3, mode="linear", align_corners=True)),
        [Leaf(2, 3, 5)]),
    "composite/interpolate_lanczos": (
        lambda x: nnF.interpolate(x, size=(3, 8), mode="lanczos", antialias=True),
        [Leaf(2, 2, 7, 5)]),
    "composite/interpolate_bilinear_antialias": (
        lambda x: nnF.interpolate(x, scale_factor=(0.4, 1.5), mode="bilinear", antialias=True,
                                  align_corners=True),
        [Leaf(2, 2, 7, 5)]),
    "composite/dropout3d": (lambda x: nnF.dropout3d(x, 0.5), [Leaf(2, 6, 2, 3, 2)]),
})


def _ctc(x, **kwargs):
    """ctc_loss of log_softmax(x) (T=6, N=3, C=4) against fixed targets and lengths."""
    targets, lengths = minflow.tensor([[1, 2, 2], [3, 1, 0], [2, 2, 2]]), [6, 4, 3]
    return nnF.ctc_loss(x.log_softmax(2), targets, lengths, [3, 2, 2], **kwargs)


# the CTC loss (tests/ops/test_ctc_loss.py): padded and concatenated targets, an impossible
# alignment zeroed; no double backward (as torch)
CASES.update({
    "ctc_loss": (lambda x: _ctc(x, reduction="none"), [Leaf(6, 3, 4)]),
    "ctc_loss/concatenated_mean": (
        lambda x: nnF.ctc_loss(x.log_softmax(2), minflow.tensor([1, 2, 2, 3, 1, 2, 2]),
                               minflow.tensor([6, 4, 4]), minflow.tensor([3, 2, 2]), blank=3),
        [Leaf(6, 3, 4)]),
    "ctc_loss/zero_infinity": (lambda x: _ctc(x, reduction="sum", zero_infinity=True),
                               [Leaf(6, 3, 4)]),
})
EXCLUDED["ctc_loss_grad"] = "no double backward, as torch: its grad function raises"

# complex numbers (tests/ops/test_complex_ops.py, test_fft.py): nn.Graph refuses complex
# tensors, so only angle, which also takes real inputs, has a graph case; the others' eager
# gradients are checked against torch and by gradcheck
CASES["angle"] = (lambda x: minflow.angle(x) + x, [Leaf(3, 4)])
EAGER_ONLY = {name: "complex inputs or outputs: nn.Graph refuses complex tensors"
              for name in ("real", "imag", "view_as_real", "view_as_complex", "complex",
                           "conj_physical", "fft_c2c", "fft_r2c", "fft_c2r", "linalg_eig")}
