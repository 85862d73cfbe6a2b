"""optim.swa_utils against torch: AveragedModel (SWA, EMA, avg_fn, multi_avg_fn,
use_buffers), SWALR's schedules, update_bn."""
import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.optim import swa_utils

torch = pytest.importorskip("torch")


def make_pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                             torch.nn.Linear(4, 2))
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    m.load_state_dict({k: minflow.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return m, tm


def train_step(m, tm, opt, topt, x):
    loss = m(minflow.tensor(x)).square().mean()
    tloss = tm(torch.tensor(x)).square().mean()
    opt.zero_grad(), topt.zero_grad()
    loss.backward(), tloss.backward()
    opt.step(), topt.step()


def same_state(a, b, rtol=1e-5):
    sd, tsd = a.state_dict(), b.state_dict()
    assert list(sd) == list(tsd)
    for k, v in tsd.items():
        np.testing.assert_allclose(sd[k].numpy(), v.numpy(), rtol, 1e-6, err_msg=k)


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema", "swa_fn", "ema_buffers"])
def test_averaged_model_matches_torch(kind):
    m, tm = make_pair()
    kw, tkw = {}, {}
    if kind == "ema_multi":
        kw = {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.9)}
        tkw = {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)}
    elif kind == "ema":
        kw = {"avg_fn": swa_utils.get_ema_avg_fn(0.8)}
        tkw = {"avg_fn": torch.optim.swa_utils.get_ema_avg_fn(0.8)}
    elif kind == "swa_fn":
        kw = {"avg_fn": swa_utils.get_swa_avg_fn()}
        tkw = {"avg_fn": torch.optim.swa_utils.get_swa_avg_fn()}
    elif kind == "ema_buffers":
        kw = {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.7), "use_buffers": True}
        tkw = {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.7),
               "use_buffers": True}
    avg, tavg = swa_utils.AveragedModel(m, **kw), torch.optim.swa_utils.AveragedModel(tm, **tkw)
    opt = minflow.optim.SGD(m.parameters(), lr=0.1)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    rs = np.random.RandomState(0)
    for _ in range(4):
        train_step(m, tm, opt, topt, rs.randn(6, 3).astype(np.float32))
        avg.update_parameters(m)
        tavg.update_parameters(tm)
    same_state(avg, tavg)
    assert avg.n_averaged.item() == 4 and avg.n_averaged.dtype == minflow.int64
    x = rs.randn(5, 3).astype(np.float32)
    avg.eval(), tavg.eval()
    np.testing.assert_allclose(avg(minflow.tensor(x)).detach().numpy(),
                               tavg(torch.tensor(x)).detach().numpy(), 1e-5, 1e-6)


def test_update_bn_matches_torch():
    m, tm = make_pair()
    rs = np.random.RandomState(1)
    batches = [rs.randn(4, 3).astype(np.float32) for _ in range(3)]
    m.eval(), tm.eval()
    swa_utils.update_bn([(minflow.tensor(b), 0) for b in batches], m)
    torch.optim.swa_utils.update_bn([(torch.tensor(b), 0) for b in batches], tm)
    same_state(m, tm)
    assert not m.training and m[1].momentum == 0.1


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
def test_swalr_matches_torch(strategy, anneal_epochs):
    opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.5)
    topt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    sched = swa_utils.SWALR(opt, 0.05, anneal_epochs, strategy)
    tsched = torch.optim.swa_utils.SWALR(topt, 0.05, anneal_epochs, strategy)
    lrs, tlrs = [], []
    for _ in range(8):
        opt.step(), topt.step()
        sched.step(), tsched.step()
        lrs.append(sched.get_last_lr()), tlrs.append(tsched.get_last_lr())
    np.testing.assert_allclose(lrs, tlrs, 1e-15)
    state = sched.state_dict()
    assert "anneal_func" not in state and state["_anneal_strategy"] == strategy
    sched.load_state_dict(state)
    assert sched.anneal_func(0.5) == tsched.anneal_func(0.5)


def test_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(m, avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match="Invalid decay value 1.5"):
        swa_utils.get_ema_avg_fn(1.5)
    opt = minflow.optim.SGD(m.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, 0.01, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, 0.01, anneal_epochs=-1)
