"""The torch namespace and Tensor surface scripts touch: Tensor.unfold (a view op, run
through check_op), and the composites argwhere, cov, corrcoef, histogram, rsub, renorm,
sum_to_size, split_with_sizes, the window functions and the in-place variants torch has.
Values, dtypes and gradients are compared with torch where it is installed."""
import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
TOL = {"float16": (3e-3, 3e-3), "float32": (1e-6, 1e-6), "float64": (1e-10, 1e-12)}


def _unfold_reference(x, dimension, size, step):
    moved = np.moveaxis(x, dimension, -1)
    starts = range(0, moved.shape[-1] - size + 1, step)
    windows = np.stack([moved[..., s:s + size] for s in starts], axis=-2)
    return np.moveaxis(windows, -2, dimension)


def test_unfold_check_op(device):
    x = RNG.normal(size=(3, 7, 4))
    samples = [Sample(x, dimension=1, size=3, step=2), Sample(x, dimension=2, size=2, step=1),
               Sample(x[0], dimension=0, size=3, step=3)]
    check_op(lambda input, **kw: input.unfold(**kw), samples, _unfold_reference, op="unfold",
             devices=[device], tol=TOL, errors=[
                 (Sample(x, dimension=1, size=8, step=1), RuntimeError,
                  "unfold: maximum size for tensor at dimension 1 is 7 but size is 8"),
                 (Sample(x, dimension=1, size=2, step=0), RuntimeError,
                  "unfold: step is 0 but must be > 0"),
                 (Sample(x, dimension=3, size=2, step=1), IndexError,
                  r"unfold: Dimension out of range")])


def test_unfold_is_a_view_with_torch_values_and_grads():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(3, 7, 4))
    for args in ((1, 3, 2), (1, 2, 3), (0, 2, 1), (2, 4, 1), (-1, 1, 1), (1, 0, 2)):
        ours, theirs = minflow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        weight = RNG.normal(size=tuple(theirs.unfold(*args).shape))
        u, v = ours.unfold(*args), theirs.unfold(*args)
        assert u.shape == tuple(v.shape) and u.stride() == v.stride()
        (u * minflow.tensor(weight)).sum().backward()
        (v * torch.tensor(weight)).sum().backward()
        np.testing.assert_allclose(u.detach().numpy(), v.detach().numpy())
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-12)
    base = minflow.zeros(6)
    base.unfold(0, 2, 2)[1, 0] = 5.0           # a view: the write reaches the base
    assert base.tolist() == [0.0, 0.0, 5.0, 0.0, 0.0, 0.0]
    assert minflow.tensor(5.0).unfold(0, 1, 1).tolist() == [5.0]


def test_sum_to_size_and_split_with_sizes():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 3, 4))
    for size in ((4,), (3, 1), (1, 3, 4), (2, 1, 1), ((1, 4),)):
        np.testing.assert_allclose(minflow.tensor(x).sum_to_size(*size).numpy(),
                                   torch.tensor(x).sum_to_size(*size).numpy(), atol=1e-12)
    pieces = minflow.tensor(x).split_with_sizes([1, 3], dim=-1)
    expected = torch.tensor(x).split_with_sizes([1, 3], dim=-1)
    assert [p.tolist() for p in pieces] == [p.tolist() for p in expected]
    assert minflow.split_with_sizes(minflow.tensor(x), (2,))[0].shape == (2, 3, 4)


@pytest.mark.parametrize("values", [[[0, 1], [2, 0]], [[0.0, 0.0]], 3, 0, [True, False, True]])
def test_argwhere_as_torch(values):
    torch = pytest.importorskip("torch")
    got, expected = minflow.argwhere(minflow.tensor(values)), torch.argwhere(torch.tensor(values))
    assert got.shape == tuple(expected.shape) and got.tolist() == expected.tolist()
    assert got.dtype is minflow.int64


COV_KWARGS = [{}, {"correction": 0}, {"correction": 2}, {"fweights": "f"}, {"aweights": "a"},
              {"fweights": "f", "aweights": "a"}, {"fweights": "f", "aweights": "a",
                                                   "correction": 0}]


@pytest.mark.parametrize("kwargs", COV_KWARGS)
@pytest.mark.parametrize("shape", [(3, 6), (6,)])
def test_cov_values_and_grads_as_torch(kwargs, shape):
    torch = pytest.importorskip("torch")
    x, f, a = RNG.normal(size=shape), RNG.integers(1, 4, 6), RNG.uniform(0.1, 1.0, 6)
    weights = {"f": f, "a": a}

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        kw = {k: (lib.tensor(weights[v]) if isinstance(v, str) else v) for k, v in kwargs.items()}
        c = lib.cov(t, **kw)
        (c * c).sum().backward()
        return c.detach().numpy(), t.grad.numpy()
    for ours, theirs in zip(run(minflow), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_cov_dtypes_and_corrcoef_as_torch():
    torch = pytest.importorskip("torch")
    ints = [[1, 2, 4], [0, 5, 1]]
    assert minflow.cov(minflow.tensor(ints)).dtype is minflow.float32
    np.testing.assert_allclose(minflow.cov(minflow.tensor(ints)).numpy(),
                               torch.cov(torch.tensor(ints)).numpy(), rtol=1e-6)
    x = RNG.normal(size=(4, 5))
    ours, theirs = minflow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    c, d = minflow.corrcoef(ours), torch.corrcoef(theirs)
    np.testing.assert_allclose(c.detach().numpy(), d.detach().numpy(), atol=1e-12)
    (c * minflow.tensor(x[:, :4])).sum().backward()
    (d * torch.tensor(x[:, :4])).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-10)
    assert minflow.corrcoef(minflow.tensor([1.0, 2.0, 5.0])).item() == 1.0
    with pytest.warns(UserWarning, match="cov: degrees of freedom is <= 0"):
        assert np.isnan(minflow.cov(minflow.tensor([1.0])).item())


@pytest.mark.parametrize("kwargs", [
    dict(bins=4), dict(bins=4, range=(0.0, 3.0)), dict(bins=3, density=True),
    dict(bins=5, weight=True), dict(bins=5, weight=True, density=True),
    dict(bins=[-1.0, 0.0, 0.5, 2.0]), dict(bins=[-1.0, 0.0, 0.5, 2.0], density=True),
    dict(bins=2, range=(0.5, 0.5))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_as_torch(kwargs, dtype):
    torch = pytest.importorskip("torch")
    x = np.round(RNG.normal(size=(4, 5)), 1).astype(dtype)
    w = RNG.uniform(0, 2, size=(4, 5)).astype(dtype)

    def run(lib):
        kw = dict(kwargs)
        if isinstance(kw["bins"], list):
            kw["bins"] = lib.tensor(kw["bins"], dtype=getattr(lib, dtype))
        if kw.pop("weight", False):
            kw["weight"] = lib.tensor(w)
        hist, edges = lib.histogram(lib.tensor(x), **kw)
        return hist.numpy(), edges.numpy()
    for ours, theirs in zip(run(minflow), run(torch)):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_histogram_edges_equal_values_and_errors():
    hist, edges = minflow.histogram(minflow.tensor([2.0, 2.0]), bins=2)
    assert hist.tolist() == [0.0, 2.0] and edges.tolist() == [1.5, 2.0, 2.5]
    assert minflow.tensor([1.0, 3.0]).histogram(2).hist.tolist() == [1.0, 1.0]
    with pytest.raises(NotImplementedError, match="histogram: expected input with dtype in"):
        minflow.histogram(minflow.tensor([1, 2]), bins=2)
    with pytest.raises(RuntimeError, match="histogram: bins must be > 0, but got 0"):
        minflow.histogram(minflow.tensor([1.0]), bins=0)
    with pytest.raises(RuntimeError, match="histogram: min should not exceed max"):
        minflow.histogram(minflow.tensor([1.0]), bins=2, range=(3.0, 1.0))


def test_rsub_as_torch():
    torch = pytest.importorskip("torch")
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]
    for other, alpha in ((2, 1), (2.5, 3), ("tensor", 2)):
        def run(lib):
            o = lib.ones(3) if other == "tensor" else other
            return lib.rsub(lib.tensor(x), o, alpha=alpha)
        got, expected = run(minflow), run(torch)
        assert got.tolist() == expected.tolist() and str(got.dtype)[8:] == str(expected.dtype)[6:]
    assert minflow.rsub(minflow.tensor([1, 2]), 5).dtype is minflow.int64
    assert minflow.rsub(minflow.tensor([1, 2]), 0.5).dtype is minflow.float32
    a = minflow.tensor([1.0, 2.0], requires_grad=True)
    minflow.rsub(a, 3, alpha=2).sum().backward()
    assert a.grad.tolist() == [-2.0, -2.0]


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 5.0), (1, 1, 2.0), (3.5, -1, 0.5),
                                             (float("inf"), 0, 1.0)])
def test_renorm_values_and_grads_as_torch(p, dim, maxnorm):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(3, 4, 2)) * 3

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        r = lib.renorm(t, p, dim, maxnorm)
        (r * lib.tensor(x)).sum().backward()
        return r.detach().numpy(), t.grad.numpy()
    for ours, theirs in zip(run(minflow), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    t = minflow.tensor(x)
    expected = minflow.renorm(t, p, dim, maxnorm)
    assert t.renorm_(p, dim, maxnorm) is t and t.tolist() == expected.tolist()


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_as_torch(name, periodic, dtype):
    torch = pytest.importorskip("torch")
    for length in (0, 1, 2, 5, 8, 33):
        got = getattr(minflow, name)(length, periodic, dtype=getattr(minflow, dtype)).numpy()
        expected = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype)).numpy()
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    extra = {"hamming_window": (0.6, 0.3), "kaiser_window": (5.0,)}.get(name, ())
    np.testing.assert_allclose(getattr(minflow, name)(7, periodic, *extra).numpy(),
                               getattr(torch, name)(7, periodic, *extra).numpy(), atol=1e-6)


def test_window_defaults_and_errors(device):
    w = minflow.hann_window(4, device=device, requires_grad=True)
    assert w.dtype is minflow.float32 and w.requires_grad and w.is_leaf
    assert w.device.type == device
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes, got: "
                                           "int64"):
        minflow.hann_window(3, dtype=minflow.int64)
    with pytest.raises(RuntimeError, match="kaiser_window requires non-negative window_length"):
        minflow.kaiser_window(-1)
    with pytest.raises(TypeError, match="bartlett_window: expected window_length to be an int"):
        minflow.bartlett_window(2.5)


SHAPE_INPLACE = [("squeeze_", ()), ("squeeze_", (1,)), ("unsqueeze_", (0,)), ("t_", ()),
                 ("transpose_", (0, 1)), ("swapaxes_", (1, 0)), ("swapdims_", (0, 1))]


@pytest.mark.parametrize("name, args", SHAPE_INPLACE)
def test_shape_inplace_as_torch(name, args):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(3, 1))
    ours, theirs = minflow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a, b = ours * 2, theirs * 2
    assert getattr(a, name)(*args) is a
    getattr(b, name)(*args)
    assert a.shape == tuple(b.shape) and a.stride() == b.stride()
    weight = RNG.normal(size=tuple(b.shape))
    (a * minflow.tensor(weight)).sum().backward()
    (b * torch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())
    with pytest.raises(RuntimeError, match=f"{name}: a leaf Variable that requires grad"):
        getattr(ours, name)(*args)


def test_shape_inplace_shares_data():
    x = minflow.zeros(2, 3)
    view = x[0]
    x.t_()
    x[1, 0] = 7.0
    assert view.tolist() == [0.0, 7.0, 0.0] and x.shape == (3, 2)


VALUE_INPLACE = [
    ("cumsum_", lambda lib: (1,)), ("cumprod_", lambda lib: (0,)),
    ("logical_and_", lambda lib: (lib.tensor([[1.0, 0.0, 2.0]]),)),
    ("logical_or_", lambda lib: (lib.tensor([[0.0, 0.0, 2.0]]),)),
    ("logical_xor_", lambda lib: (lib.tensor([[1.0, 0.0, 0.0]]),)),
    ("logical_not_", lambda lib: ()), ("clip_", lambda lib: (-0.5, 0.5)),
    ("clamp_min_", lambda lib: (0.1,)), ("clamp_max_", lambda lib: (0.2,)),
    ("addmm_", lambda lib: (lib.ones(2, 4, dtype=lib.float64),
                            lib.ones(4, 3, dtype=lib.float64))),
    ("fill_diagonal_", lambda lib: (9.0,)), ("renorm_", lambda lib: (2, 0, 0.5))]


@pytest.mark.parametrize("name, args", VALUE_INPLACE, ids=[n for n, _ in VALUE_INPLACE])
def test_value_inplace_as_torch(name, args):
    torch = pytest.importorskip("torch")
    x = np.round(RNG.normal(size=(2, 3)), 1)
    x[0, 1] = 0.0
    ours, theirs = minflow.tensor(x), torch.tensor(x)
    assert getattr(ours, name)(*args(minflow)) is ours
    getattr(theirs, name)(*args(torch))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_inplace_grads_as_torch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(3, 3))

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        y = t * 1
        y.cumsum_(0).clip_(-1.0, 1.0).fill_diagonal_(0.5).clamp_max_(0.8)
        (y * lib.tensor(x)).sum().backward()
        return y.detach().numpy(), t.grad.numpy()
    for ours, theirs in zip(run(minflow), run(torch)):
        np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_bitwise_not_and_fill_diagonal_shapes():
    torch = pytest.importorskip("torch")
    i = minflow.tensor([1, -2, 0])
    assert i.bitwise_not_().tolist() == torch.tensor([1, -2, 0]).bitwise_not_().tolist()
    for shape, wrap in (((5, 3), True), ((5, 3), False), ((2, 5), True), ((3, 3, 3), False),
                        ((4, 4), True)):
        ours, theirs = minflow.zeros(*shape), torch.zeros(*shape)
        ours.fill_diagonal_(2, wrap=wrap)
        theirs.fill_diagonal_(2, wrap=wrap)
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("p", [2, 1, 0, 3.5, float("inf")])
def test_pdist_as_torch(p):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(5, 3))
    x[3] = x[1]                         # a zero distance: torch's gradient there is 0

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        d = lib.nn.functional.pdist(t, p)
        (d * lib.tensor(np.arange(10.0))).sum().backward()
        return d.detach().numpy(), t.grad.numpy()
    for ours, theirs in zip(run(minflow), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    assert minflow.nn.functional.pdist(minflow.ones(1, 3)).shape == (0,)
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        minflow.nn.functional.pdist(minflow.ones(2, 3, 1))
    with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
        minflow.nn.functional.pdist(minflow.ones(2, 3), -1)


def test_gumbel_softmax_seeded_soft_and_hard():
    F = minflow.nn.functional
    logits = minflow.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], requires_grad=True)
    weight = minflow.tensor([[1.0, -2.0, 3.0], [0.5, 1.0, -1.0]])
    minflow.manual_seed(3)
    soft = F.gumbel_softmax(logits, tau=0.7)
    (soft * weight).sum().backward()
    soft_grad, logits.grad = logits.grad.clone(), None
    minflow.manual_seed(3)
    hard = F.gumbel_softmax(logits, tau=0.7, hard=True)
    (hard * weight).sum().backward()
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), [1.0, 1.0], rtol=1e-6)
    expected = np.eye(3)[soft.detach().numpy().argmax(-1)]
    assert hard.detach().numpy().tolist() == expected.tolist()
    np.testing.assert_allclose(logits.grad.numpy(), soft_grad.numpy(), rtol=1e-6)  # straight-through
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-3)


def test_gumbel_softmax_hard_samples_follow_softmax():
    minflow.manual_seed(0)
    logits = minflow.tensor([0.0, 1.0, 2.0]).expand(20000, 3)
    counts = minflow.nn.functional.gumbel_softmax(logits, tau=2.0, hard=True, dim=1).sum(0)
    probs = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()   # Gumbel-max: any tau
    np.testing.assert_allclose(counts.numpy() / 20000, probs, atol=0.015)


def test_gumbel_softmax_in_graph_mode():
    class Sampler(minflow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.linear = minflow.nn.Linear(3, 4)

        def build(self, x):
            return minflow.nn.functional.gumbel_softmax(self.linear(x), hard=True)
    y = Sampler()(minflow.ones(5, 3))
    assert y.shape == (5, 4) and y.sum(1).tolist() == [1.0] * 5
