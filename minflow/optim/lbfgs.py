"""L-BFGS, as torch.optim.LBFGS: a fixed step length, or a strong-Wolfe line search."""
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
    nn.Graph does not take it. With ``line_search_fn='strong_wolfe'`` each iteration's step
    length t comes from a line search for the strong Wolfe conditions (sufficient decrease
    c1 = 1e-4, curvature c2 = 0.9), as torch's (after minFunc), costing closure calls.

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
            p.add_(update[offset:offset + numel].view_as(p), alpha=float(step_size))
            offset += numel

    def _directional_evaluate(self, closure, x, t, d):
        """(loss, flat grad) at the parameters x + t d; the parameters are x again after."""
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

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
            # NOTE: a 0-d tensor in the grad's dtype on the first iteration, as torch's: the
            # line search computes with it as it is
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if float(gtd) > -tolerance_change:      # not a descent direction
                break
            evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x = [p.clone() for p in self._params]
                loss, flat_grad, t, evals = _strong_wolfe(
                    lambda x, t, d: self._directional_evaluate(closure, x, t, d), x, t, d,
                    loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:      # the last iteration's loss is never needed
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if evals and float(flat_grad.abs().max()) <= tolerance_grad:
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


# ---- the strong-Wolfe line search (torch's, after minFunc) ------------------------------
# NOTE: t, the directional derivatives gtd and the interpolated steps stay 0-d tensors
# where torch's are, so the search takes torch's decisions in float32 too.

def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2,
    clamped to ``bounds`` (default: between x1 and x2); their middle if it has none."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step length t along d from x (loss f, grad g, slope gtd = g.d) meeting the strong
    Wolfe conditions: f(t) <= f + c1 t gtd and |f'(t)| <= -c2 gtd. First a bracket is
    found, growing t by cubic extrapolation; then it is shrunk by cubic interpolation
    (zoom). Returns (loss, flat grad, t, closure calls)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:        # bracketing
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:        # zoom
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                               bracket_f[1], bracket_gtd[1])
        # a step too close to the bracket's ends makes no progress: move it inside
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals
