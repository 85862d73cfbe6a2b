"""nn.utils.parametrize and nn.utils.parametrizations against torch: values, grads,
state_dict keys, chaining, removal, and a few training steps from the same weights."""
import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.nn.utils import parametrizations as PZ
from minflow.nn.utils import parametrize as P
from _train_graph import TrainGraph

torch = pytest.importorskip("torch")


def to_torch(t):
    return torch.tensor(t.detach().cpu().numpy())


def to_mf(t, device="cpu"):
    return minflow.tensor(t.detach().numpy(), device=device)


def load_from_torch(module, torch_module, device="cpu"):
    module.load_state_dict({k: to_mf(v, device) for k, v in torch_module.state_dict().items()})


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class TorchSymmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


class Transpose(nn.Module):
    def forward(self, X):
        return X.T


class ToDouble(nn.Module):
    def forward(self, X):
        return X.double()


class Split(nn.Module):
    """Parametrized by two tensors: weight = A + B."""

    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X * 0.25, X * 0.75


def test_register_makes_property_keys_and_class():
    m = nn.Linear(3, 3)
    w = m.weight.detach().clone()
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(m) is nn.Linear
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    np.testing.assert_allclose(m.parametrizations.weight.original.detach().numpy(), w.numpy())
    np.testing.assert_allclose(m.weight.detach().numpy(), m.weight.detach().numpy().T)
    assert isinstance(m.parametrizations.weight, P.ParametrizationList)
    assert "ParametrizationList" in repr(m)


def test_right_inverse_runs_on_register_and_on_assignment():
    m = nn.Linear(2, 2)
    w = m.weight.detach().clone().numpy()
    P.register_parametrization(m, "weight", Scale())
    np.testing.assert_allclose(m.parametrizations.weight.original.detach().numpy(), w / 2)
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-6)
    m.weight = minflow.ones(2, 2)
    np.testing.assert_allclose(m.parametrizations.weight.original.detach().numpy(), 0.5)
    np.testing.assert_allclose(m.weight.detach().numpy(), 1.0)


def test_sequence_right_inverse_gives_original0_original1():
    m = nn.Linear(2, 2)
    w = m.weight.detach().clone().numpy()
    P.register_parametrization(m, "weight", Split())
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"]
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-6)
    with pytest.raises(ValueError, match="leave_parametrized=False"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert isinstance(m.weight, nn.Parameter) and type(m) is nn.Linear
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-6)


def test_chained_parametrizations_match_torch():
    tm = torch.nn.Linear(3, 3)
    m = nn.Linear(3, 3)
    load_from_torch(m, tm)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", TorchSymmetric())
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", torch.nn.Tanh())
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", nn.Tanh())
    assert list(m.state_dict()) == list(tm.state_dict())
    assert len(m.parametrizations.weight) == 2
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(), 1e-6)
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    m(minflow.tensor(x)).sum().backward()
    tm(torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(),
                               tm.parametrizations.weight.original.grad.numpy(), 1e-5, 1e-6)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    m = nn.Linear(3, 3)
    original = m.weight.detach().clone().numpy()
    P.register_parametrization(m, "weight", Symmetric())
    value = m.weight.detach().clone().numpy()
    P.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), value if leave else original)
    assert not P.is_parametrized(m)


def test_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    m = P.register_parametrization(nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    with P.cached():
        m.weight, m.weight
    assert len(calls) == 1
    m.weight
    assert len(calls) == 2


def test_errors():
    m = nn.Linear(2, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        P.register_parametrization(m, "nothing", Symmetric())
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m, "weight", Transpose())
    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(m, "weight", ToDouble())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(nn.Linear(2, 2), "weight")
    with pytest.raises(TypeError, match="expected parametrization to be a minflow.nn.Module"):
        P.register_parametrization(nn.Linear(2, 2), "weight", lambda x: x)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim, device):
    tm = torch.nn.Conv2d(3, 4, 3)
    m = nn.Conv2d(3, 4, 3).to(device)
    load_from_torch(m, tm, device)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    PZ.weight_norm(m, dim=dim)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert repr(m) == repr(tm)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[k].cpu().numpy(), v.numpy(), 1e-5, 1e-6)
    x = np.random.RandomState(1).randn(2, 3, 5, 5).astype(np.float32)
    m(minflow.tensor(x, device=device)).square().sum().backward()
    tm(torch.tensor(x)).square().sum().backward()
    for (name, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.numpy(), 1e-4, 1e-5,
                                   err_msg=name)


def test_spectral_norm_matches_torch_in_train_and_eval(device):
    torch.manual_seed(0)
    tm = torch.nn.Linear(5, 4)
    m = nn.Linear(5, 4).to(device)
    load_from_torch(m, tm, device)
    torch.nn.utils.parametrizations.spectral_norm(tm, n_power_iterations=2)
    PZ.spectral_norm(m, n_power_iterations=2)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert repr(m) == repr(tm)
    load_from_torch(m, tm, device)  # same u, v to start the power iteration from
    x = np.random.RandomState(2).randn(3, 5).astype(np.float32)
    for mode in ("train", "eval"):
        getattr(m, mode)(), getattr(tm, mode)()
        for _ in range(2):
            out, tout = m(minflow.tensor(x, device=device)), tm(torch.tensor(x))
            np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().numpy(), 1e-5,
                                       1e-5)
        for k, v in tm.state_dict().items():
            np.testing.assert_allclose(m.state_dict()[k].cpu().numpy(), v.numpy(), 1e-5, 1e-5,
                                       err_msg=f"{mode} {k}")
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.cpu().numpy(),
                               tm.parametrizations.weight.original.grad.numpy(), 1e-4, 1e-5)


def test_spectral_norm_dim_and_errors():
    m = PZ.spectral_norm(nn.ConvTranspose2d(3, 4, 2))
    assert m.parametrizations.weight[0].dim == 1
    with pytest.raises(IndexError, match="Dimension out of range"):
        PZ.spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="no parameter or buffer with name 'w'"):
        PZ.spectral_norm(nn.Linear(2, 2), name="w")


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6)])
@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_matches_torch(shape, orth_map, device):
    tm = torch.nn.Linear(shape[1], shape[0]).double()
    m = nn.Linear(shape[1], shape[0]).double().to(device)
    load_from_torch(m, tm, device)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map)
    PZ.orthogonal(m, orthogonal_map=orth_map)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert repr(m) == repr(tm)
    np.testing.assert_allclose(m.weight.detach().cpu().numpy(), tm.weight.detach().numpy(),
                               1e-8, 1e-8)
    load_from_torch(m, tm, device)  # the base's random completion (non-square) as torch's
    opt = minflow.optim.SGD(m.parameters(), lr=0.1)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    x = np.random.RandomState(3).randn(5, shape[1])
    y = np.random.RandomState(4).randn(5, shape[0])
    losses, tlosses = [], []
    for _ in range(4):
        loss = (m(minflow.tensor(x, device=device)) - minflow.tensor(y, device=device)) \
            .square().mean()
        tloss = (tm(torch.tensor(x)) - torch.tensor(y)).square().mean()
        opt.zero_grad(), topt.zero_grad()
        loss.backward(), tloss.backward()
        opt.step(), topt.step()
        losses.append(loss.item()), tlosses.append(tloss.item())
    np.testing.assert_allclose(losses, tlosses, 1e-9)
    w = m.weight.detach().cpu().numpy()
    small = min(shape)
    gram = w @ w.T if shape[0] == small else w.T @ w
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)


def test_orthogonal_without_trivialization_matches_torch():
    for orth_map in ("householder", "matrix_exp"):
        tm = torch.nn.Linear(3, 5).double()
        m = nn.Linear(3, 5).double()
        load_from_torch(m, tm)
        torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map,
                                                    use_trivialization=False)
        PZ.orthogonal(m, orthogonal_map=orth_map, use_trivialization=False)
        assert list(m.state_dict()) == list(tm.state_dict())
        np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(),
                                   1e-8, 1e-8)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        PZ.orthogonal(nn.Linear(2, 2), name="bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of'):
        PZ.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")


def test_weight_norm_training_matches_torch():
    tm = torch.nn.Linear(4, 3)
    m = nn.Linear(4, 3)
    load_from_torch(m, tm)
    torch.nn.utils.parametrizations.weight_norm(tm)
    PZ.weight_norm(m)
    opt = minflow.optim.Adam(m.parameters(), lr=0.05)
    topt = torch.optim.Adam(tm.parameters(), lr=0.05)
    rs = np.random.RandomState(5)
    x, y = rs.randn(8, 4).astype(np.float32), rs.randn(8, 3).astype(np.float32)
    for _ in range(5):
        loss = (m(minflow.tensor(x)) - minflow.tensor(y)).square().mean()
        tloss = (tm(torch.tensor(x)) - torch.tensor(y)).square().mean()
        opt.zero_grad(), topt.zero_grad()
        loss.backward(), tloss.backward()
        opt.step(), topt.step()
        np.testing.assert_allclose(loss.item(), tloss.item(), 1e-5)


@pytest.mark.parametrize("parametrize", [
    PZ.weight_norm, PZ.spectral_norm, PZ.orthogonal,
    lambda m: PZ.orthogonal(m, orthogonal_map="cayley"),
    lambda m: PZ.orthogonal(m, orthogonal_map="householder"),
    lambda m: P.register_parametrization(m, "weight", Symmetric()),
])
def test_parametrized_layer_trains_the_same_in_nn_graph(parametrize):
    minflow.manual_seed(0)
    eager, compiled = parametrize(nn.Linear(4, 4)), parametrize(nn.Linear(4, 4))
    compiled.load_state_dict(eager.state_dict())
    opt = minflow.optim.SGD(eager.parameters(), lr=0.1)
    graph = TrainGraph(compiled, minflow.optim.SGD(compiled.parameters(), lr=0.1))
    x, y = minflow.randn(8, 4), minflow.randn(8, 4)
    for _ in range(3):
        loss = (eager(x) - y).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        np.testing.assert_allclose(graph(x, y).item(), loss.item(), 1e-5)
    for key, value in eager.state_dict().items():        # spectral_norm's u, v included
        np.testing.assert_allclose(compiled.state_dict()[key].numpy(), value.numpy(), 1e-5,
                                   1e-6, err_msg=key)


def test_weight_norm_loads_a_hook_based_checkpoint_as_torch():
    old = torch.nn.Sequential(torch.nn.Linear(3, 2))
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(old[0])
    state = {k: to_mf(v) for k, v in old.state_dict().items()}
    assert sorted(state) == ["0.bias", "0.weight_g", "0.weight_v"]
    m = nn.Sequential(PZ.weight_norm(nn.Linear(3, 2)))
    m.load_state_dict(state)
    np.testing.assert_allclose(m[0].weight.detach().numpy(), old[0].weight.detach().numpy(),
                               1e-6)


class Batched(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.weight = nn.Parameter(minflow.randn(*shape, dtype=minflow.float64))


class TorchBatched(torch.nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = torch.nn.Parameter(weight)


@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5, 2), (2, 2, 5)])
@pytest.mark.parametrize("orth_map, trivialize", [
    ("matrix_exp", True), ("cayley", True), ("householder", True), ("householder", False)])
def test_orthogonal_on_batches_of_matrices_matches_torch(shape, orth_map, trivialize):
    m = Batched(shape)
    tm = TorchBatched(to_torch(m.weight))
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map,
                                                use_trivialization=trivialize)
    PZ.orthogonal(m, orthogonal_map=orth_map, use_trivialization=trivialize)
    load_from_torch(m, tm)
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(),
                               1e-10, 1e-12)
    m.weight.sum().backward()
    tm.weight.sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(),
                               tm.parametrizations.weight.original.grad.numpy(), 1e-8, 1e-10)


def test_spectral_norm_training_matches_torch():
    torch.manual_seed(1)
    tm = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Conv2d(2, 3, 3))
    m = PZ.spectral_norm(nn.Conv2d(2, 3, 3))
    load_from_torch(m, tm)           # weights and the power iteration's u, v
    opt = minflow.optim.SGD(m.parameters(), lr=0.2, momentum=0.9)
    topt = torch.optim.SGD(tm.parameters(), lr=0.2, momentum=0.9)
    rs = np.random.RandomState(7)
    x, y = rs.randn(4, 2, 5, 5).astype(np.float32), rs.randn(4, 3, 3, 3).astype(np.float32)
    for _ in range(5):
        loss = (m(minflow.tensor(x)) - minflow.tensor(y)).square().mean()
        tloss = (tm(torch.tensor(x)) - torch.tensor(y)).square().mean()
        opt.zero_grad(), topt.zero_grad()
        loss.backward(), tloss.backward()
        opt.step(), topt.step()
        np.testing.assert_allclose(loss.item(), tloss.item(), 1e-5)
