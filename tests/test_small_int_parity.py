"""The small integer dtypes uint8, int8 and int16 against PyTorch: the common ops give
torch's values and dtypes (wraparound included), a uint8 image batch trains a CNN one step
as torch's does, and nn.Graph takes uint8 input. (Promotion over every dtype pair:
test_torch_parity.py and tests/core/test_dtype.py.)"""
import numpy as np
import pytest

import minflow
from minflow import nn

torch = pytest.importorskip("torch")
from test_torch_parity import T, _run, assert_same  # noqa: E402

SMALL = ["uint8", "int8", "int16"]
_A = [[0, 7, 200], [255, 3, 128]]       # uint8 range; int8/int16 get them via torch's casts
_B = [[1, 2, 3], [4, 5, 250]]


def A(L, dtype):
    return T(L, _A, "int64").to(getattr(L, dtype))      # out-of-range values wrap, in both


def B(L, dtype):
    return T(L, _B, "int64").to(getattr(L, dtype))


OPS = {
    "add scalar wraps": lambda L, d: A(L, d) + 100,
    "sub": lambda L, d: A(L, d) - B(L, d),
    "mul": lambda L, d: A(L, d) * B(L, d),
    "neg": lambda L, d: -A(L, d),
    "abs": lambda L, d: A(L, d).abs(),
    "sign": lambda L, d: A(L, d).sign(),
    "true div": lambda L, d: A(L, d) / B(L, d),
    "floor_divide": lambda L, d: A(L, d) // B(L, d),
    "remainder": lambda L, d: A(L, d) % B(L, d),
    "fmod": lambda L, d: L.fmod(A(L, d), B(L, d)),
    "pow": lambda L, d: A(L, d) ** 2,
    "bitwise": lambda L, d: (A(L, d) & B(L, d), A(L, d) | 5, A(L, d) ^ B(L, d), ~A(L, d)),
    "comparisons": lambda L, d: (A(L, d) < B(L, d), A(L, d) == 7, A(L, d) >= B(L, d)),
    "maximum minimum": lambda L, d: (L.maximum(A(L, d), B(L, d)), L.minimum(A(L, d), B(L, d))),
    "clamp": lambda L, d: A(L, d).clamp(2, 100),
    "where": lambda L, d: L.where(A(L, d) > B(L, d), A(L, d), B(L, d)),
    "min max argmax": lambda L, d: (A(L, d).max(), A(L, d).min(1), A(L, d).argmax(1)),
    "sum prod cumsum": lambda L, d: (A(L, d).sum(), A(L, d).prod(1), A(L, d).cumsum(1),
                                     A(L, d).sum(0, dtype=getattr(L, d))),
    "sort topk": lambda L, d: (L.sort(A(L, d), 1), L.topk(A(L, d), 2)),
    "gather scatter": lambda L, d: (A(L, d).gather(1, T(L, [[2, 0], [1, 1]], "int64")),
                                    A(L, d).scatter(1, T(L, [[2], [0]], "int64"), 9)),
    "index select": lambda L, d: (A(L, d)[:, 1:], A(L, d)[T(L, [1, 0], "int64")],
                                  A(L, d).index_select(1, T(L, [2, 0], "int64"))),
    "cat stack mixed": lambda L, d: (L.cat([A(L, d), B(L, "int8")]), L.stack([A(L, d), B(L, d)])),
    "float conversion": lambda L, d: (A(L, d).float() / 255, A(L, d).double().sqrt()),
    "unary float": lambda L, d: (A(L, d).exp(), A(L, d).sigmoid()),
    "matmul": lambda L, d: A(L, d) @ B(L, d).T,
    "flip reshape": lambda L, d: (A(L, d).flip(0), A(L, d).reshape(3, 2).T.contiguous()),
    "unique nonzero": lambda L, d: (L.unique(A(L, d)), A(L, d).nonzero()),
    "bincount": lambda L, d: L.bincount(B(L, d).flatten() % 7),
    "any all": lambda L, d: (A(L, d).any(), A(L, d).all(1)),
    "mean refused": lambda L, d: A(L, d).mean(),
    "softmax refused": lambda L, d: L.softmax(A(L, d), 0),
    "embedding index refused": lambda L, d: L.nn.functional.embedding(B(L, d), L.ones(300, 2)),
    "interpolate nearest": lambda L, d: L.nn.functional.interpolate(
        A(L, "uint8").reshape(1, 1, 2, 3), scale_factor=2),
    "max_pool2d": lambda L, d: L.nn.functional.max_pool2d(
        A(L, d).reshape(1, 1, 2, 3), 2, ceil_mode=True, return_indices=True),
    "margin_ranking_loss": lambda L, d: L.nn.functional.margin_ranking_loss(
        A(L, d), B(L, d), L.ones(2, 3, dtype=getattr(L, d)), margin=1, reduction="sum"),
    "shifts": lambda L, d: (A(L, d) << 3, A(L, d) >> B(L, d), 1 << B(L, d)),
}


@pytest.mark.parametrize("dtype", SMALL)
@pytest.mark.parametrize("name", sorted(OPS))
def test_small_int_ops_match_torch(name, dtype, device):
    """torch (cpu) against minflow on ``device``: values, dtypes, or both raising."""
    theirs = _run(lambda L: OPS[name](L, dtype), torch)
    minflow.set_default_device(device)
    try:
        ours = _run(lambda L: OPS[name](L, dtype), minflow)
    finally:
        minflow.set_default_device("cpu")
    assert_same(ours, theirs, 1e-6, f"{name}[{dtype}] on {device}")


def _cnn(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3, padding=1), lib.nn.ReLU(),
                             lib.nn.MaxPool2d(2), lib.nn.Flatten(), lib.nn.Linear(4 * 4 * 4, 5))


def test_uint8_image_batch_trains_one_step_like_torch():
    images = np.random.default_rng(0).integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    labels = np.arange(6) % 5
    torch.manual_seed(0)
    theirs = _cnn(torch)
    ours = _cnn(minflow)
    ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    results = []
    for lib, model in ((torch, theirs), (minflow, ours)):
        batch = lib.from_numpy(images)
        assert str(batch.dtype).endswith("uint8")
        x = batch.permute(0, 3, 1, 2).float() / 255        # ToTensor's scaling
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        loss = lib.nn.functional.cross_entropy(model(x), lib.tensor(labels))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        results.append((loss.item(), [p.detach().numpy().copy() for p in model.parameters()]))
    (loss_t, params_t), (loss_m, params_m) = results
    assert loss_m == pytest.approx(loss_t, rel=1e-5)
    for p_m, p_t in zip(params_m, params_t):
        np.testing.assert_allclose(p_m, p_t, rtol=1e-5, atol=1e-6)


def test_graph_takes_a_uint8_image_batch():
    model = nn.Sequential(nn.Conv2d(3, 2, 3), nn.Flatten(), nn.Linear(2 * 6 * 6, 4))

    class Classify(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model

        def build(self, images):
            return self.model(images.permute(0, 3, 1, 2).float() / 255)

    images = minflow.from_numpy(
        np.random.default_rng(1).integers(0, 256, (2, 8, 8, 3), dtype=np.uint8))
    eager = model(images.permute(0, 3, 1, 2).float() / 255)
    graph = Classify()
    np.testing.assert_allclose(graph(images).numpy(), eager.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    assert graph(images).dtype is minflow.float32


def test_graph_wraps_python_ints_and_checks_fills_as_eager():
    def program(x):
        return (x + 1000, x - (-1), x * -1, x < 300, 1 << x, x.clamp(-1, 100),
                minflow.full_like(x, -1), x.masked_fill(x > 5, -1))

    class Program(nn.Graph):
        def build(self, x):
            return program(x)

    x = minflow.tensor([[1, 200], [7, 255]], dtype=minflow.uint8)
    for lazy, eager in zip(Program()(x), program(x)):
        assert lazy.dtype is eager.dtype and lazy.tolist() == eager.tolist()
