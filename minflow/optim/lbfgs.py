"""L-BFGS, as torch.optim.LBFGS (fixed step length; no line search)."""
from ..core.grad_mode import enable_grad, no_grad
from ..core.namespace import F
from .optimizer import Optimizer, check_nonnegative

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)

    Limited-memory BFGS over all parameters as one flat vector: each ``step(closure)`` runs
    up to ``max_iter`` iterations; the direction d = -H g comes from the two-loop recursion
    over the last ``history_size`` pairs (s, y), and the parameters move by t d (t = lr,
    and min(1, 1 / |g|_1) lr on the very first iteration). The state (directions, history,
    counters) is global, kept under the first parameter, as torch. Unlike the other
    optimizers this is Python over tensor ops, not one update op per parameter, so
    nn.Graph does not take it. ``line_search_fn='strong_wolfe'`` is not implemented.

    >>> w = minflow.tensor([3.0, -2.0], requires_grad=True)
    >>> opt = minflow.optim.LBFGS([w], lr=1.0)
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1.0) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, 1.0]
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_nonnegative(lr=lr)
        if line_search_fn is not None:
            raise NotImplementedError(f"LBFGS: line_search_fn={line_search_fn!r} is not "
                                      f"implemented; use line_search_fn=None (fixed step)")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        return F.cat([F.zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None
                      else p.grad.reshape(-1) for p in self._params], 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def step(self, closure):
        """Run up to ``max_iter`` iterations; ``closure`` re-evaluates the model (zeroing
        and recomputing the grads) and returns the loss. Returns the first loss."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if float(flat_grad.abs().max()) <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, H_diag = flat_grad.neg(), [], [], [], 1
            else:
                H_diag = self._remember(flat_grad.sub(prev_flat_grad), d.mul(t), old_dirs,
                                        old_stps, ro, H_diag, history_size)
                d = self._direction(flat_grad, old_dirs, old_stps, ro, H_diag, state,
                                    history_size)
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            t = lr
            if state["n_iter"] == 1:
                # NOTE: min(1, 1 / |g|_1) * lr computed in the grad's dtype, as torch
                inverse = 1.0 / flat_grad.abs().sum()
                if float(inverse) < 1.0:
                    t = float(inverse * lr)
            if float(flat_grad.dot(d)) > -tolerance_change:     # not a descent direction
                break
            self._add_grad(t, d)
            evals = 0
            if n_iter != max_iter:      # the last iteration's loss is never needed
                with enable_grad():
                    loss = float(closure())
                flat_grad = self._gather_flat_grad()
                evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if float(flat_grad.abs().max()) <= tolerance_grad:
                break
            if float(d.mul(t).abs().max()) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro,
                      "H_diag": H_diag, "prev_flat_grad": prev_flat_grad,
                      "prev_loss": prev_loss})
        return orig_loss

    @staticmethod
    def _remember(y, s, old_dirs, old_stps, ro, H_diag, history_size):
        """Add the pair (s, y) to the history where y.s > 1e-10 (curvature); returns the
        new scale y.s / y.y of the initial inverse Hessian (or the old one)."""
        ys = y.dot(s)
        if float(ys) <= 1e-10:
            return H_diag
        if len(old_dirs) == history_size:
            old_dirs.pop(0)
            old_stps.pop(0)
            ro.pop(0)
        old_dirs.append(y)
        old_stps.append(s)
        ro.append(1.0 / ys)
        return ys / y.dot(y)

    @staticmethod
    def _direction(flat_grad, old_dirs, old_stps, ro, H_diag, state, history_size):
        """d = -H g by the two-loop recursion over the history."""
        al = state.setdefault("al", [None] * history_size)
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-float(al[i]))
        r = F.mul(q, H_diag)
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=float(al[i] - be_i))
        return r
