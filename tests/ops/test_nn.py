import warnings

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck, gradgradcheck
from minflow.core.dispatch import apply
from minflow.ops.nn import EMBEDDING_GRAD

DTYPES = [minflow.float32, minflow.float64]
TOL = {minflow.float32: dict(rtol=1e-4, atol=1e-5), minflow.float64: dict(rtol=1e-10, atol=1e-12)}


def mf(a, device="cpu", dtype=minflow.float64, grad=False):
    return None if a is None else minflow.tensor(np.asarray(a), dtype=dtype, device=device,
                                                 requires_grad=grad)


def out(t):
    return t.detach().cpu().numpy()


def grads_of(y, inputs, seed):
    """Grads of <seed, y> w.r.t. the inputs that are tensors (None elsewhere)."""
    g = minflow.tensor(seed, dtype=y.dtype, device=y.device)
    found = minflow.autograd.grad(y, [x for x in inputs if x is not None], g, allow_unused=True)
    return [out(f) for f in found]


# ---- batch_norm / layer_norm: one table, numpy references --------------------------------

def _bn_ref(x, w, b, stats, training, eps=1e-5, **_):
    axes = (0,) + tuple(range(2, x.ndim))
    mean, var = (x.mean(axes), x.var(axes)) if training else stats
    view = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps)
    return y * (1 if w is None else w.reshape(view)) + (0 if b is None else b.reshape(view))


def _ln_ref(x, w, b, stats, normalized_shape, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


# name: (function, input shape, keyword args, affine)
NORM_CASES = {
    "bn_nc_train": ("batch_norm", (6, 3), dict(training=True), True),
    "bn_ncl_train_plain": ("batch_norm", (4, 3, 5), dict(training=True), False),
    "bn_nchw_train": ("batch_norm", (3, 2, 2, 3), dict(training=True, eps=1e-3), True),
    "bn_nchw_eval": ("batch_norm", (3, 2, 2, 3), dict(training=False), True),
    "bn_ncl_eval_plain": ("batch_norm", (4, 3, 5), dict(training=False), False),
    "ln_last": ("layer_norm", (4, 5), dict(normalized_shape=(5,)), True),
    "ln_two_dims": ("layer_norm", (2, 3, 4), dict(normalized_shape=(3, 4), eps=1e-3), True),
    "ln_all_plain": ("layer_norm", (3, 4), dict(normalized_shape=(3, 4)), False),
}


def _norm_arrays(name):
    kind, shape, kw, affine = NORM_CASES[name]
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(shape) * 2 + 0.5
    pshape = (shape[1],) if kind == "batch_norm" else kw["normalized_shape"]
    w, b = (rng.standard_normal(pshape) + 1, rng.standard_normal(pshape)) if affine else (None,) * 2
    stats = (rng.standard_normal(shape[1]), rng.uniform(0.5, 2.0, shape[1]))
    return x, w, b, stats


def _norm_fn(name, lib, as_tensor):
    """fn(x, w, b) calling ``lib.batch_norm`` / ``lib.layer_norm`` (minflow's or torch's)."""
    kind, _, kw, _ = NORM_CASES[name]
    _, _, _, stats = _norm_arrays(name)
    if kind == "layer_norm":
        return lambda x, w, b: lib.layer_norm(x, weight=w, bias=b, **kw)
    if kw["training"]:     # batch stats only: the running-stat update is tested below
        return lambda x, w, b: lib.batch_norm(x, None, None, w, b, **kw)
    return lambda x, w, b: lib.batch_norm(x, as_tensor(stats[0]), as_tensor(stats[1]), w, b,
                                          **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_norm_forward_matches_numpy(name, dtype, device):
    kind, _, kw, _ = NORM_CASES[name]
    x, w, b, stats = _norm_arrays(name)
    fn = _norm_fn(name, Fn, lambda a: mf(a, device, dtype))
    y = fn(*(mf(a, device, dtype) for a in (x, w, b)))
    ref = (_bn_ref if kind == "batch_norm" else _ln_ref)(x, w, b, stats, **kw)
    assert y.dtype is dtype and y.shape == x.shape
    np.testing.assert_allclose(out(y), ref, **TOL[dtype])


@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_norm_gradcheck(name):
    # gradcheck perturbs numpy arrays in place: cpu only; other devices match torch below
    x, w, b, _ = _norm_arrays(name)
    fn = _norm_fn(name, Fn, mf)
    inputs = tuple(mf(a, grad=True) for a in (x, w, b))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)     # runs the composite backward under create_graph


@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_fused_and_composite_backward_agree(name):
    x, w, b, _ = _norm_arrays(name)
    fn = _norm_fn(name, Fn, mf)
    inputs = [mf(a, grad=True) for a in (x, w, b)]
    y = fn(*inputs)
    seed = mf(np.random.default_rng(1).standard_normal(x.shape))
    leaves = [t for t in inputs if t is not None]
    fused = minflow.autograd.grad(y, leaves, seed, retain_graph=True)
    composite = minflow.autograd.grad(y, leaves, seed, create_graph=True)
    for f, c in zip(fused, composite):
        np.testing.assert_allclose(out(f), out(c), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_norm_matches_torch(name, dtype, device):
    torch = pytest.importorskip("torch")
    tdtype = getattr(torch, dtype.name)
    x, w, b, _ = _norm_arrays(name)
    seed = np.random.default_rng(2).standard_normal(x.shape)
    ours = [mf(a, device, dtype, grad=True) for a in (x, w, b)]
    theirs = [None if a is None else torch.tensor(a, dtype=tdtype, requires_grad=True)
              for a in (x, w, b)]
    y = _norm_fn(name, Fn, lambda a: mf(a, device, dtype))(*ours)
    ty = _norm_fn(name, torch.nn.functional, lambda a: torch.tensor(a, dtype=tdtype))(*theirs)
    np.testing.assert_allclose(out(y), ty.detach().numpy(), **TOL[dtype])
    expected = torch.autograd.grad(ty, [t for t in theirs if t is not None],
                                   torch.tensor(seed, dtype=tdtype))
    for g, tg in zip(grads_of(y, ours, seed), expected):
        np.testing.assert_allclose(g, tg.numpy(), **TOL[dtype])


def test_norm_non_contiguous_input(device):
    a = np.random.default_rng(3).standard_normal((5, 4, 3))
    view = a.transpose(2, 1, 0)                      # (3, 4, 5), strided
    x = minflow.from_numpy(view)
    if device != "cpu":
        x = x.to(device)
    np.testing.assert_allclose(out(Fn.batch_norm(x, None, None, training=True)),
                               _bn_ref(view, None, None, None, True), rtol=1e-10)
    np.testing.assert_allclose(out(Fn.layer_norm(x, (4, 5))),
                               _ln_ref(view, None, None, None, (4, 5)), rtol=1e-10)
    w = minflow.from_numpy(np.ones((5, 4)).T)        # non-contiguous weight
    if device != "cpu":
        w = w.to(device)
    np.testing.assert_allclose(out(Fn.layer_norm(x, (4, 5), w)),
                               _ln_ref(view, None, None, None, (4, 5)), rtol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_running_stats_follow_torch(dtype, device):
    torch = pytest.importorskip("torch")
    tdtype = getattr(torch, dtype.name)
    rng = np.random.default_rng(4)
    batches = [rng.standard_normal((5, 3, 4)) * 3 + 1 for _ in range(3)]
    rm, rv = mf(np.zeros(3), device, dtype), mf(np.ones(3), device, dtype)
    trm, trv = torch.zeros(3, dtype=tdtype), torch.ones(3, dtype=tdtype)
    for x in batches:
        Fn.batch_norm(mf(x, device, dtype), rm, rv, training=True, momentum=0.3)
        torch.nn.functional.batch_norm(torch.tensor(x, dtype=tdtype), trm, trv, training=True,
                                       momentum=0.3)
    np.testing.assert_allclose(out(rm), trm.numpy(), **TOL[dtype])
    np.testing.assert_allclose(out(rv), trv.numpy(), **TOL[dtype])   # unbiased var
    x = rng.standard_normal((2, 3, 4))
    y = Fn.batch_norm(mf(x, device, dtype), rm, rv, training=False)
    ty = torch.nn.functional.batch_norm(torch.tensor(x, dtype=tdtype), trm, trv)
    np.testing.assert_allclose(out(y), ty.numpy(), **TOL[dtype])


def test_batch_norm_running_stats_update_in_place_without_grad():
    rm = minflow.zeros(2, dtype=minflow.float64)
    rv = minflow.ones(2, dtype=minflow.float64, requires_grad=True)   # a leaf requiring grad
    x = mf([[1.0, 2.0], [3.0, 6.0]], grad=True)
    version = rm._share_version()[0]        # as when saved for backward elsewhere
    y = Fn.batch_norm(x, rm, rv, training=True, momentum=0.5)
    assert rm._version_value > version and rm.grad_fn is None and rv.grad_fn is None
    np.testing.assert_allclose(out(rm), [1.0, 2.0])            # 0.5 * 0 + 0.5 * [2, 4]
    np.testing.assert_allclose(out(rv), [1.5, 4.5])            # 0.5 * 1 + 0.5 * [2, 8]
    y.sum().backward()
    assert x.grad is not None and rv.grad is None
    with pytest.raises(ValueError, match="running_mean and running_var must either both be "
                                         "None or neither be None"):     # as torch
        Fn.batch_norm(x, None, rv, training=True)


# ---- dropout --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_statistics_and_grad_mask(p, dtype, device):
    x = minflow.ones(200, 100, dtype=dtype, device=device, requires_grad=True)
    y = Fn.dropout(x, p)
    values = out(y)
    kept = values != 0
    assert y.dtype is dtype
    assert abs(1 - kept.mean() - p) < 0.015                    # 20000 draws: ~4 sigma
    np.testing.assert_allclose(values[kept], 1 / (1 - p), rtol=1e-6)
    y.sum().backward()
    np.testing.assert_array_equal(out(x.grad), values)         # the same mask and scale


def test_dropout_reproducible_under_manual_seed(device):
    def draw(seed):
        minflow.manual_seed(seed)
        return out(Fn.dropout(minflow.ones(64, device=device)))
    np.testing.assert_array_equal(draw(7), draw(7))
    assert not np.array_equal(draw(7), draw(8))


def test_dropout_edge_cases(device):
    x = minflow.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
    assert Fn.dropout(x, 0.5, training=False) is x
    np.testing.assert_array_equal(out(Fn.dropout(x, 0.0)), out(x))
    y = Fn.dropout(x, 1.0)
    np.testing.assert_array_equal(out(y), [0.0, 0.0, 0.0])
    y.sum().backward()
    np.testing.assert_array_equal(out(x.grad), [0.0, 0.0, 0.0])
    z = minflow.ones(50, device=device)
    assert Fn.dropout(z, 0.5, inplace=True) is z
    assert set(np.unique(out(z))) <= {0.0, 2.0}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # inf * 0
@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_all_dropped_is_input_times_zero(inplace, device):
    a = np.array([np.inf, -np.inf, np.nan, -2.0, 3.0, 0.0])
    x = minflow.tensor(a, device=device, requires_grad=True)
    y = Fn.dropout(x * 1.0, 1.0, inplace=inplace)
    expected = a * 0                           # as torch: nan for inf and nan, -0.0 for -2
    np.testing.assert_array_equal(out(y), expected)
    assert np.signbit(out(y)[3]) and not np.signbit(out(y)[4])
    y.sum().backward()
    np.testing.assert_array_equal(out(x.grad), np.zeros(6))
    d2 = Fn.dropout2d(minflow.tensor(a.reshape(1, 6, 1, 1), device=device), 1.0)
    np.testing.assert_array_equal(out(d2).ravel(), expected)


def test_dropout_gradcheck():
    x = mf(np.linspace(-1, 1, 12).reshape(3, 4), grad=True)

    def fn(x):
        minflow.manual_seed(3)        # the same mask on every evaluation
        return Fn.dropout(x, 0.4)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(lambda x: fn(x) * x, (x,))


def test_dropout2d_drops_whole_channels(device):
    y = out(Fn.dropout2d(minflow.ones(8, 6, 3, 2, device=device), 0.5))
    per_channel = y.reshape(8, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert set(np.unique(y)) == {0.0, 2.0}
    x = minflow.ones(4, 5, 3, device=device, requires_grad=True)    # (N, C, L)
    with pytest.warns(UserWarning, match="dropout2d: received a 3-D input, taken as"):
        y = Fn.dropout2d(x, 0.3)
    y.sum().backward()
    np.testing.assert_array_equal(out(x.grad), out(y))
    with pytest.warns(UserWarning, match="dropout2d: received a 5-D input"):
        Fn.dropout2d(minflow.ones(2, 2, 2, 2, 2, device=device))


def test_attention_dropout_uses_dropout(device):
    q = minflow.tensor(np.random.default_rng(5).standard_normal((2, 3, 4)), device=device)
    minflow.manual_seed(11)
    got = Fn.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    minflow.manual_seed(11)
    weights = Fn.softmax(minflow.einsum("bqe,bke->bqk", q, q) * 0.5, -1)
    expected = minflow.matmul(Fn.dropout(weights, 0.5), q)
    np.testing.assert_allclose(out(got), out(expected), rtol=1e-12)


# ---- embedding ---------------------------------------------------------------------------

WEIGHT = np.random.default_rng(6).standard_normal((6, 3))

# name: (indices, keyword args)
EMBEDDING_CASES = {
    "scalar_index": (np.array(4), {}),
    "vector": (np.array([0, 5, 2, 2]), {}),
    "matrix_duplicates": (np.array([[1, 3, 1], [3, 3, 0]]), {}),
    "padding": (np.array([[1, 2, 1], [2, 5, 0]]), dict(padding_idx=2)),
    "negative_padding": (np.array([5, 1, 5]), dict(padding_idx=-1)),
    "freq": (np.array([[1, 3, 1], [3, 3, 0]]), dict(scale_grad_by_freq=True)),
    "freq_padding": (np.array([4, 4, 2, 0]), dict(scale_grad_by_freq=True, padding_idx=0)),
}


def _embedding_grad_ref(idx, g, padding_idx=None, scale_grad_by_freq=False):
    grad = np.zeros_like(WEIGHT)
    np.add.at(grad, idx.reshape(-1), g.reshape(-1, WEIGHT.shape[1]))
    if scale_grad_by_freq:
        grad /= np.maximum(np.bincount(idx.reshape(-1), minlength=len(WEIGHT)), 1)[:, None]
    if padding_idx is not None:
        grad[padding_idx] = 0
    return grad


@pytest.mark.parametrize("index_dtype", [minflow.int64, minflow.int32])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(EMBEDDING_CASES))
def test_embedding_forward_and_grad(name, dtype, index_dtype, device):
    idx, kw = EMBEDDING_CASES[name]
    w = mf(WEIGHT, device, dtype, grad=True)
    y = Fn.embedding(minflow.tensor(idx, dtype=index_dtype, device=device), w, **kw)
    assert y.dtype is dtype and y.shape == idx.shape + (3,)
    np.testing.assert_allclose(out(y), WEIGHT[idx], **TOL[dtype])
    seed = np.random.default_rng(7).standard_normal(idx.shape + (3,))
    (grad,) = grads_of(y, [w], seed)
    ref_kw = dict(kw, padding_idx=None if "padding_idx" not in kw else kw["padding_idx"] % 6)
    np.testing.assert_allclose(grad, _embedding_grad_ref(idx, seed, **ref_kw), **TOL[dtype])


@pytest.mark.parametrize("name", sorted(EMBEDDING_CASES))
def test_embedding_matches_torch(name):
    torch = pytest.importorskip("torch")
    idx, kw = EMBEDDING_CASES[name]
    w, tw = mf(WEIGHT, grad=True), torch.tensor(WEIGHT, requires_grad=True)
    y = Fn.embedding(minflow.tensor(idx), w, **kw)
    ty = torch.nn.functional.embedding(torch.tensor(idx), tw, **kw)
    seed = np.random.default_rng(8).standard_normal(idx.shape + (3,))
    (grad,) = grads_of(y, [w], seed)
    ty.backward(torch.tensor(seed))
    np.testing.assert_allclose(out(y), ty.detach().numpy())
    np.testing.assert_allclose(grad, tw.grad.numpy(), rtol=1e-12)


def test_embedding_gradcheck():
    idx = minflow.tensor([[1, 3, 1], [3, 3, 0]])
    w = mf(WEIGHT, grad=True)
    assert gradcheck(lambda w: Fn.embedding(idx, w), (w,))
    for kw in ({}, dict(padding_idx=3)):       # padding zeroes a used row: no gradcheck
        assert gradgradcheck(lambda w: Fn.embedding(idx, w, **kw) ** 2, (w,))
    g = mf(np.random.default_rng(9).standard_normal((2, 3, 3)), grad=True)
    for padding_idx in (None, 1):     # the grad op itself, scaled by index counts
        def grad_op(g):
            return apply(EMBEDDING_GRAD, (g, idx), dict(num_weights=6, padding_idx=padding_idx,
                                                        scale_grad_by_freq=True))
        assert gradcheck(grad_op, (g,)) and gradgradcheck(grad_op, (g,))


def test_embedding_max_norm_matches_torch():
    torch = pytest.importorskip("torch")
    idx = np.array([[0, 2, 2], [5, 1, 2]])
    for norm_type in (2.0, 1.0, float("inf")):
        w, tw = mf(WEIGHT * 3), torch.tensor(WEIGHT * 3)
        y = Fn.embedding(minflow.tensor(idx), w, max_norm=1.5, norm_type=norm_type)
        ty = torch.nn.functional.embedding(torch.tensor(idx), tw, max_norm=1.5,
                                           norm_type=norm_type)
        np.testing.assert_allclose(out(w), tw.numpy(), rtol=1e-12)      # renormed in place
        np.testing.assert_allclose(out(y), ty.numpy(), rtol=1e-12)


# ---- one_hot -----------------------------------------------------------------------------

@pytest.mark.parametrize("indices, num_classes", [
    ([0, 2, 1], -1), ([[3, 0], [1, 1]], 5), (2, 4), ([], 3), ([0, 0], 1)])
def test_one_hot(indices, num_classes, device):
    idx = np.asarray(indices, dtype=np.int64)
    y = Fn.one_hot(minflow.tensor(idx, device=device), num_classes)
    n = idx.max() + 1 if num_classes == -1 else num_classes
    assert y.dtype is minflow.int64 and not y.requires_grad
    np.testing.assert_array_equal(out(y), np.eye(n, dtype=np.int64)[idx])


def test_one_hot_matches_torch():
    torch = pytest.importorskip("torch")
    idx = np.array([[4, 0, 2], [1, 1, 3]])
    np.testing.assert_array_equal(out(Fn.one_hot(minflow.tensor(idx))),
                                  torch.nn.functional.one_hot(torch.tensor(idx)).numpy())


# ---- errors ------------------------------------------------------------------------------

X43 = np.ones((4, 3))
ERRORS = {
    "bn_1d_input": (lambda: Fn.batch_norm(minflow.ones(3), None, None, training=True),
                    RuntimeError, r"batch_norm: expected input of shape \(N, C\).*got \[3\]"),
    "bn_stat_shape": (lambda: Fn.batch_norm(mf(X43), mf(np.zeros(4)), mf(np.ones(3))),
                      RuntimeError, r"expected running_mean of shape \[3\].*got \[4\]"),
    "bn_stat_dtype": (lambda: Fn.batch_norm(mf(X43), mf(np.zeros(3), dtype=minflow.float32),
                                            mf(np.ones(3))),
                      RuntimeError, "expected running_mean of dtype float64.*got float32"),
    "bn_weight_shape": (lambda: Fn.batch_norm(mf(X43), None, None, mf(np.ones(4)),
                                              training=True),
                        RuntimeError, r"batch_norm: expected weight of shape \[3\]"),
    "bn_eval_no_stats": (lambda: Fn.batch_norm(mf(X43), None, None),
                         RuntimeError, "running_mean and running_var must be defined"),
    "bn_one_value": (lambda: Fn.batch_norm(mf(np.ones((1, 3))), None, None, training=True),
                     ValueError, "Expected more than 1 value per channel when training"),
    "bn_int_input": (lambda: Fn.batch_norm(minflow.tensor([[1, 2], [3, 4]]), None, None,
                                           training=True),
                     TypeError, "batch_norm: expected input with dtype in"),
    "ln_shape": (lambda: Fn.layer_norm(mf(X43), (4,)), RuntimeError,
                 r"layer_norm: Given normalized_shape=\[4\], expected input with shape "
                 r"\[\*, 4\], but got input of size \[4, 3\]"),
    "ln_weight": (lambda: Fn.layer_norm(mf(X43), 3, mf(np.ones(4))), RuntimeError,
                  r"layer_norm: expected weight of shape \[3\]"),
    "ln_empty_shape": (lambda: Fn.layer_norm(mf(X43), ()), RuntimeError,
                       "normalized_shape to be at least 1-dimensional"),
    "dropout_p_high": (lambda: Fn.dropout(mf(X43), 1.5), ValueError,
                       "dropout probability has to be between 0 and 1, but got 1.5"),
    "dropout_p_low": (lambda: Fn.dropout(mf(X43), -0.1, training=False), ValueError,
                      "dropout probability has to be between 0 and 1, but got -0.1"),
    "dropout_int": (lambda: Fn.dropout(minflow.tensor([1, 2])), TypeError,
                    "dropout: expected input with dtype in"),
    "dropout2d_1d": (lambda: Fn.dropout2d(minflow.ones(3)), RuntimeError,
                     "Feature dropout requires at least 2 dimensions"),
    "embed_high": (lambda: Fn.embedding(minflow.tensor([1, 6]), mf(WEIGHT)), IndexError,
                   r"embedding: index 6 is out of range: expected indices in \[0, 6\)"),
    "embed_negative": (lambda: Fn.embedding(minflow.tensor([-1]), mf(WEIGHT)), IndexError,
                       r"index -1 is out of range"),
    "embed_float_idx": (lambda: Fn.embedding(mf([1.0]), mf(WEIGHT)), RuntimeError,
                        "embedding: expected input \\(indices\\) of dtype int64 or int32"),
    "embed_weight_1d": (lambda: Fn.embedding(minflow.tensor([1]), mf(np.ones(3))),
                        RuntimeError, "embedding: expected weight of 2 dims"),
    "embed_padding": (lambda: Fn.embedding(minflow.tensor([1]), mf(WEIGHT), padding_idx=6),
                      AssertionError, "padding_idx must be within num_embeddings"),
    "embed_sparse": (lambda: Fn.embedding(minflow.tensor([1]), mf(WEIGHT), sparse=True),
                     NotImplementedError, "sparse=True is not supported"),
    "one_hot_negative": (lambda: Fn.one_hot(minflow.tensor([1, -1]), 3), RuntimeError,
                         "one_hot: Class values must be non-negative"),
    "one_hot_too_big": (lambda: Fn.one_hot(minflow.tensor([3]), 3), RuntimeError,
                        "one_hot: Class values must be smaller than num_classes"),
    "one_hot_float": (lambda: Fn.one_hot(mf([1.0])), RuntimeError,
                      "one_hot: expected input of dtype int64"),
    "one_hot_empty": (lambda: Fn.one_hot(minflow.tensor([], dtype=minflow.int64)),
                      RuntimeError, "Can not infer total number of classes"),
    "one_hot_classes": (lambda: Fn.one_hot(minflow.tensor([1]), -3), RuntimeError,
                        "num_classes must be -1"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    call, error, match = ERRORS[name]
    with pytest.raises(error, match=match):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()


def test_norm_double_backward_in_eval_and_no_grad_buffers():
    x = mf(np.random.default_rng(10).standard_normal((4, 2)), grad=True)
    rm, rv = mf([0.5, -1.0]), mf([2.0, 0.5])

    def fn(x):
        return Fn.batch_norm(x, rm, rv, training=False) ** 2
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


@pytest.mark.parametrize("kwargs", [
    {"enable_gqa": True},
    {"enable_gqa": True, "is_causal": True},
    {"enable_gqa": True, "mask": "bool"},
    {"mask": "float"},
])
def test_sdpa_grouped_query_and_fully_masked_rows_match_torch(kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    kwargs = dict(kwargs)
    kv_heads = 2 if kwargs.get("enable_gqa") else 4
    arrays = [rng.standard_normal(s) for s in ((2, 4, 3, 8), (2, kv_heads, 5, 8),
                                                (2, kv_heads, 5, 8))]
    mask = rng.random((3, 5)) > 0.4
    mask[1] = False                     # a query row that sees no key: zeros, not NaN
    kind = kwargs.pop("mask", None)
    results = []
    for lib, fn in ((torch, torch.nn.functional.scaled_dot_product_attention),
                    (minflow, Fn.scaled_dot_product_attention)):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        extra = dict(kwargs)
        if kind == "bool":
            extra["attn_mask"] = lib.tensor(mask)
        elif kind == "float":
            extra["attn_mask"] = lib.tensor(np.where(mask, 0.0, -np.inf))
        out = fn(q, k, v, **extra)
        out.pow(2).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in (q, k, v)])
    for theirs, ours in zip(*results):
        assert np.isfinite(ours).all()
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_sdpa_grouped_query_heads_must_divide():
    q, kv = minflow.ones(1, 4, 2, 8), minflow.ones(1, 3, 2, 8)
    with pytest.raises(RuntimeError, match=r"number of heads in key \(3\) must divide the "
                                           r"number of heads in query \(4\)"):
        Fn.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)


def test_sdpa_backend_switches_as_torch():
    from minflow.nn.attention import SDPBackend, sdpa_kernel
    cuda = minflow.backends.cuda
    q = minflow.ones(1, 2, 3, 4)
    for backends in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION,
                     [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        with sdpa_kernel(backends):
            assert Fn.scaled_dot_product_attention(q, q, q).shape == (1, 2, 3, 4)
    for backends in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION, []):
        with sdpa_kernel(backends):         # none of these runs on cpu in torch either
            with pytest.raises(RuntimeError, match="No viable backend"):
                Fn.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel(SDPBackend.MATH):
        assert cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled()
    assert cuda.flash_sdp_enabled()                 # restored
    with cuda.sdp_kernel(enable_math=False, enable_flash=False):
        with pytest.raises(RuntimeError, match="No viable backend"):
            Fn.scaled_dot_product_attention(q, q, q)
    with pytest.raises(TypeError, match="SDPBackend values"):
        with sdpa_kernel("math"):
            pass


def test_backends_cuda_matmul_allow_tf32_is_the_matmul_precision():
    matmul = minflow.backends.cuda.matmul
    try:
        matmul.allow_tf32 = True
        assert minflow.get_float32_matmul_precision() == "high" and matmul.allow_tf32
    finally:
        matmul.allow_tf32 = False
    assert minflow.get_float32_matmul_precision() == "highest"
    assert minflow.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert not minflow.backends.mkldnn.is_available()
