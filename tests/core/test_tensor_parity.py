"""PyTorch parity of the Tensor surface, factories, repr, grad mode and autograd: each case
runs with ``minflow`` and with ``torch`` (``L``) and the results (or errors) must agree."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")
# NOTE: tests/ is on sys.path (tests/conftest.py); the helpers live with the op parity tests
from test_torch_parity import INF, NAN, NORMAL, assert_same, check  # noqa: E402


# -- factories ------------------------------------------------------------------------------------
FACTORIES = {
    "tensor bool+int": lambda L: L.tensor([True, 2]),
    "tensor int+float": lambda L: L.tensor([1, 2.5]),
    "tensor nested": lambda L: L.tensor([[1, 2], [3, 4.]]), "tensor empty": lambda L: L.tensor([]),
    "tensor 0-d bool": lambda L: L.tensor(False),
    "tensor dtype=": lambda L: L.tensor([1.7, -2.7], dtype=L.int64),
    "tensor dtype=float is float64": lambda L: L.tensor([1, 2], dtype=float),
    "tensor dtype=int is int64": lambda L: L.tensor([1.5], dtype=int),
    "tensor numpy keeps dtype": lambda L: L.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor numpy scalar keeps dtype": lambda L: L.tensor(np.float32(2.5)),
    "tensor list of numpy scalars": lambda L: L.tensor([np.float64(1), 2.5]),
    "tensor numpy int32 in list": lambda L: L.tensor([np.int32(2), 3]),
    "tensor numpy float16 in list": lambda L: L.tensor([np.float16(1), 2]),
    "tensor of 0-d tensors": lambda L: L.tensor([L.tensor(1, dtype=L.int32), 2]),
    "tensor of a tensor": lambda L: L.tensor(L.tensor([1, 2])),
    "tensor range": lambda L: L.tensor(range(3)), "tensor tuple": lambda L: L.tensor((1, 2)),
    "tensor ragged raises": lambda L: L.tensor([[1, 2], [3]]),
    "tensor str raises": lambda L: L.tensor("abc"), "tensor None raises": lambda L: L.tensor(None),
    "tensor 2**63 raises": lambda L: L.tensor([2 ** 63]),
    "tensor int requires_grad raises": lambda L: L.tensor([1, 2], requires_grad=True),
    "tensor requires_grad": lambda L: L.tensor([1., 2.], requires_grad=True),
    "as_tensor": lambda L: L.as_tensor([1, 2], dtype=L.float32),
    "as_tensor numpy scalar": lambda L: L.as_tensor(np.float64(1.5)),
    "from_numpy 0-d": lambda L: L.from_numpy(np.array(2.)),
    "from_numpy strided": lambda L: L.from_numpy(np.arange(6.).reshape(2, 3).T),
    "from_numpy list raises": lambda L: L.from_numpy([1, 2]),
    "zeros": lambda L: L.zeros(2, 3), "zeros tuple": lambda L: L.zeros((2, 3)),
    "zeros size=": lambda L: L.zeros(size=(2, 3)),
    "zeros Size": lambda L: L.zeros(L.ones(2, 1).shape),
    "zeros negative raises": lambda L: L.zeros(-1), "zeros float raises": lambda L: L.zeros(2.5),
    "ones int32": lambda L: L.ones(2, dtype=L.int32),
    "ones bool": lambda L: L.ones(2, dtype=L.bool),
    "full int": lambda L: L.full((2,), 7), "full float": lambda L: L.full((2,), 7.),
    "full bool": lambda L: L.full((2,), True),
    "full float into int64": lambda L: L.full((2,), 1.5, dtype=L.int64),
    "full requires_grad": lambda L: L.full((2,), 1.5, requires_grad=True),
    "empty shape": lambda L: L.empty(2, 3).shape, "empty size=": lambda L: L.empty(size=(2,)).shape,
    "arange": lambda L: L.arange(5), "arange float end": lambda L: L.arange(5.),
    "arange start end": lambda L: L.arange(1, 4),
    "arange float step": lambda L: L.arange(0, 1, 0.1),
    "arange end-exclusive float": lambda L: L.arange(1, 2.5, 0.5),
    "arange 0.3": lambda L: L.arange(0, 1, 0.3),
    "arange -1..1 by 0.1": lambda L: L.arange(-1, 1, 0.1),
    "arange 0, 0.3, 0.1": lambda L: L.arange(0, 0.3, 0.1),
    "arange negative step": lambda L: L.arange(1., 0., -0.3),
    "arange empty": lambda L: L.arange(3, 3),
    "arange end=": lambda L: L.arange(end=3),
    "arange dtype=": lambda L: L.arange(5, dtype=L.float64),
    "arange 0-d tensor": lambda L: L.arange(L.tensor(3)),
    "arange wrong sign raises": lambda L: L.arange(0, 5, -1),
    "arange zero step raises": lambda L: L.arange(0, 5, 0),
    "linspace": lambda L: L.linspace(0, 1, 5), "linspace 1": lambda L: L.linspace(0, 1, 1),
    "linspace 0": lambda L: L.linspace(0, 1, 0),
    "linspace int": lambda L: L.linspace(0, 10, 4, dtype=L.int64),
    "linspace 0-d tensors": lambda L: L.linspace(L.tensor(0.), L.tensor(1.), 3),
    "linspace negative raises": lambda L: L.linspace(0, 1, -1),
    "eye": lambda L: L.eye(3),
    "eye n m": lambda L: L.eye(2, 3),
    "eye int": lambda L: L.eye(2, dtype=L.int64),
    "eye negative raises": lambda L: L.eye(-1),
    "randint dtype": lambda L: L.randint(0, 10, (3,)).dtype,
    "randint high, size": lambda L: L.randint(10, (3,)).shape,
    "randint empty range raises": lambda L: L.randint(5, 5, (3,)),
    "rand int dtype raises": lambda L: L.rand(2, dtype=L.int64),
    "randn size=": lambda L: L.randn(size=(2, 3), dtype=L.float64).dtype,
    "normal tensors broadcast": lambda L: L.normal(L.zeros(2, 1), L.ones(3)).shape,
    "normal float size": lambda L: L.normal(2., 3., size=(4,)).shape,
    "zeros_like": lambda L: L.zeros_like(L.tensor([1, 2])),
    "ones_like f64": lambda L: L.ones_like(L.ones(2, dtype=L.float64)),
    "full_like int": lambda L: L.full_like(L.tensor([1, 2]), 2.7),
    "rand_like int raises": lambda L: L.rand_like(L.tensor([1])),
    "randint_like": lambda L: L.randint_like(L.ones(2), 5).dtype,
    "new_zeros": lambda L: L.tensor([1, 2]).new_zeros(3),
    "new_ones": lambda L: L.ones(1, dtype=L.float64).new_ones((2,)),
    "new_full": lambda L: L.ones(1).new_full((2,), 3),
    "new_tensor": lambda L: L.ones(1, dtype=L.float64).new_tensor([1, 2]),
    "new_empty": lambda L: L.tensor([1]).new_empty(2).dtype,
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories(name):
    check(FACTORIES[name], 1e-6, name)


def test_arange_and_linspace_values_match_torch_over_a_sweep():
    rng = np.random.default_rng(0)
    for _ in range(300):
        start = round(float(rng.uniform(-3, 3)), int(rng.integers(0, 3)))
        step = float(rng.choice([0.1, 0.3, 0.25, 1 / 3, -0.1, -0.7, 2]))
        end = round(start + int(rng.integers(0, 20)) * step, int(rng.integers(1, 4)))
        for dtype in ("float32", "float64", "int64"):
            check(lambda L: L.arange(start, end, step, dtype=getattr(L, dtype)), 1e-6,
                  f"arange({start}, {end}, {step}, {dtype})")
        steps = int(rng.integers(0, 30))
        check(lambda L: L.linspace(start, end, steps), 1e-6, f"linspace({start}, {end}, {steps})")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_linspace_is_torchs_exactly(dtype):
    """torch's cpu linspace fuses its multiply-adds (one rounding): the same bits here."""
    for start, end in [(-1, 1), (0, 10), (-3.7, 2.2), (2, -7.3), (1e-3, 5.5)]:
        for steps in list(range(2, 70)) + [257, 1000]:
            ours = minflow.linspace(start, end, steps, dtype=getattr(minflow, dtype))
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy(),
                                          err_msg=f"linspace({start}, {end}, {steps})")


@pytest.mark.parametrize("make", [
    lambda L: L.arange(0.0, -8.000001, -4.0, dtype=L.int64),     # int64: truncated bounds
    lambda L: L.arange(1.0, 5.000001, 2.0, dtype=L.int64),
    lambda L: L.arange(1.0, 5.000001, 2.0, dtype=L.int32),      # others: length in doubles
    lambda L: L.arange(-0.9, 2.1, 2.0, dtype=L.int64),
    lambda L: L.arange(False, True, True),
    lambda L: L.arange(False, True, True, dtype=L.float32),
    lambda L: L.linspace(4.3, -3, 50, dtype=L.int64),
    lambda L: L.linspace(-5, 100, 33, dtype=L.int32),
    lambda L: L.linspace(4.3, -3, 50, dtype=L.float16),
    lambda L: L.linspace(-3.3, 7.1, 101, dtype=L.float16),
    lambda L: L.linspace(2.5, 7, 1, dtype=L.int64),
    lambda L: L.logspace(0, 1.2, 4, dtype=L.int64),
    lambda L: L.logspace(0, 1.2, 4, base=5.0, dtype=L.int32),
    lambda L: L.logspace(4.3, -3, 4, dtype=L.float16),
    lambda L: L.logspace(4.3, 0, 1, dtype=L.float16),
])
def test_ranges_in_int_and_half_dtypes_are_torchs_exactly(make):
    ours, theirs = make(minflow), make(torch)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert ours.tolist() == theirs.tolist()


def test_from_numpy_shares_memory_and_rejects_unsupported_dtypes():
    a = np.zeros(3, dtype=np.float32)
    t = minflow.from_numpy(a)
    a[0] = 7
    t.add_(1)
    assert t.tolist() == [8.0, 1.0, 1.0] and a.tolist() == [8.0, 1.0, 1.0]
    for np_dtype in (np.uint16, np.uint32, np.clongdouble):
        with pytest.raises(TypeError, match="from_numpy: numpy dtype"):
            minflow.from_numpy(np.zeros(2, dtype=np_dtype))


def test_manual_seed_and_generator_reproducibility():
    minflow.manual_seed(3)
    first = [minflow.rand(3).tolist(), minflow.randn(2).tolist(),
             minflow.randint(0, 9, (4,)).tolist()]
    minflow.manual_seed(3)
    assert [minflow.rand(3).tolist(), minflow.randn(2).tolist(),
            minflow.randint(0, 9, (4,)).tolist()] == first
    g = minflow.Generator().manual_seed(5)
    draws = minflow.normal(0., 1., (3,), generator=g).tolist()
    minflow.manual_seed(1)
    before = minflow.rand(1).item()
    g.manual_seed(5)
    minflow.manual_seed(1)
    assert minflow.normal(0., 1., (3,), generator=g).tolist() == draws    # g is its own stream
    assert minflow.rand(1).item() == before


# -- repr ------------------------------------------------------------------------------
REPRS = {
    "ints": lambda L: L.tensor([1, 2, 3]), "int32": lambda L: L.tensor([1, 2], dtype=L.int32),
    "padded ints": lambda L: L.tensor([[-1, 20], [300, 4]]),
    "floats": lambda L: L.tensor([1.5, 2.25, -3.0]),
    "integral floats": lambda L: L.tensor([1., 2., -3.]),
    "float64": lambda L: L.tensor([1.5], dtype=L.float64),
    "float16": lambda L: L.tensor([1.5, 2.], dtype=L.float16),
    "bools": lambda L: L.tensor([[True, False], [False, True]]),
    "0-d int": lambda L: L.tensor(3),
    "0-d float": lambda L: L.tensor(-5.25),
    "0-d bool": lambda L: L.tensor(True),
    "0-d integral float": lambda L: L.tensor(3.), "empty": lambda L: L.tensor([]),
    "empty 2-d": lambda L: L.zeros(0, 3), "empty int64": lambda L: L.zeros(2, 0, dtype=L.int64),
    "empty bool": lambda L: L.zeros(0, dtype=L.bool),
    "requires_grad": lambda L: L.tensor([1., 2.], requires_grad=True),
    "grad_fn": lambda L: L.tensor([1., 2.], requires_grad=True) * 2,
    "grad_fn sum": lambda L: L.tensor([1., 2.], requires_grad=True).sum(),
    "scientific": lambda L: L.tensor([1e-5, 1., 1e5]), "big": lambda L: L.tensor([1e10, 1.]),
    "nan inf": lambda L: L.tensor([NAN, INF, -INF, 1.5]),
    "nan inf integral": lambda L: L.tensor([NAN, INF, 1.]),
    "wraps at 80": lambda L: L.arange(40.) / 3, "summarised ints": lambda L: L.arange(2000),
    "summarised floats": lambda L: L.arange(2000.) / 7,
    "summarised 2-d": lambda L: L.arange(5000).reshape(50, 100),
    "3-d": lambda L: L.arange(12.).reshape(2, 3, 2) / 4,
    "meta": lambda L: L.ones(2, 3, device="meta"),
    "meta int": lambda L: L.ones(2, dtype=L.int64, device="meta"),
}


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr_matches_torch(name):
    assert repr(REPRS[name](minflow)) == repr(REPRS[name](torch)).replace("torch.", "minflow.")


PRINT_OPTIONS = [dict(precision=2), dict(precision=6, linewidth=50), dict(threshold=10),
                 dict(edgeitems=1, threshold=5), dict(sci_mode=True), dict(sci_mode=False),
                 dict(profile="short"), dict(profile="full")]


@pytest.mark.parametrize("options", PRINT_OPTIONS, ids=lambda o: "-".join(map(str, o.items())))
def test_set_printoptions_matches_torch(options):
    try:
        for lib in (minflow, torch):
            lib.set_printoptions(**options)
        for name in ("floats", "scientific", "big", "wraps at 80", "summarised floats",
                     "summarised 2-d", "3-d", "ints", "nan inf"):
            ours, theirs = repr(REPRS[name](minflow)), repr(REPRS[name](torch))
            assert ours == theirs.replace("torch.", "minflow."), name
    finally:
        for lib in (minflow, torch):
            lib.set_printoptions(profile="default", sci_mode=None)


def test_repr_shows_float32_when_default_is_float64():
    minflow.set_default_dtype(minflow.float64)
    try:
        assert repr(minflow.tensor([1.5])) == "tensor([1.5000])"
        assert repr(minflow.tensor([1.5], dtype=minflow.float32)) == \
            "tensor([1.5000], dtype=minflow.float32)"
    finally:
        minflow.set_default_dtype(minflow.float32)


# -- Tensor surface -------------------------------------------------------------------------------
def _m(L):
    return L.tensor([[1., 2.], [3., 4.]])


SURFACE = {
    "shape": lambda L: _m(L).shape,
    "size()": lambda L: _m(L).size(),
    "size(-1)": lambda L: _m(L).size(-1),
    "size(2) raises": lambda L: _m(L).size(2),
    "ndim": lambda L: _m(L).ndim,
    "dim": lambda L: _m(L).dim(),
    "numel": lambda L: _m(L).numel(),
    "nelement": lambda L: _m(L).nelement(),
    "len": lambda L: len(_m(L)),
    "len 0-d raises": lambda L: len(L.tensor(1.)), "Size slice": lambda L: _m(L).shape[1:],
    "Size + tuple": lambda L: _m(L).shape + (3,), "Size numel": lambda L: _m(L).shape.numel(),
    "dtype": lambda L: _m(L).dtype,
    "is_floating_point": lambda L: L.tensor([1]).is_floating_point(),
    "item": lambda L: L.tensor([[2.5]]).item(), "item int": lambda L: L.tensor(3).item(),
    "item bool": lambda L: L.tensor(True).item(), "item of many raises": lambda L: _m(L).item(),
    "tolist": lambda L: _m(L).tolist(), "tolist 0-d": lambda L: L.tensor(2).tolist(),
    "float()": lambda L: float(L.tensor([2.5])), "int()": lambda L: int(L.tensor(-2.7)),
    "bool()": lambda L: bool(L.tensor([0.])), "bool of many raises": lambda L: bool(_m(L)),
    "index": lambda L: [1, 2, 3][L.tensor(1)], "index float raises": lambda L: [1, 2][L.tensor(1.)],
    "format": lambda L: f"{L.tensor(2.5):.2f}", "element_size": lambda L: _m(L).element_size(),
    "itemsize": lambda L: _m(L).itemsize, "nbytes": lambda L: _m(L).nbytes,
    "numpy dtype": lambda L: str(_m(L).numpy().dtype),
    "numpy of requires_grad raises": lambda L: L.ones(1, requires_grad=True).numpy(),
    "to float64": lambda L: _m(L).to(L.float64), "to device str": lambda L: _m(L).to("cpu"),
    "to other tensor": lambda L: _m(L).to(L.tensor([1], dtype=L.int32)),
    "to device, dtype": lambda L: _m(L).to("cpu", L.int64),
    "to dtype=": lambda L: _m(L).to(dtype=L.int64),
    "to float is float64": lambda L: _m(L).to(float),
    "to int is int64": lambda L: _m(L).to(int),
    "to same dtype is self": lambda L: (lambda t: t.to(L.float32) is t)(_m(L)),
    "to copy=True": lambda L: (lambda t: t.to(L.float32, copy=True) is t)(_m(L)),
    "to bad device raises": lambda L: _m(L).to("gpu"),
    "cpu() is self": lambda L: (lambda t: t.cpu() is t)(_m(L)),
    "float": lambda L: L.tensor([1]).float(),
    "double": lambda L: _m(L).double(),
    "long": lambda L: _m(L).long(),
    "int": lambda L: _m(L).int(), "bool": lambda L: _m(L).bool(), "half": lambda L: _m(L).half(),
    "type()": lambda L: _m(L).type().split(".")[1],
    "type() long": lambda L: L.tensor([1]).type().split(".")[1],
    "type(dtype)": lambda L: _m(L).type(L.int64),
    "contiguous is self": lambda L: (lambda t: t.contiguous() is t)(_m(L)),
    "T is not contiguous": lambda L: _m(L).T.is_contiguous(),
    "T contiguous": lambda L: _m(L).T.contiguous(),
    "clone is a copy": lambda L: (lambda t: (t.clone().add_(1), t)[1])(_m(L)),
    "detach shares storage": lambda L: (lambda t: (t.detach().add_(1), t)[1])(L.ones(2)),
    "x == None": lambda L: _m(L) == None, "x != None": lambda L: _m(L) != None,  # noqa: E711
    "x == 'a'": lambda L: _m(L) == "a", "rmatmul list": lambda L: _m(L).__rmatmul__(L.ones(1, 2)),
    "iter rows": lambda L: [row.tolist() for row in L.tensor([[1, 2], [3, 4]])],
    "requires_grad_ on int raises": lambda L: L.tensor([1]).requires_grad_(),
    "requires_grad_(False) on non-leaf raises":
        lambda L: (L.ones(1, requires_grad=True) * 2).requires_grad_(False),
    "is_leaf after op":
        lambda L: ((L.ones(1, requires_grad=True) * 2).is_leaf, (_m(L) * 2).is_leaf),
    "retain_grad without grad raises": lambda L: L.ones(2).retain_grad(),
    "register_hook without grad raises": lambda L: L.ones(2).register_hook(lambda g: g),
    "grad = wrong shape raises":
        lambda L: setattr(L.zeros(2, requires_grad=True), "grad", L.ones(3)),
    "grad = int raises": lambda L: setattr(L.zeros(2, requires_grad=True), "grad", 3),
    "leaf in-place raises": lambda L: L.ones(2, requires_grad=True).add_(1),
    "add_ float into int raises": lambda L: L.zeros(2, dtype=L.int64).add_(1.5),
    "div_ int raises": lambda L: L.ones(2, dtype=L.int64).div_(2),
    "numel()": lambda L: L.numel(_m(L)),
    "is_floating_point()": lambda L: L.is_floating_point(_m(L)),
    "can_cast": lambda L: (L.can_cast(L.float32, L.int32), L.can_cast(L.int32, L.float16)),
    "promote_types": lambda L: L.promote_types(L.int32, L.float16),
    "result_type": lambda L: L.result_type(L.tensor([1], dtype=L.int32), 2.5),
}


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_tensor_surface(name):
    check(SURFACE[name], 1e-6, name)


# -- autograd ----------------------------------------------------------------------------
def _hooked(L, x, y):
    z = x * 2
    z.register_hook(lambda g: g * 10)
    z.retain_grad()
    (z * 3).sum().backward()
    return x.grad, z.grad


def _version_error(L, shared):
    x = L.ones(3, requires_grad=True)
    a = x * 2
    y = a * a if shared else a + a          # mul saves a; add saves nothing
    a.mul_(3)
    y.sum().backward()
    return x.grad


def _twice(L, x, retain):
    z = x.exp().sum()
    return L.autograd.grad(z, x, retain_graph=retain), L.autograd.grad(z, x)


def _backward_twice(L, x, retain):
    z = x.exp().sum()
    z.backward(retain_graph=retain)
    z.backward()
    return x.grad


def _then(*steps):
    """The value of the last step, after running the others (for one-line table cases)."""
    return steps[-1]


AUTOGRAD = {   # each case gets two fresh leaves x = [1, 2], y = [3, 4]
    "grad": lambda L, x, y: L.autograd.grad((x * y).sum(), [x, y]),
    "grad unused raises": lambda L, x, y: L.autograd.grad((x * 2).sum(), [x, y]),
    "grad allow_unused": lambda L, x, y: L.autograd.grad((x * 2).sum(), [x, y],
                                                         allow_unused=True),
    "grad grad_outputs": lambda L, x, y: L.autograd.grad(x * 2, x, L.tensor([1., 3.])),
    "grad non-scalar raises": lambda L, x, y: L.autograd.grad(x * 2, x),
    "grad leaves .grad alone": lambda L, x, y: _then(L.autograd.grad(x.sum(), x), x.grad),
    "grad create_graph": lambda L, x, y: L.autograd.grad(
        L.autograd.grad((x ** 3).sum(), x, create_graph=True)[0].sum(), x),
    "grad twice raises": lambda L, x, y: _twice(L, x, False),
    "grad retain_graph": lambda L, x, y: _twice(L, x, True),
    "grad of non-leaf": lambda L, x, y: (lambda z: L.autograd.grad((z * 3).sum(), z))(x * 2),
    "grad of several outputs": lambda L, x, y: L.autograd.grad([(x * 2).sum(), x.sum()], x),
    "grad of no-grad output raises": lambda L, x, y: L.autograd.grad(L.ones(1).sum(), x),
    "backward twice raises": lambda L, x, y: _backward_twice(L, x, False),
    "backward retain_graph": lambda L, x, y: _backward_twice(L, x, True),
    "backward non-scalar raises": lambda L, x, y: (x * 2).backward(),
    "backward gradient=": lambda L, x, y: _then((x * 2).backward(L.tensor([1., 2.])), x.grad),
    "backward wrong gradient shape raises": lambda L, x, y: (x * 2).backward(L.ones(3)),
    "backward create_graph": lambda L, x, y: _then(
        (x ** 3).sum().backward(create_graph=True), x.grad),
    "backward inputs=": lambda L, x, y: _then((x * y).sum().backward(inputs=[x]),
                                              (x.grad, y.grad)),
    "grads accumulate": lambda L, x, y: _then(x.sum().backward(), (x * 3).sum().backward(),
                                              x.grad),
    "grad dtype follows leaf": lambda L, x, y: _then(
        (x.double() * 2).sum().backward(), x.grad),
    "hooks and retain_grad": _hooked,
    "leaf hook removed": lambda L, x, y: _then(x.register_hook(lambda g: g * 10).remove(),
                                               (x * 2).sum().backward(), x.grad),
    "in-place on saved tensor raises": lambda L, x, y: _version_error(L, True),
    "in-place on unsaved tensor is fine": lambda L, x, y: _version_error(L, False),
    "ops under no_grad": lambda L, x, y: L.no_grad()(lambda: x * 2)().requires_grad,
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD))
def test_autograd(name):
    def case(L):
        leaves = (L.tensor([1., 2.], requires_grad=True), L.tensor([3., 4.], requires_grad=True))
        return AUTOGRAD[name](L, *leaves)
    check(case, 1e-6, name)


def _grad_mode_trace(L):
    out = []
    with L.no_grad():
        out.append(L.is_grad_enabled())
        with L.enable_grad():
            out.append(L.is_grad_enabled())
    out.append(L.is_grad_enabled())

    @L.no_grad
    def bare():
        return L.is_grad_enabled()

    @L.no_grad()
    def gen():
        yield L.is_grad_enabled()
        yield L.is_grad_enabled()

    @L.set_grad_enabled(False)
    def decorated():
        return L.is_grad_enabled()

    out += [bare(), decorated(), L.is_grad_enabled()]
    steps = gen()
    out += [next(steps), L.is_grad_enabled(), next(steps)]   # only the generator's steps
    with L.set_grad_enabled(False):
        with L.set_grad_enabled(True):
            out.append(L.is_grad_enabled())
        out.append(L.is_grad_enabled())
    L.set_grad_enabled(False)
    out.append(L.is_grad_enabled())
    L.set_grad_enabled(True)
    with L.inference_mode():
        out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))
    try:
        with L.no_grad():
            raise KeyError
    except KeyError:
        out.append(L.is_grad_enabled())
    return out, bare.__name__


def test_grad_mode_context_managers_and_decorators():
    assert _grad_mode_trace(minflow) == _grad_mode_trace(torch)


def _define_functions(L):
    """A Function with a non-tensor argument, one with an index output, one returning its
    input unchanged."""
    class Cube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            ctx.save_for_backward(x)
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 3 * x ** 2 * ctx.scale if ctx.needs_input_grad[0] else None, None

    class SortLike(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            index = L.tensor([1, 0])
            ctx.mark_non_differentiable(index)
            return x * 2, index

        @staticmethod
        def backward(ctx, grad_out, grad_index):
            return grad_out * 2

    class Identity(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * 5

    return Cube, SortLike, Identity


def _custom_functions(L):
    Cube, SortLike, Identity = _define_functions(L)
    x = L.tensor([1., -2.], requires_grad=True)
    y = Cube.apply(x, 0.5)
    g, = L.autograd.grad(y.sum(), x, create_graph=True)
    gg, = L.autograd.grad(g.sum(), x)
    doubled, index = SortLike.apply(x)
    doubled.sum().backward()
    z = Identity.apply(x)
    z.sum().backward()
    return (y, g, gg, index.requires_grad, x.is_leaf, z.is_leaf, x.grad,
            y.grad_fn.name().startswith("CubeBackward"))


def test_custom_function():
    ours, theirs = _custom_functions(minflow), _custom_functions(torch)
    assert_same(ours, theirs)


def test_gradcheck_catches_wrong_backward_and_handles_strided_inputs():
    class Wrong(minflow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * 3

    x = minflow.tensor(NORMAL, dtype=minflow.float64, requires_grad=True)
    assert not minflow.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
    with pytest.raises(minflow.autograd.GradcheckError, match="input 0"):
        minflow.autograd.gradcheck(Wrong.apply, (x,))
    strided = minflow.from_numpy(np.random.default_rng(3).standard_normal((3, 2)).T)
    strided.requires_grad_()
    assert not strided.is_contiguous()
    assert minflow.autograd.gradcheck(lambda t: (t * t).sum(1), (strided,), nondet_tol=0.0)


def test_detect_anomaly_names_the_forward_op():
    x = minflow.tensor([0., 1.], requires_grad=True)
    with minflow.autograd.detect_anomaly():
        y = x.sqrt() * 0
        with pytest.raises(RuntimeError, match="SqrtBackward0.*'sqrt' was created at "
                                               ".*test_tensor_parity"):
            y.sum().backward()
