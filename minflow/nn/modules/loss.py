"""Loss layers: each stores PyTorch's constructor arguments and calls the functional loss.

A class weight (and BCEWithLogitsLoss's pos_weight) is a buffer, so it moves with ``to()``
and appears in ``state_dict`` as in PyTorch.
"""
import warnings

from ...core.namespace import F
from .distance import PairwiseDistance
from .module import Module

__all__ = ["L1Loss", "MSELoss", "NLLLoss", "NLLLoss2d", "CrossEntropyLoss", "BCELoss",
           "BCEWithLogitsLoss",
           "SmoothL1Loss", "HuberLoss", "KLDivLoss", "SoftMarginLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "MultiLabelSoftMarginLoss", "GaussianNLLLoss", "PoissonNLLLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss"]


def _legacy_reduction(size_average, reduce):
    """The reduction that the deprecated size_average / reduce flags stand for."""
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='mean', 'sum' or 'none' instead", stacklevel=4)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"{type(self).__name__}: reduction must be one of 'none', 'mean' "
                             f"or 'sum', got {reduction!r}")
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """mean (or sum, or none) of |input - target|.

    >>> minflow.nn.L1Loss()(minflow.tensor([1.0, 2.0]), minflow.tensor([2.0, 4.0])).item()
    1.5
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """mean (or sum, or none) of (input - target)^2.

    >>> minflow.nn.MSELoss()(minflow.tensor([1.0, 2.0]), minflow.tensor([2.0, 4.0])).item()
    2.5
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """-input[n, target[n]] (times weight[target[n]]), averaged over the weights of the
    targets that are not ``ignore_index``; ``input`` holds log-probabilities.

    >>> logp = minflow.tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> round(minflow.nn.NLLLoss()(logp, minflow.tensor([0, 1])).item(), 4)
    0.3
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """NLLLoss under its old name for (N, C, H, W) inputs; deprecated, as in PyTorch.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     loss = minflow.nn.NLLLoss2d()
    >>> loss(minflow.zeros(1, 2, 1, 1), minflow.tensor([[[1]]])).item()
    0.0
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CrossEntropyLoss(_WeightedLoss):
    """NLLLoss of log_softmax(input) over dim 1, for class indices or class probabilities
    as ``target``, with optional class weight and label_smoothing.

    >>> loss = minflow.nn.CrossEntropyLoss(label_smoothing=0.1)
    >>> round(loss(minflow.zeros(2, 4), minflow.tensor([0, 3])).item(), 4)
    1.3863
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss of log-probabilities (T, N, C) and
    targets (padded (N, S) or concatenated), given the input and target lengths; see
    minflow.nn.functional.ctc_loss.

    >>> loss = minflow.nn.CTCLoss()
    >>> log_probs = minflow.full((2, 1, 2), 0.5).log()
    >>> round(loss(log_probs, minflow.tensor([[1]]), [2], [1]).item(), 4)
    0.2877
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


class BCELoss(_WeightedLoss):
    """-(t log p + (1 - t) log(1 - p)) (times weight) for probabilities p = input.

    >>> minflow.nn.BCELoss()(minflow.tensor([0.5]), minflow.tensor([1.0])).item()
    0.693...
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """BCELoss of sigmoid(input), computed stably from the logits; ``pos_weight`` scales
    the positive term per class.

    >>> minflow.nn.BCEWithLogitsLoss()(minflow.tensor([0.0]), minflow.tensor([1.0])).item()
    0.693...
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class SmoothL1Loss(_Loss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target), reduced.

    >>> minflow.nn.SmoothL1Loss()(minflow.tensor([0.5, 3.0]), minflow.zeros(2)).item()
    1.3125
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta) (d = input - target), reduced.

    >>> minflow.nn.HuberLoss()(minflow.tensor([0.5, 3.0]), minflow.zeros(2)).item()
    1.3125
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        if not isinstance(delta, (int, float)):
            raise TypeError(f"HuberLoss: delta must be a float or int, got: {type(delta)}")
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """t * (log t - input) for log-probabilities input (or target, with log_target),
    reduced; reduction='batchmean' gives the KL divergence per sample.

    >>> logp = minflow.tensor([[0.5, 0.5]]).log()
    >>> minflow.nn.KLDivLoss(reduction="batchmean")(logp, minflow.tensor([[0.5, 0.5]])).item()
    0.0
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        batchmean = reduction == "batchmean"
        super().__init__(reduction="mean" if batchmean else reduction)
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)) for labels y in {1, -1}, reduced.

    >>> round(minflow.nn.SoftMarginLoss()(minflow.zeros(1), minflow.ones(1)).item(), 4)
    0.6931
    """

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """max(0, -y (x1 - x2) + margin) for labels y in {1, -1}, reduced.

    >>> minflow.nn.MarginRankingLoss()(minflow.ones(1), minflow.zeros(1), minflow.ones(1)).item()
    0.0
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """x where y = 1, max(0, margin - x) where y = -1, reduced.

    >>> minflow.nn.HingeEmbeddingLoss()(minflow.tensor([0.5]), minflow.tensor([-1.0])).item()
    0.5
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1, reduced.

    >>> a = minflow.tensor([[1.0, 0.0]])
    >>> minflow.nn.CosineEmbeddingLoss()(a, a, minflow.tensor([1.0])).item()
    0.0
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance.

    >>> a = minflow.zeros(1, 2)
    >>> minflow.nn.TripletMarginLoss(margin=1.0)(a, a, a + 5).item()
    0.0
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per sample, the class mean of -(y log sigmoid(x) + (1 - y) log sigmoid(-x)).

    >>> loss = minflow.nn.MultiLabelSoftMarginLoss()
    >>> round(loss(minflow.zeros(1, 2), minflow.tensor([[1.0, 0.0]])).item(), 4)
    0.6931
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """(log(var) + (input - target)^2 / var) / 2 (var clamped to at least eps), plus
    log(2 pi) / 2 with ``full``; call it as loss(input, target, var).

    >>> loss = minflow.nn.GaussianNLLLoss()
    >>> loss(minflow.tensor([1.0, 2.0]), minflow.tensor([1.0, 0.0]), minflow.ones(2)).item()
    1.0
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """exp(input) - target * input (``log_input``), else input - target * log(input + eps);
    ``full`` adds Stirling's term where target > 1.

    >>> loss = minflow.nn.PoissonNLLLoss()
    >>> round(loss(minflow.tensor([0.0, 1.0]), minflow.tensor([1.0, 2.0])).item(), 4)
    0.8591
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Per sample, sum over i != y of weight[y] * max(0, margin - x[y] + x[i])^p, over C.

    >>> loss = minflow.nn.MultiMarginLoss()
    >>> round(loss(minflow.tensor([[0.1, 0.2, 0.4, 0.8]]), minflow.tensor([3])).item(), 4)
    0.325
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got p={p}")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: weight must be one-dimensional, got shape "
                             f"{list(weight.shape)}")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Per sample, sum over its target classes j (listed until the first -1) and the other
    classes i of max(0, 1 - (x[j] - x[i])), over C.

    >>> loss = minflow.nn.MultiLabelMarginLoss()
    >>> x, y = minflow.tensor([[0.1, 0.2, 0.4, 0.8]]), minflow.tensor([[3, 0, -1, 1]])
    >>> round(loss(x, y).item(), 4)
    0.85
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for a distance function
    d (default: PairwiseDistance()); ``swap`` also tries d(positive, negative).

    >>> minflow.nn.TripletMarginWithDistanceLoss()
    TripletMarginWithDistanceLoss(
      (distance_function): PairwiseDistance()
    )
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
