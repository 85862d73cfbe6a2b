"""Distributions inside nn.Graph: a heteroscedastic Gaussian regression trained by
Normal.log_prob, a Dirichlet-Categorical model through kl_divergence and
Gamma.rsample, a tanh-squashed Gaussian policy (SAC's actor loss, through
TransformedDistribution.rsample and log_prob), and a covariance model (LKJCholesky,
Wishart, GeneralizedPareto.rsample, biject_to onto correlation factors) take the same
steps compiled as eagerly (the same weights, data and seed)."""
import numpy as np

import minflow
from minflow import nn, optim
from minflow.distributions import (Categorical, Gamma, GeneralizedPareto, LKJCholesky, Normal,
                                   TanhTransform, TransformedDistribution, Wishart, biject_to,
                                   constraints, kl_divergence)


class GaussianHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 8)
        self.loc = nn.Linear(8, 1)
        self.log_scale = nn.Linear(8, 1)

    def forward(self, x):
        h = self.body(x).tanh()
        return Normal(self.loc(h), self.log_scale(h).exp())


def _nll(model, x, y):
    return -model(x).log_prob(y).mean()


def _train_both(make_model, loss_fn, data, steps=5):
    minflow.manual_seed(0)
    eager_model = make_model()
    graph_model = make_model()
    graph_model.load_state_dict(eager_model.state_dict())
    eager_opt = optim.Adam(eager_model.parameters(), lr=0.05)

    class Train(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = graph_model
            self.add_optimizer(optim.Adam(graph_model.parameters(), lr=0.05))

        def build(self, *inputs):
            loss = loss_fn(self.model, *inputs)
            loss.backward()
            return loss

    train = Train()
    eager, compiled = [], []
    for step in range(steps):
        minflow.manual_seed(step)
        loss = loss_fn(eager_model, *data)
        eager_opt.zero_grad()
        loss.backward()
        eager_opt.step()
        eager.append(loss.item())
        minflow.manual_seed(step)
        compiled.append(train(*data).item())
    return eager, compiled


def test_normal_log_prob_trains_the_same_in_nn_graph():
    rng = np.random.default_rng(0)
    x = minflow.tensor(rng.normal(size=(32, 3)), dtype=minflow.float32)
    y = minflow.tensor(rng.normal(size=(32, 1)), dtype=minflow.float32) + x[:, :1]
    eager, compiled = _train_both(GaussianHead, _nll, (x, y))
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    assert eager[-1] < eager[0]


class GammaRates(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_concentration = nn.Parameter(minflow.zeros(4))
        self.logits = nn.Parameter(minflow.zeros(4))


def _gamma_and_kl(model, target_logits):
    rate = minflow.ones(4)
    draws = Gamma(model.log_concentration.exp(), rate).rsample((16,))
    kl = kl_divergence(Categorical(logits=model.logits), Categorical(logits=target_logits))
    return (draws.mean(0) - 2.0).pow(2).sum() + kl


def test_gamma_rsample_and_kl_train_the_same_in_nn_graph():
    target = minflow.tensor([1.0, 0.0, -1.0, 2.0])
    eager, compiled = _train_both(GammaRates, _gamma_and_kl, (target,))
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)


class SquashedGaussianActor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 8)
        self.loc = nn.Linear(8, 2)
        self.log_scale = nn.Linear(8, 2)

    def forward(self, obs):
        h = self.body(obs).tanh()
        base = Normal(self.loc(h), self.log_scale(h).clamp(-5, 2).exp())
        return TransformedDistribution(base, [TanhTransform(cache_size=1)])


def _actor_loss(model, obs, q_weight):
    """SAC's actor objective alpha log pi(a|s) - Q(s, a) with a linear critic."""
    policy = model(obs)
    action = policy.rsample()
    log_prob = policy.log_prob(action).sum(-1)
    q_value = (action * q_weight).sum(-1)
    return (0.2 * log_prob - q_value).mean()


def test_tanh_squashed_policy_trains_the_same_in_nn_graph():
    rng = np.random.default_rng(1)
    obs = minflow.tensor(rng.normal(size=(16, 3)), dtype=minflow.float32)
    q_weight = minflow.tensor([1.0, -0.5])
    eager, compiled = _train_both(SquashedGaussianActor, _actor_loss, (obs, q_weight))
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-6)
    assert eager[-1] < eager[0]


class CovarianceModel(nn.Module):
    """A correlation Cholesky factor reached by biject_to, per-coordinate scales, and a
    GeneralizedPareto's (loc, log scale, concentration)."""

    def __init__(self):
        super().__init__()
        self.raw_corr = nn.Parameter(minflow.tensor([0.3, -0.2, 0.1]))
        self.log_scale = nn.Parameter(minflow.zeros(3))
        self.tail = nn.Parameter(minflow.tensor([0.0, 0.5, -0.2]))


def _covariance_loss(model, data):
    """A MAP loss: an LKJ prior on the correlation factor, a Wishart likelihood of the
    data, and a GeneralizedPareto whose reparameterized draws are pulled towards 2."""
    corr = biject_to(constraints.corr_cholesky)(model.raw_corr)
    prior = LKJCholesky(3, 2.0).log_prob(corr)
    tril = model.log_scale.exp().diag_embed() @ corr
    likelihood = Wishart(minflow.tensor(6.0), scale_tril=tril).log_prob(data).mean()
    tail = GeneralizedPareto(model.tail[0], model.tail[1].exp(), model.tail[2])
    draws = tail.rsample((256,))
    return -(prior + likelihood) / 10 + (draws.mean() - 2.0).pow(2)


def test_lkj_wishart_and_generalized_pareto_train_the_same_in_nn_graph():
    rng = np.random.default_rng(2)
    factors = rng.normal(size=(8, 3, 6))
    data = minflow.tensor(factors @ np.swapaxes(factors, -1, -2), dtype=minflow.float32)
    eager, compiled = _train_both(CovarianceModel, _covariance_loss, (data,))
    np.testing.assert_allclose(compiled, eager, rtol=1e-4, atol=1e-5)
    assert eager[-1] < eager[0]
