"""CTC loss kernels (ops/ctc_loss.py), written once against the array module.

A target l_1..l_S is read through its extended sequence l' = (blank, l_1, blank, ...,
l_S, blank) of 2S + 1 positions. alpha[t, s] is the log probability of the alignments
of frames 0..t that end at position s:

  alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1],
                          alpha[t-1, s-2] if l'_s != l'_{s-2}) + log_probs[t, l'_s]

one step per frame, vectorised over the batch and the positions. beta (the same from the
end) is alpha of the problem reversed in time and in positions. As torch, the gradient
w.r.t. log_probs[t, c] is exp(log_probs[t, c]) - exp(lcab + nll - log_probs[t, c]), lcab
the logsumexp of alpha + beta over the positions of class c.

``forward`` and ``backward`` take the step of the recursion as an argument: the cpu
kernels here run ``UfuncStep`` (a dozen ufuncs a frame), the cuda ones in
kernels/cupy/ctc_loss.py one fused ElementwiseKernel a frame.
"""
import numpy as np

from ...core.dtype import float32, float64
from ..registry import register_kernel

__all__ = ["forward", "backward", "UfuncStep", "FLOATS"]

FLOATS = (float32, float64)


def _quiet():
    # numpy warns on log(0) and inf - inf (both meant here); cupy never warns
    return np.errstate(divide="ignore", invalid="ignore")


def _first(values, bad):
    return int(values[bad].ravel()[0])


def _check_lengths(steps, targets, input_lengths, target_lengths):
    """torch's checks of the lengths against each other and the shapes, in its order."""
    if bool((target_lengths < 0).any()):
        raise RuntimeError(f"ctc_loss: Expected target_lengths to have value at least 0, but "
                           f"got value {_first(target_lengths, target_lengths < 0)}")
    if targets.ndim == 1 and targets.shape[0] != int(target_lengths.sum()):
        raise RuntimeError(f"ctc_loss: expected concatenated targets of size "
                           f"sum(target_lengths) = {int(target_lengths.sum())}, got size "
                           f"{targets.shape[0]}")
    longest = int(target_lengths.max())
    if targets.ndim == 2 and targets.shape[1] < longest:
        raise RuntimeError(f"ctc_loss: expected targets to have size at least {longest} at "
                           f"dimension 1 (the longest target length), got size "
                           f"{targets.shape[1]}")
    if bool((input_lengths < 0).any()):
        raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at least 0, but "
                           f"got value {_first(input_lengths, input_lengths < 0)}")
    if bool((input_lengths > steps).any()):
        raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at most {steps} "
                           f"(the size of log_probs at dimension 0), but got value "
                           f"{_first(input_lengths, input_lengths > steps)}")


def _labels(xp, targets, target_lengths, classes, blank):
    """(N, S) class indices, S the longest target length; blank past each target's end."""
    longest = int(target_lengths.max())
    pos = xp.arange(longest)
    used = pos < target_lengths[:, None]
    if targets.ndim == 1:       # concatenated: target n starts after the n earlier ones
        start = xp.cumsum(target_lengths) - target_lengths
        labels = targets[xp.where(used, start[:, None] + pos, 0)]
    else:
        labels = targets[:, :longest]
    labels = labels.astype(xp.int64)        # as torch: any dtype, read as int64
    bad = used & ((labels < 0) | (labels >= classes))
    if bool(bad.any()):
        raise IndexError(f"ctc_loss: target {_first(labels, bad)} is out of bounds: "
                         f"expected class indices in [0, {classes}) (C = log_probs.size(-1))")
    return xp.where(used, labels, blank)


class _Problem:
    """One batch as the recursions read it: log_probs gathered at the extended labels,
    -inf past each sequence's end, and which positions may skip back two."""

    def __init__(self, xp, log_probs, targets, input_lengths, target_lengths, blank):
        steps, batch, classes = log_probs.shape
        self.xp, self.batch = xp, batch
        self.input_lengths = input_lengths.astype(xp.int64)
        self.target_lengths = target_lengths.astype(xp.int64)
        _check_lengths(steps, targets, self.input_lengths, self.target_lengths)
        labels = _labels(xp, targets, self.target_lengths, classes, blank)
        ext = xp.full((batch, 2 * labels.shape[1] + 1), blank, dtype=xp.int64)
        ext[:, 1::2] = labels
        self.ext, self.width = ext, ext.shape[1]
        self.rows = xp.arange(batch)
        # frames past the longest input are never read
        self.frames = max(int(self.input_lengths.max()), 1)
        valid = xp.arange(self.width) <= 2 * self.target_lengths[:, None]
        lp_ext = log_probs[:self.frames, self.rows[:, None], ext]
        self.lp_ext = xp.where(valid, lp_ext, -np.inf).astype(log_probs.dtype, copy=False)
        self.skip = _skip(xp, ext, log_probs.dtype)

    def log_likelihood(self, alpha):
        """log p(target | input) per sample from alpha at its last frame: the alignments
        that end at the last blank or the last label."""
        xp, il, tl = self.xp, self.input_lengths, self.target_lengths
        last = alpha[xp.maximum(il - 1, 0), self.rows]
        end = last[self.rows, 2 * tl]
        before = xp.where(tl > 0, last[self.rows, xp.maximum(2 * tl - 1, 0)], -np.inf)
        ll = xp.logaddexp(end, before)
        # no frames: only the empty target fits (torch gives -0.0 as its loss)
        return xp.where(il == 0, xp.where(tl == 0, 0.0, -np.inf), ll).astype(alpha.dtype)

    def reversed(self):
        """The problem reversed in time (each input from its own last frame) and in
        positions: (its lp_ext, its skip, the index that maps its alpha back, where that
        index is inside the sequences). Its alpha read back so is beta: beta[t, s], the log
        probability of the alignments of frames t..T_n-1 that start at position s."""
        xp = self.xp
        t_rev = self.input_lengths - 1 - xp.arange(self.frames)[:, None]      # (T, N)
        s_rev = 2 * self.target_lengths[:, None] - xp.arange(self.width)      # (N, W)
        at = (xp.maximum(t_rev, 0)[:, :, None], self.rows[:, None], xp.maximum(s_rev, 0))
        inside = (t_rev >= 0)[:, :, None] & (s_rev >= 0)
        lp_rev = xp.where(inside, self.lp_ext[at], -np.inf).astype(self.lp_ext.dtype,
                                                                   copy=False)
        ext_rev = self.ext[self.rows[:, None], xp.maximum(s_rev, 0)]
        return lp_rev, _skip(xp, ext_rev, lp_rev.dtype), at, inside


def _skip(xp, ext, dtype):
    """0 where alignments may jump from position s-2 to s (l'_s != l'_{s-2}), else -inf."""
    skip = xp.full(ext.shape, -np.inf, dtype=dtype)
    skip[:, 2:] = xp.where(ext[:, 2:] != ext[:, :-2], 0.0, -np.inf)
    return skip


class UfuncStep:
    """One frame of the alpha recursion with the array module's ufuncs, as torch computes
    it: m = the largest of the three terms (a finite stand-in where all are -inf), then
    log(sum exp(term - m)) + m + log_probs at the positions.

    NOTE: a dozen plain ufuncs into preallocated buffers: two np.logaddexp calls would
    do it in fewer calls, but cost 15-20 ns an element against ~1 here."""

    def __init__(self, xp, shape, dtype):
        self.xp, self.lowest = xp, np.finfo(dtype).min
        self.top, self.total, self.term, self.jump = (xp.empty(shape, dtype) for _ in range(4))

    def __call__(self, prev, skip, lp, out):
        """out = the next frame of ``prev`` (N, W + 2: two -inf columns on the left)."""
        xp, top, total, term, jump = self.xp, self.top, self.total, self.term, self.jump
        stay, step = prev[:, 2:], prev[:, 1:-1]
        xp.add(prev[:, :-2], skip, out=jump)
        xp.maximum(stay, step, out=top)
        xp.maximum(top, jump, out=top)
        xp.maximum(top, self.lowest, out=top)
        xp.exp(xp.subtract(stay, top, out=total), out=total)
        total += xp.exp(xp.subtract(step, top, out=term), out=term)
        total += xp.exp(xp.subtract(jump, top, out=term), out=term)
        xp.log(total, out=total)
        total += top
        xp.add(total, lp, out=out)


def _log_alpha(xp, make_step, lp_ext, skip):
    """alpha (T, N, W) of the extended log-probabilities lp_ext (T, N, W), by frames."""
    frames, batch, width = lp_ext.shape
    # two -inf columns on the left: positions s-1 and s-2 are views of the previous frame
    padded = xp.full((frames, batch, width + 2), -np.inf, dtype=lp_ext.dtype)
    alpha = padded[:, :, 2:]
    alpha[0, :, :2] = lp_ext[0, :, :2]
    step = make_step(xp, (batch, width), lp_ext.dtype)
    with _quiet():
        for t in range(1, frames):
            step(padded[t - 1], skip, lp_ext[t], alpha[t])
    return alpha


def forward(xp, make_step, log_probs, targets, input_lengths, target_lengths, blank,
            zero_infinity):
    """ctc_loss: -log p(target | input) per sample, 0 where inf with zero_infinity."""
    problem = _Problem(xp, log_probs, targets, input_lengths, target_lengths, blank)
    nll = -problem.log_likelihood(_log_alpha(xp, make_step, problem.lp_ext, problem.skip))
    return xp.where(nll == np.inf, 0.0, nll).astype(nll.dtype) if zero_infinity else nll


def backward(xp, make_step, grad_out, log_probs, targets, input_lengths, target_lengths,
             blank, zero_infinity):
    """ctc_loss_grad: (exp(lp) - exp(lcab + nll - lp)) * grad_out for the frames of each
    input, else 0 (and 0 for inf losses with zero_infinity)."""
    problem = _Problem(xp, log_probs, targets, input_lengths, target_lengths, blank)
    lp_rev, skip_rev, at, inside = problem.reversed()
    # NOTE: one recursion over both problems side by side: half the calls of two
    both = _log_alpha(xp, make_step, xp.concatenate([problem.lp_ext, lp_rev], axis=1),
                      xp.concatenate([problem.skip, skip_rev]))
    alpha, beta = both[:, :problem.batch], both[:, problem.batch:][at]
    nll = -problem.log_likelihood(alpha)
    lp = log_probs[:problem.frames]
    with _quiet():
        log_ab = xp.where(inside, alpha + beta, -np.inf)
        # (T, N, C) arrays from here: each computed in place, as the gradient is the
        # largest array of the op
        posterior = _log_class_sums(xp, problem, log_ab, lp.shape)
        posterior += lp                             # torch's lcab
        posterior += nll[:, None]
        posterior -= lp
        grad = xp.exp(lp)
        grad -= xp.exp(posterior, out=posterior)
    grad *= grad_out[:, None]
    kept = xp.arange(problem.frames)[:, None] < problem.input_lengths
    if zero_infinity:
        kept = kept & (nll != np.inf)
    grad[~kept] = 0.0
    if problem.frames == log_probs.shape[0]:
        return grad
    out = xp.zeros_like(log_probs)
    out[:problem.frames] = grad
    return out


def _log_class_sums(xp, problem, log_ab, shape):
    """lcab - log_probs: per frame and class c, the logsumexp of (alpha + beta - log_probs)
    over the positions s with l'_s = c (-inf where there is none).

    NOTE: log_probs[t, c] is the same for every position of class c, so it comes out of
    the sum; what remains is a log posterior (minus nll), whose largest value per frame
    bounds the rest. The sums over positions are one bincount of the exponentials."""
    frames, batch, classes = shape
    with _quiet():
        log_post = xp.where(problem.lp_ext == -np.inf, -np.inf, log_ab - problem.lp_ext)
    top = log_post.max(axis=2, keepdims=True)
    top = xp.where(top == -np.inf, 0.0, top).astype(log_post.dtype)
    slot = (xp.arange(frames * batch).reshape(frames, batch, 1) * classes + problem.ext)
    sums = xp.bincount(slot.ravel(), weights=xp.exp(log_post - top).ravel(),
                       minlength=frames * batch * classes)
    sums = sums.reshape(shape).astype(log_post.dtype, copy=False)
    with _quiet():
        xp.log(sums, out=sums)
    sums += top
    return sums


@register_kernel("ctc_loss", "cpu", FLOATS)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    return forward(np, UfuncStep, log_probs, targets, input_lengths, target_lengths, blank,
                   zero_infinity)


@register_kernel("ctc_loss_grad", "cpu", FLOATS)
def ctc_loss_grad(grad_out, log_probs, targets, input_lengths, target_lengths, blank,
                  zero_infinity):
    return backward(np, UfuncStep, grad_out, log_probs, targets, input_lengths,
                    target_lengths, blank, zero_infinity)
