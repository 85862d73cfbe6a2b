"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes split by frequency into a head
(the frequent classes plus one entry per cluster) and tail clusters with smaller
projections (Grave et al., Efficient softmax approximation for GPUs)."""
from collections import namedtuple

from ...core.namespace import F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: classes below cutoffs[0] are in the head, the others in clusters
    [cutoffs[i], cutoffs[i + 1]), each scored through in_features // div_value^(i + 1)
    hidden units; log p(class) = log p(cluster | head) + log p(class | cluster).
    ``forward(input, target)`` returns (output: the target's log-probability per row,
    loss: the mean of -output).

    NOTE: forward scores every cluster for every row and picks the target's entry: the
    values and grads of torch's, without its saving of skipping the clusters no target
    of the batch falls in.

    >>> asm = minflow.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
    >>> out = asm(minflow.ones(3, 8), minflow.tensor([0, 5, 9]))
    >>> out.output.shape, asm.log_prob(minflow.ones(3, 8)).exp().sum(1).allclose(
    ...     minflow.ones(3))
    (minflow.Size([3]), True)
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of "
                             "length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of "
                             f"unique, positive integers sorted in an increasing order, where "
                             f"each value is between 1 and n_classes-1, got {cutoffs}")
        kw = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs, self.div_value, self.head_bias = cutoffs + [n_classes], div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, size, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for to_hidden, to_output in self.tail:
            to_hidden.reset_parameters()
            to_output.reset_parameters()

    def forward(self, input, target):
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("AdaptiveLogSoftmaxWithLoss: Input and target should have "
                                   "the same size in the batch dimension.")
            if input.ndim != 2:
                raise RuntimeError(f"AdaptiveLogSoftmaxWithLoss: 1D target tensor expects 2D "
                                   f"input tensors, but found inputs with size "
                                   f"{list(input.shape)}")
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"AdaptiveLogSoftmaxWithLoss: 0D target tensor expects 1D "
                                   f"input tensors, but found inputs with size "
                                   f"{list(input.shape)}")
        else:
            raise RuntimeError("AdaptiveLogSoftmaxWithLoss: 0D or 1D target tensor expected, "
                               "multi-target not supported")
        batched = target.ndim > 0
        rows = input if batched else F.unsqueeze(input, 0)
        targets = target if batched else F.unsqueeze(target, 0)
        self._check_targets(targets)
        output = F.squeeze(F.gather(self.log_prob(rows), 1, F.unsqueeze(targets, 1)), 1)
        loss = F.mean(F.neg(output))
        return _ASMoutput(output if batched else F.squeeze(output, 0), loss)

    def _check_targets(self, targets):
        data = targets._data
        if targets.device.type == "meta" or getattr(data, "is_lazy", False) or not data.size:
            return      # no values to check (graph mode, meta device)
        if int(data.min()) < 0 or int(data.max()) >= self.n_classes:
            raise RuntimeError(f"AdaptiveLogSoftmaxWithLoss: Target values should be in "
                               f"[0, {self.n_classes - 1}], but values in range "
                               f"[{int(data.min())}, {int(data.max())}] were found.")

    def log_prob(self, input):
        """log p(class) for every class: (N, n_classes) from (N, in_features).

        >>> asm = minflow.nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[2, 4])
        >>> asm.log_prob(minflow.ones(2, 4)).shape
        minflow.Size([2, 6])
        """
        head_logprob = F.log_softmax(self.head(input), dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            cluster_logprob = F.log_softmax(cluster(input), dim=1)
            parts.append(F.add(cluster_logprob, head_logprob[:, self.shortlist_size + i:
                                                             self.shortlist_size + i + 1]))
        return F.cat(parts, 1)

    def predict(self, input):
        """The most likely class of each row: argmax of ``log_prob`` (N,).

        >>> asm = minflow.nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[2])
        >>> asm.predict(minflow.ones(3, 4)).shape
        minflow.Size([3])
        """
        return F.argmax(self.log_prob(input), dim=1)

