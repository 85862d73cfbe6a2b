"""Module mechanics: registration, traversal, state_dict, modes, to(), hooks, containers."""
import copy
import pickle

import numpy as np
import pytest

import minflow
import minflow.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.scale = nn.Parameter(minflow.ones(4))
        self.register_buffer("steps", minflow.tensor(0))
        self.register_buffer("cache", minflow.zeros(2), persistent=False)
        self.block = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))

    def forward(self, x):
        return self.block(self.fc(x) * self.scale)


def test_registration_and_traversal_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc.weight", "fc.bias", "block.0.weight", "block.0.bias", "block.1.weight",
        "block.1.bias"]
    assert [n for n, _ in net.named_buffers()] == [
        "steps", "cache", "block.1.running_mean", "block.1.running_var",
        "block.1.num_batches_tracked"]
    assert [n for n, _ in net.named_children()] == ["fc", "block"]
    assert [n for n, _ in net.named_modules()] == ["", "fc", "block", "block.0", "block.1"]
    assert len(list(net.modules())) == 5 and list(net.children())[0] is net.fc
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert net.get_submodule("block.1") is net.block[1]


def test_shared_parameters_and_modules_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_setattr_getattr_delattr():
    net = Net()
    assert "scale" in net._parameters and "scale" not in net.__dict__
    net.scale = None                                    # a parameter may be set to None
    assert net.scale is None and "scale" in net._parameters
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'fc_w'"):
        net.fc_w = nn.Parameter(minflow.ones(1))
        net.fc_w = minflow.ones(1)
    net.steps = minflow.tensor(5)                       # buffers are reassignable
    assert net._buffers["steps"].item() == 5
    with pytest.raises(TypeError, match="as buffer 'steps'"):
        net.steps = 3
    net.fc = nn.Identity()                              # swapping a child keeps its slot
    assert list(net._modules) == ["fc", "block"]
    del net.block
    assert "block" not in net._modules and not hasattr(net, "block")
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        net.nope
    net.plain = 3
    assert net.plain == 3 and "plain" in net.__dict__
    assert "fc" in dir(net)


def test_reassigning_an_attribute_changes_its_kind():
    m = nn.Module()
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(minflow.ones(1))
    assert "x" not in m._modules and "x" in m._parameters


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty string"):
        m.register_buffer("", None)
    m.attr = 1
    with pytest.raises(KeyError, match="attribute 'attr' already exists"):
        m.add_module("attr", nn.ReLU())
    with pytest.raises(TypeError, match="not a Module subclass"):
        m.add_module("x", 3)
    with pytest.raises(TypeError, match=r"minflow.nn.Parameter or None required"):
        m.register_parameter("w", minflow.ones(2))
    with pytest.raises(ValueError, match="non-leaf"):
        m.register_parameter("w", _non_leaf_param(minflow.ones(2, requires_grad=True)))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(minflow.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def _non_leaf_param(w):
    """A Parameter carrying a grad_fn (what a computed tensor wrapped by mistake has)."""
    p = nn.Parameter(minflow.ones(2))
    p._grad_fn = (w * 2).grad_fn
    return p


def test_register_module_is_add_module():
    m = nn.Module()
    m.register_module("act", nn.ReLU())
    assert isinstance(m.act, nn.ReLU)


def test_forward_missing_raises():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required'):
        nn.Module()(1)


def test_state_dict_keys_values_and_detach():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["scale", "steps", "fc.weight", "fc.bias", "block.0.weight",
                        "block.0.bias", "block.1.weight", "block.1.bias",
                        "block.1.running_mean", "block.1.running_var",
                        "block.1.num_batches_tracked"]
    assert not sd["fc.weight"].requires_grad and type(sd["fc.weight"]) is minflow.Tensor
    with minflow.no_grad():
        sd["fc.bias"].fill_(7.0)                        # values share storage, as in torch
    assert net.fc.bias.tolist() == [7.0] * 4
    assert net.state_dict(keep_vars=True)["fc.weight"] is net.fc.weight
    assert net.state_dict(prefix="model.").popitem(last=False)[0] == "model.scale"
    assert sd._metadata["block.1"] == {"version": 2}


def test_load_state_dict_copies_in_place_and_keeps_parameters():
    src, dst = Net(), Net()
    weight = dst.fc.weight
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    assert dst.fc.weight is weight and weight.requires_grad
    np.testing.assert_array_equal(weight.detach().numpy(), src.fc.weight.detach().numpy())
    assert dst.fc.weight.grad_fn is None
    with minflow.no_grad():
        src.fc.weight.fill_(1.0)                        # a copy, not shared storage
    assert not np.all(dst.fc.weight.detach().numpy() == 1.0)


def test_load_state_dict_strict_errors_name_every_key():
    net = Net()
    sd = net.state_dict()
    del sd["fc.bias"]
    sd["extra"] = minflow.ones(1)
    sd["block.0.weight"] = minflow.ones(3, 3)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Net:\n'
        '\tMissing key(s) in state_dict: "fc.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". \n'
        '\tsize mismatch for block.0.weight: copying a param with shape '
        'minflow.Size([3, 3]) from checkpoint, the shape in current model is '
        'minflow.Size([4, 4]).')


def test_load_state_dict_non_strict_returns_keys():
    net = Net()
    sd = net.state_dict()
    del sd["fc.bias"]
    sd["block.9.weight"] = minflow.ones(1)
    missing, unexpected = net.load_state_dict(sd, strict=False)
    assert missing == ["fc.bias"] and unexpected == ["block.9.weight"]
    with pytest.raises(RuntimeError, match="expected a minflow Tensor"):
        net.load_state_dict({**net.state_dict(), "scale": [1.0] * 4})
    with pytest.raises(TypeError, match="dict-like"):
        net.load_state_dict([1, 2])


def test_load_state_dict_assign_replaces_parameters():
    net = nn.Linear(2, 2)
    new = minflow.ones(2, 2)
    net.load_state_dict({"weight": new, "bias": minflow.zeros(2)}, assign=True)
    assert isinstance(net.weight, nn.Parameter) and net.weight.requires_grad
    assert net.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_load_keeps_optimizer_style_references_working():
    net = nn.Linear(3, 1)
    params = list(net.parameters())
    net.load_state_dict(nn.Linear(3, 1).state_dict())
    net(minflow.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in params)


def test_train_eval_and_training_flag():
    net = Net()
    assert net.training and net.block[1].training
    assert net.eval() is net and not net.block[1].training
    net.train()
    assert net.block[1].training
    with pytest.raises(ValueError, match="boolean"):
        net.train("no")


def test_zero_grad_and_requires_grad_():
    net = nn.Linear(2, 1)
    net(minflow.ones(1, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert net.weight.grad.tolist() == [[0.0, 0.0]]
    net.zero_grad()
    assert net.weight.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first():
    seen = []
    nn.Sequential(nn.ReLU(), nn.Tanh()).apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["ReLU", "Tanh", "Sequential"]


def test_to_dtype_keeps_parameter_objects_and_integer_buffers():
    net = Net()
    weight = net.fc.weight
    net(minflow.ones(2, 3)).sum().backward()
    assert net.double() is net
    assert net.fc.weight is weight and isinstance(weight, nn.Parameter)
    assert weight.dtype is minflow.float64 and weight.grad.dtype is minflow.float64
    assert weight.requires_grad and weight.is_leaf
    assert net.block[1].running_mean.dtype is minflow.float64
    assert net.block[1].num_batches_tracked.dtype is minflow.int64
    assert net.half().fc.bias.dtype is minflow.float16
    assert net.float().fc.bias.dtype is minflow.float32
    assert net.to(minflow.zeros(1, dtype=minflow.float64)).fc.bias.dtype is minflow.float64
    with pytest.raises(TypeError, match="floating point"):
        net.to(minflow.int64)


def test_to_device(device):
    net = Net().to(device)
    assert net.fc.weight.device.type == device and net.steps.device.type == device
    out = net(minflow.ones(2, 3, device=device))
    assert out.device.type == device
    assert net.cpu().fc.weight.device.type == "cpu"


def test_forward_hooks_and_pre_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = lin.register_forward_hook(lambda m, args, out: calls.append(args[0].sum().item()))
    first = lin.register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
    out = lin(minflow.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy()[0], lin.bias.detach().numpy(), 1e-6)
    assert calls == ["first", 0.0]
    pre.remove()
    post.remove()
    first.remove()
    first.remove()                                     # removing twice is harmless
    lin(minflow.ones(1, 2))
    assert calls == ["first", 0.0]
    with lin.register_forward_pre_hook(lambda m, args: minflow.zeros(1, 2)):
        assert lin(minflow.ones(1, 2)).tolist() == lin.bias.detach()[None].tolist()
    assert not lin._forward_pre_hooks


def test_parameter_is_a_leaf_tensor_sharing_storage():
    data = minflow.ones(2)
    p = nn.Parameter(data)
    assert p.requires_grad and p.is_leaf and isinstance(p, minflow.Tensor)
    with minflow.no_grad():
        p.fill_(3.0)
    assert data.tolist() == [3.0, 3.0]
    assert not nn.Parameter(minflow.ones(1), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert repr(p) == "Parameter containing:\ntensor([3., 3.], requires_grad=True)"
    assert type(p * 1) is minflow.Tensor and type(p.detach()) is minflow.Tensor
    with pytest.raises(TypeError, match="Parameter: expected data to be a minflow Tensor"):
        nn.Parameter([1.0])


def test_deepcopy_and_pickle_round_trip():
    net = Net()
    clone = copy.deepcopy(net)
    assert isinstance(clone.fc.weight, nn.Parameter) and clone.fc.weight is not net.fc.weight
    np.testing.assert_array_equal(clone.fc.weight.detach().numpy(),
                                  net.fc.weight.detach().numpy())
    again = pickle.loads(pickle.dumps(net))
    assert [n for n, _ in again.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert again.fc.weight.requires_grad


def test_sequential_container():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub._modules) == ["1", "2"]
    seq.append(nn.Sigmoid())
    assert list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and seq[1] is c
    seq[2] = nn.Tanh()
    assert isinstance(seq[2], nn.Tanh)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict([("fc", a), ("act", b)]))
    assert named.fc is a and list(named.state_dict()) == ["fc.weight", "fc.bias"]
    assert named(minflow.ones(4, 2)).shape == (4, 3)
    assert len(named + nn.Sequential(c)) == 3


def test_module_list_and_dict():
    layers = nn.ModuleList([nn.Linear(2, 2)])
    layers.append(nn.ReLU()).extend([nn.Tanh()])
    layers += [nn.Sigmoid()]
    layers.insert(0, nn.Identity())
    assert [type(m).__name__ for m in layers] == ["Identity", "Linear", "ReLU", "Tanh",
                                                  "Sigmoid"]
    assert isinstance(layers.pop(), nn.Sigmoid) and len(layers) == 4
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    assert [n for n, _ in layers.named_parameters()] == ["1.weight", "1.bias"]
    heads = nn.ModuleDict({"a": nn.Linear(1, 1)})
    heads["b"] = nn.ReLU()
    heads.update([("c", nn.Tanh())])
    assert list(heads) == ["a", "b", "c"] and "b" in heads and len(heads) == 3
    assert isinstance(heads.pop("b"), nn.ReLU) and list(heads.keys()) == ["a", "c"]
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias"]


def test_parameter_list_and_dict():
    plist = nn.ParameterList([minflow.ones(2), nn.Parameter(minflow.zeros(3))])
    plist.append(minflow.ones(1))
    assert len(plist) == 3 and all(isinstance(p, nn.Parameter) for p in plist)
    assert [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    pdict = nn.ParameterDict({"w": minflow.ones(2)})
    pdict["b"] = minflow.zeros(1)
    assert list(pdict) == ["w", "b"] and isinstance(pdict["b"], nn.Parameter)
    with pytest.raises(RuntimeError, match="should not be called"):
        plist()


def test_full_backward_hooks_see_and_replace_grads():
    lin = nn.Linear(2, 1, bias=False)
    with minflow.no_grad():
        lin.weight.copy_(minflow.tensor([[2.0, -1.0]]))
    seen = []
    lin.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", go[0].tolist())))
    def hook(module, grad_input, grad_output):
        g = grad_input[0]
        seen.append(("hook", None if g is None else g.tolist(), grad_output[0].tolist()))
        return None if g is None else (g * 10,)
    lin.register_full_backward_hook(hook)
    x = minflow.ones(3, 2, requires_grad=True)
    (lin(x) * minflow.tensor([[1.0], [2.0], [3.0]])).sum().backward()
    assert seen == [("pre", [[1.0], [2.0], [3.0]]),
                    ("hook", [[2.0, -1.0], [4.0, -2.0], [6.0, -3.0]], [[1.0], [2.0], [3.0]])]
    assert x.grad.tolist() == [[20.0, -10.0], [40.0, -20.0], [60.0, -30.0]]     # replaced
    # an input that needs no grad: the hook still runs, with grad_input None
    seen.clear()
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs"):
        lin(minflow.ones(1, 2)).sum().backward()
    assert seen == [("pre", [[1.0]]), ("hook", None, [[1.0]])]


def test_forward_hooks_with_kwargs_and_always_call():
    class Scale(nn.Module):
        def forward(self, x, *, factor=1.0):
            if factor < 0:
                raise ValueError("negative")
            return x * factor
    m, calls = Scale(), []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}),
                                with_kwargs=True)
    handle = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(kwargs),
                                     with_kwargs=True, always_call=True)
    assert m(minflow.ones(1), factor=2.0).item() == 3.0 and calls == [{"factor": 3.0}]
    handle.remove()
    failed = nn.Linear(1, 1)
    failed.register_forward_hook(lambda mod, args, out: calls.append(out), always_call=True)
    with pytest.raises(RuntimeError):
        failed(minflow.ones(2))
    assert calls[-1] is None


def test_state_dict_hooks_and_member_lookup():
    seq = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert seq.get_parameter("0.bias") is seq[0].bias
    assert seq.get_buffer("1.running_mean") is seq[1].running_mean
    with pytest.raises(AttributeError, match="has no parameter `scale`"):
        seq.get_parameter("0.scale")
    log = []
    seq.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(prefix))
    seq[0].register_state_dict_post_hook(
        lambda mod, sd, prefix, meta: sd.pop(prefix + "bias"))
    assert list(seq.state_dict(prefix="m.")) == [
        "m.0.weight", "m.1.weight", "m.1.bias", "m.1.running_mean", "m.1.running_var",
        "m.1.num_batches_tracked"] and log == ["m."]
    # a post hook may forgive keys before the strict check
    seq.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    result = seq.load_state_dict({"0.weight": minflow.ones(2, 2)})
    assert repr(result) == "<All keys matched successfully>"


def test_backward_hooks_match_torch_on_a_conv_net():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 1, 5, 5))
    weights = [rng.standard_normal((3, 1, 3, 3)), rng.standard_normal(3),
               rng.standard_normal((2, 27)), rng.standard_normal(2)]

    def run(lib):
        net = lib.nn.Sequential(lib.nn.Conv2d(1, 3, 3), lib.nn.ReLU(), lib.nn.Flatten(),
                                lib.nn.Linear(27, 2)).double()
        with lib.no_grad():
            for p, w in zip(net.parameters(), weights):
                p.copy_(lib.tensor(w))
        seen = []
        net[1].register_full_backward_hook(        # Grad-CAM's hook: the activation's grads
            lambda m, gi, go: seen.append([gi[0].numpy().copy(), go[0].numpy().copy()]))
        net[3].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        inp = lib.tensor(x, requires_grad=True)
        net(inp)[:, 1].sum().backward()
        return seen[0] + [inp.grad.numpy()]
    for ours, theirs in zip(run(minflow), run(torch)):
        np.testing.assert_allclose(ours, theirs, 1e-12)
