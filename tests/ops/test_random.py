"""randperm, multinomial, bernoulli and the in-place random fills: reproducible with seeds
and generators, distribution sanity over many samples, dtypes and defaults, errors."""
import numpy as np
import pytest

import minflow

# name: draw(device, generator) -> Tensor
DRAWS = {
    "randperm": lambda d, g: minflow.randperm(50, generator=g, device=d),
    "multinomial": lambda d, g: minflow.multinomial(minflow.ones(2, 10, device=d), 5,
                                                    generator=g),
    "multinomial/replacement": lambda d, g: minflow.multinomial(
        minflow.tensor([0.2, 0.8], device=d), 20, True, generator=g),
    "bernoulli": lambda d, g: minflow.bernoulli(minflow.full((20,), 0.5, device=d),
                                                generator=g),
    "bernoulli/p": lambda d, g: minflow.bernoulli(minflow.empty(20, device=d), 0.3, generator=g),
    "uniform_": lambda d, g: minflow.empty(20, device=d).uniform_(-1, 2, generator=g),
    "normal_": lambda d, g: minflow.empty(20, device=d).normal_(1, 3, generator=g),
    "bernoulli_": lambda d, g: minflow.empty(20, device=d).bernoulli_(0.4, generator=g),
    "random_": lambda d, g: minflow.empty(20, device=d).random_(3, 9, generator=g),
    "exponential_": lambda d, g: minflow.empty(20, device=d).exponential_(2.0, generator=g),
    "standard_gamma": lambda d, g: minflow._standard_gamma(minflow.full((20,), 0.7, device=d),
                                                           generator=g),
    "poisson": lambda d, g: minflow.poisson(minflow.full((20,), 3.0, device=d), generator=g),
    "binomial": lambda d, g: minflow.binomial(minflow.full((20,), 9.0, device=d),
                                              minflow.tensor(0.4, device=d), generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_seed_same_values(name, device):
    draw = DRAWS[name]
    minflow.manual_seed(3)
    a = draw(device, None).tolist()
    minflow.manual_seed(3)
    assert draw(device, None).tolist() == a
    g = minflow.Generator(device).manual_seed(5)
    b = draw(device, g).tolist()
    assert draw(device, minflow.Generator(device).manual_seed(5)).tolist() == b
    assert draw(device, g).tolist() != b           # the generator's stream moved on


N = 200_000


@pytest.mark.parametrize("name, make, mean, var", [
    ("uniform_", lambda: minflow.empty(N).uniform_(-1, 2), 0.5, 0.75),
    ("normal_", lambda: minflow.empty(N, dtype=minflow.float64).normal_(1, 3), 1.0, 9.0),
    ("bernoulli_", lambda: minflow.empty(N).bernoulli_(0.3), 0.3, 0.21),
    ("exponential_", lambda: minflow.empty(N).exponential_(2.0), 0.5, 0.25),
    ("random_", lambda: minflow.empty(N).random_(0, 10), 4.5, 8.25),
    ("bernoulli", lambda: minflow.bernoulli(minflow.full((N,), 0.7)), 0.7, 0.21),
    ("standard_gamma", lambda: minflow._standard_gamma(minflow.full((N,), 2.5)), 2.5, 2.5),
    ("standard_gamma/small", lambda: minflow._standard_gamma(minflow.full((N,), 0.3)), 0.3, 0.3),
    ("poisson", lambda: minflow.poisson(minflow.full((N,), 4.0)), 4.0, 4.0),
    ("binomial", lambda: minflow.binomial(minflow.full((N,), 10.0), minflow.full((N,), 0.3)),
     3.0, 2.1),
])
def test_distribution_moments(name, make, mean, var):
    x = make().double().numpy()
    assert abs(x.mean() - mean) < 0.02 * max(1, abs(mean))
    assert abs(x.var() - var) < 0.03 * var


def test_randperm_is_a_permutation(device):
    for n in (0, 1, 17):
        p = minflow.randperm(n, device=device)
        assert p.dtype == minflow.int64 and sorted(p.tolist()) == list(range(n))
    assert minflow.randperm(4, dtype=minflow.float32).dtype == minflow.float32


def test_multinomial(device):
    probs = minflow.tensor([[0.0, 1.0, 3.0, 0.0, 6.0]] * 3, device=device)
    out = minflow.multinomial(probs, 3)
    assert out.shape == (3, 3) and out.dtype == minflow.int64
    for row in out.tolist():
        assert sorted(row) == [1, 2, 4]             # distinct, and never a zero weight
    draws = minflow.multinomial(probs[0], 100_000, replacement=True).cpu().numpy()
    freq = np.bincount(draws, minlength=5) / draws.size
    np.testing.assert_allclose(freq, [0, 0.1, 0.3, 0, 0.6], atol=0.01)
    first = minflow.multinomial(minflow.tensor([1.0, 2.0, 7.0]).repeat(20000, 1), 1).numpy()
    np.testing.assert_allclose(np.bincount(first.ravel()) / first.size, [0.1, 0.2, 0.7],
                               atol=0.01)


def test_in_place_fills_keep_the_tensor():
    x = minflow.zeros(3, 4)
    view = x[1]
    assert view.uniform_(5, 6) is view and (x[1] >= 5).all().item()
    assert x[0].sum().item() == 0
    ints = minflow.zeros(1000, dtype=minflow.int32).random_()
    assert ints.dtype == minflow.int32 and ints.min().item() >= 0
    assert set(minflow.zeros(100, dtype=minflow.bool).random_().tolist()) == {False, True}
    w = minflow.empty(3, requires_grad=True)
    with minflow.no_grad():
        w.normal_()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.uniform_()


def test_torch_defaults_and_dtypes():
    torch = pytest.importorskip("torch")
    assert str(torch.randperm(3).dtype) == "torch." + minflow.randperm(3).dtype.name
    p64 = minflow.full((3,), 0.5, dtype=minflow.float64)
    assert minflow.bernoulli(p64).dtype == minflow.float64
    assert str(torch.bernoulli(torch.full((3,), 0.5, dtype=torch.float64)).dtype) == \
        "torch.float64"
    assert minflow.multinomial(minflow.ones(4), 2).dtype.name == \
        str(torch.multinomial(torch.ones(4), 2).dtype).split(".")[1]


@pytest.mark.parametrize("call, err, match", [
    (lambda: minflow.multinomial(minflow.ones(3), 4), RuntimeError,
     "multinomial: cannot sample n_sample > prob_dist"),
    (lambda: minflow.multinomial(minflow.tensor([1.0, 0.0, 0.0]), 2), RuntimeError,
     "not enough non-zero categories"),
    (lambda: minflow.multinomial(minflow.tensor([1.0, -1.0]), 1), RuntimeError,
     "non-negative"),
    (lambda: minflow.multinomial(minflow.ones(2, 2, 2), 1), RuntimeError, "1 or 2 dim"),
    (lambda: minflow.multinomial(minflow.ones(3), 0), ValueError, "num_samples"),
    (lambda: minflow.bernoulli(minflow.tensor([1.5])), RuntimeError, r"in \[0, 1\]"),
    (lambda: minflow.randperm(-1), ValueError, "randperm: attr 'n'"),
    (lambda: minflow.empty(2).uniform_(2, 1), RuntimeError, "uniform_: expects"),
    (lambda: minflow.empty(2).normal_(0, -1), RuntimeError, "normal_: expected std"),
    (lambda: minflow.empty(2).exponential_(0), RuntimeError, "exponential: expected lambd"),
    (lambda: minflow.zeros(2, dtype=minflow.int64).uniform_(), TypeError, "uniform_: expected "),
    (lambda: minflow.empty(2).uniform_(0, 1, 2), TypeError, "uniform_: expected at most"),
    (lambda: minflow.poisson(minflow.tensor([-1.0])), RuntimeError, "invalid Poisson rate"),
    (lambda: minflow.binomial(minflow.ones(1), minflow.tensor([1.5])), RuntimeError,
     r"binomial: expected all elements of prob in \[0, 1\]"),
    (lambda: minflow.binomial(minflow.tensor([-2.0]), minflow.ones(1) / 2), RuntimeError,
     "binomial: expected all elements of count >= 0"),
])
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


@pytest.mark.parametrize("kind", ["both", "mean", "std"])
def test_normal_with_tensor_parameters_requires_grad_with_zero_grads_as_torch(kind, device):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        mean = lib.zeros(2, 1, requires_grad=True) if kind != "std" else 0.5
        std = lib.ones(3, requires_grad=True) if kind != "mean" else 2.0
        if lib is minflow and kind != "std":
            mean = minflow.zeros(2, 1, device=device, requires_grad=True)
        if lib is minflow and kind != "mean":
            std = minflow.ones(3, device=device, requires_grad=True)
        out = lib.normal(mean, std)
        out.sum().backward()
        grads = [t.grad.tolist() for t in (mean, std) if isinstance(t, lib.Tensor)]
        results.append((tuple(out.shape), out.requires_grad, type(out.grad_fn).__name__
                        if lib is torch else out.grad_fn.name(), grads))
    assert results[0] == results[1]
    with minflow.no_grad():
        assert not minflow.normal(minflow.zeros(2, requires_grad=True), 1.0).requires_grad


@pytest.mark.parametrize("fill, args, reference", [
    # the quartiles of Cauchy(1, 2): median -+ sigma
    ("cauchy_", (1.0, 2.0), lambda x: np.testing.assert_allclose(
        np.percentile(x, [25, 50, 75]), [-1.0, 1.0, 3.0], atol=0.05)),
    # log-normal of the underlying N(0.5, 0.3^2): mean exp(mu + s^2/2)
    ("log_normal_", (0.5, 0.3), lambda x: np.testing.assert_allclose(
        [x.mean(), np.log(x).std()], [np.exp(0.5 + 0.045), 0.3], rtol=0.01)),
    # geometric(0.3) on {1, 2, ...}: P(k) = 0.7^(k-1) 0.3, mean 1/p
    ("geometric_", (0.3,), lambda x: np.testing.assert_allclose(
        np.bincount(x.astype(np.int64))[1:4] / x.size, [0.3, 0.21, 0.147], atol=0.005)),
])
def test_cauchy_log_normal_and_geometric_fills_follow_their_distributions(fill, args,
                                                                          reference):
    g = minflow.Generator().manual_seed(0)
    t = minflow.empty(200000)
    assert getattr(t, fill)(*args, generator=g) is t
    reference(t.numpy())


def test_geometric_fills_integer_tensors_and_the_fills_check_arguments_as_torch():
    t = minflow.zeros(1000, dtype=minflow.int64).geometric_(0.5)
    assert t.dtype is minflow.int64 and t.min().item() >= 1
    for call, match in [(lambda: minflow.empty(2).cauchy_(0, 0), "sigma > 0.0"),
                        (lambda: minflow.empty(2).log_normal_(1, -1), "std > 0.0"),
                        (lambda: minflow.empty(2).geometric_(1.0), r"p to be in \(0, 1\)")]:
        with pytest.raises(RuntimeError, match=match):
            call()
    with pytest.raises(TypeError, match="cauchy_: expected a floating point tensor"):
        minflow.zeros(2, dtype=minflow.int64).cauchy_()
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'p'"):
        minflow.empty(2).geometric_()
