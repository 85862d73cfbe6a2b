"""Muon, as torch.optim.Muon: momentum SGD whose update is orthogonalized by a Newton-Schulz
iteration in bfloat16."""
import math

from ..core import dtype as dtypes
from ..core.namespace import F
from ..core.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Muon"]

# Keller Jordan's constants, torch's defaults
EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    """Muon(params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
    ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None)

    For 2-D parameters only. B = momentum B + (1 - momentum) g (a lerp, as torch);
    update = lerp(g, B, momentum) with nesterov, else B; O = NS(update), the quintic
    Newton-Schulz iteration X <- a X + (b G + c G^2) X, G = X X^T, run ns_steps times in
    bfloat16 from X = update / max(||update||, eps) (on the transpose of a tall matrix);
    param *= 1 - lr weight_decay; param -= lr' O, with lr' = lr sqrt(max(1, rows / cols))
    ("original", the default) or 0.2 lr sqrt(max(rows, cols)) ("match_rms_adamw"). State
    per parameter: ``momentum_buffer``. Python over tensor ops (not an update op), so
    nn.Graph does not take it.

    >>> w = minflow.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
    >>> opt = minflow.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> w.grad = minflow.tensor([[1.0, 0.0], [0.0, -2.0]])
    >>> opt.step()
    >>> [[round(v, 3) for v in row] for row in w.tolist()]
    [[0.888, 0.0], [0.0, 1.069]]
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        _check(lr, momentum, weight_decay, adjust_lr_fn)
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_state(self, p, group):
        if p.grad.is_sparse:
            raise RuntimeError("Muon does not support sparse gradients")
        self.state[p]["momentum_buffer"] = F.zeros_like(p.grad)

    def _update_group(self, group):
        lr = float(group["lr"])
        momentum = group["momentum"]
        for p, state in self._stepped(group):
            grad = p.grad
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                group["ns_steps"], group["eps"])
            p.mul_(1 - lr * group["weight_decay"])
            p.add_(update, alpha=-adjust_lr(lr, group["adjust_lr_fn"], p.shape))


def zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """The orthogonalization of a matrix by ``ns_steps`` quintic Newton-Schulz steps, in
    bfloat16 (torch's ``_zeropower_via_newtonschulz``): X <- a X + (b G + c G^2) X with
    G = X X^T, from X = grad / max(||grad||, eps). On cuda (no bfloat16 there) in float32,
    each result rounded to bfloat16's precision.

    >>> ns = minflow.optim.muon.zeropower_via_newtonschulz
    >>> q = ns(minflow.eye(2) * 3, (3.4445, -4.775, 2.0315), 5, 1e-7)
    >>> q.dtype, q.diagonal().float().tolist()
    (minflow.bfloat16, [1.125, 1.125])
    """
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    if grad.device.type == "cpu":
        rounded, ortho = _same, grad.to(dtypes.bfloat16)
    else:                   # NOTE: cupy has no bfloat16: float32 rounded as bfloat16 would be
        rounded = round_to_bfloat16
        ortho = rounded(grad.to(dtypes.float32))
    if tall:
        ortho = ortho.T
    # the spectral norm is then at most 1
    ortho = rounded(ortho / rounded(ortho.norm()).clamp(min=eps))
    for _ in range(ns_steps):
        gram = rounded(ortho @ ortho.T)
        gram_update = rounded(F.addmm(gram, gram, gram, beta=b, alpha=c))
        ortho = rounded(F.addmm(ortho, gram_update, ortho, beta=a))
    return ortho.T if tall else ortho


def _same(x):
    return x


def round_to_bfloat16(x):
    """float32 ``x`` rounded to bfloat16's 8 significant bits, kept in float32 (Veltkamp's
    split: x (2^16 + 1) - (x (2^16 + 1) - x) is x rounded to nearest at 8 bits). For devices
    without a bfloat16 type; ties may round away from even, where a cast rounds to even.

    >>> x = minflow.tensor([1.0 + 2 ** -7, 3.14159, -1e-3])
    >>> round_to_bfloat16 = minflow.optim.muon.round_to_bfloat16
    >>> round_to_bfloat16(x).tolist() == x.bfloat16().float().tolist()
    True
    """
    scaled = x * 65537.0
    return scaled - (scaled - x)


def adjust_lr(lr, adjust_lr_fn, param_shape):
    """Muon's learning rate for a (rows, cols) parameter: lr sqrt(max(1, rows / cols))
    ("original" or None) or 0.2 lr sqrt(max(rows, cols)) ("match_rms_adamw").

    >>> adjust_lr = minflow.optim.muon.adjust_lr
    >>> adjust_lr(0.1, None, (8, 2)), adjust_lr(0.1, "match_rms_adamw", (4, 9))
    (0.2, 0.06000000000000001)
    """
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


def _check(lr, momentum, weight_decay, adjust_lr_fn):
    """torch's checks and messages."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
    if not 0.0 <= momentum:
        raise ValueError(f"momentum should be >= 0 but is: {momentum}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
    if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
        raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
