"""Saved eval graphs: saved by nn.Graph.save, loaded by minflow.graph.load in a process
that has only minflow (no model code), outputs equal to the eager model's; attrs missing
from a file take the op's default; bad files fail naming the file and the problem."""
import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import minflow
import minflow.graph as mg
import minflow.library as L
from minflow import nn
from minflow.serialization import SerializationError

REPO = str(pathlib.Path(minflow.__file__).resolve().parent.parent)

# the other process imports minflow alone: the graph file, the inputs and the outputs
# travel as files
LOAD_AND_RUN = """
import sys, minflow
graph = minflow.graph.load(sys.argv[1])
x = minflow.load(sys.argv[2])
minflow.save(graph(x), sys.argv[3])
"""


class Eval(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def _mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.3), nn.Linear(16, 3),
                         nn.LogSoftmax(1))


def _cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5))


def _trained_cnn():
    """A CNN whose BatchNorm running stats are not their initial values."""
    model = _cnn()
    with minflow.no_grad():
        for _ in range(3):
            model(minflow.randn(8, 2, 6, 6) * 2 + 1)
    return model.eval()


def _run_elsewhere(tmp_path, graph_path, x):
    minflow.save(x, tmp_path / "x.mf")
    env = {**os.environ, "PYTHONPATH": REPO}
    done = subprocess.run([sys.executable, "-c", LOAD_AND_RUN, str(graph_path),
                           str(tmp_path / "x.mf"), str(tmp_path / "y.mf")],
                          env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return minflow.load(tmp_path / "y.mf")


def _char_lm():
    """The Transformer of examples/train_char_lm.py, small."""
    spec = importlib.util.spec_from_file_location(
        "train_char_lm", pathlib.Path(REPO) / "examples" / "train_char_lm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CharTransformer(vocab=11, context=8, d_model=16, nhead=2)


@pytest.mark.parametrize("make, shape", [(_mlp, (5, 6)), (_trained_cnn, (3, 2, 6, 6)),
                                         (_char_lm, (3, 8))],
                         ids=["mlp", "cnn_batchnorm", "char_lm_transformer"])
def test_loaded_in_another_process_equals_the_eager_model(tmp_path, make, shape):
    model = make().eval()
    graph = Eval(model)
    x = minflow.randn(*shape) if make is not _char_lm else minflow.randint(0, 11, shape)
    graph(x)
    graph.save(tmp_path / "model.mfg")
    got = _run_elsewhere(tmp_path, tmp_path / "model.mfg", x)
    with minflow.no_grad():
        expected = model(x)
    assert got.shape == expected.shape and got.dtype is expected.dtype
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def _saved(tmp_path, model=None, x=None):
    model = model or _trained_cnn()
    x = minflow.randn(3, 2, 6, 6) if x is None else x
    graph = Eval(model)
    graph(x)
    path = tmp_path / "model.mfg"
    graph.save(path)
    return path, model, x


def test_file_holds_ops_attrs_shapes_and_named_weights(tmp_path):
    path, model, _ = _saved(tmp_path)
    root = minflow.load(path)
    assert root["format"] == "minflow.graph" and root["version"] == mg.export.VERSION
    conv = root["nodes"][0]
    assert conv["op"] == "conv2d" and conv["attrs"]["padding"] == (1, 1, 1, 1)
    assert conv["outputs"] == [[[3, 4, 6, 6], minflow.float32]]
    names = [c["name"] for c in root["constants"]]
    assert "model.1.running_mean" in names and "model.0.weight" in names
    weight = root["constants"][names.index("model.0.weight")]["tensor"]
    assert np.array_equal(weight.numpy(), model[0].weight.detach().numpy())


def test_nested_inputs_and_outputs_keep_their_structure(tmp_path):
    class Nested(nn.Graph):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def build(self, pair, extra):
            a, b = pair
            return {"sum": self.fc(a + b), "parts": [a * 2, None]}, extra["k"].exp()

    graph = Nested()
    a, b, k = minflow.randn(4, 3), minflow.randn(4, 3), minflow.randn(2)
    expected = graph((a, b), {"k": k})
    graph.save(tmp_path / "g.mfg")
    loaded = mg.load(tmp_path / "g.mfg")
    got = loaded((a, b), {"k": k})
    assert set(got[0]) == {"sum", "parts"} and got[0]["parts"][1] is None
    np.testing.assert_allclose(got[0]["sum"].numpy(), expected[0]["sum"].numpy())
    np.testing.assert_allclose(got[1].numpy(), expected[1].numpy())
    with pytest.raises(TypeError, match=r"expected inputs \(\(tensor, tensor\), \{'k': tensor\}"
                                        r"\), got \(\[tensor, tensor\]"):
        loaded([a, b], {"k": k})
    with pytest.raises(RuntimeError, match=r"expected float32\[4, 3\] .* got float32\[5, 3\]"):
        loaded((minflow.randn(5, 3), b), {"k": k})


def test_basic_indexing_attrs_round_trip(tmp_path):
    g = mg.trace_function(lambda x: x[1:, None, ..., ::2].sum(-1, keepdim=True),
                          minflow.ones(3, 4, 5))
    mg.save(g, tmp_path / "g.mfg")             # a traced graph is compiled first
    x = minflow.randn(3, 4, 5)
    (got,) = mg.load(tmp_path / "g.mfg", map_location="cpu")(x)
    np.testing.assert_allclose(got.numpy(), x[1:, None, ..., ::2].sum(-1, keepdim=True).numpy())


def test_batch_norm_in_training_mode_updates_the_loaded_graph_s_own_buffers(tmp_path):
    model = _cnn()
    graph = Eval(model)                # no optimizer: forward only, running stats written
    x = minflow.randn(3, 2, 6, 6)
    graph(x)
    graph.save(tmp_path / "g.mfg")
    loaded = mg.load(tmp_path / "g.mfg")
    stats = {v.name: v.tensor for v in loaded.graph.params()}
    saved = stats["model.1.running_mean"].clone()
    assert np.array_equal(saved.numpy(), model[1].running_mean.numpy())
    loaded(x)                          # the file's copy of the stats moves one step
    graph(x)                           # and the module's the same step
    assert not np.allclose(saved.numpy(), model[1].running_mean.numpy())
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(stats[f"model.1.{name}"].numpy(),
                                   getattr(model[1], name).numpy(), rtol=1e-6)


# -- files written by other versions -----------------------------------------------------

def _edit(path, change):
    """Rewrite a saved graph's metadata through minflow.load / minflow.save."""
    root = minflow.load(path)
    change(root)
    minflow.save(root, path)


def _node(root, op):
    return next(n for n in root["nodes"] if n["op"] == op)


def test_an_attr_missing_from_an_older_file_takes_the_op_s_default(tmp_path):
    path, model, x = _saved(tmp_path)
    _edit(path, lambda root: _node(root, "max_pool2d")["attrs"].pop("ceil_mode"))
    loaded = mg.load(path)
    pool = next(n for n in loaded.graph.nodes if n.op == "max_pool2d")
    assert pool.attrs["ceil_mode"] is False
    with minflow.no_grad():
        np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)


def _load_error(path):
    with pytest.raises(SerializationError) as info:
        mg.load(path)
    message = str(info.value)
    assert message.startswith(f"minflow.graph.load: {str(path)!r} "), message
    return message


def test_an_attr_with_no_default_missing_is_an_error(tmp_path):
    path, _, _ = _saved(tmp_path)
    _edit(path, lambda root: _node(root, "conv2d")["attrs"].pop("groups"))
    assert "node 0 ('conv2d') lacks attr 'groups', which op 'conv2d' requires (it has no " \
        "default)" in _load_error(path)


def test_an_unknown_op_or_attr_is_an_error(tmp_path):
    path, _, _ = _saved(tmp_path)
    _edit(path, lambda root: _node(root, "relu").update(op="relu_v9"))
    message = _load_error(path)
    assert "uses op 'relu_v9' (node 2), which this minflow does not define" in message
    _edit(path, lambda root: [_node(root, "relu_v9").update(op="relu"),
                              _node(root, "relu")["attrs"].update(inplace=True)])
    assert "has attrs ['inplace'] that op 'relu' does not declare" in _load_error(path)
    _edit(path, lambda root: _node(root, "relu")["attrs"].clear() or
          _node(root, "linear")["attrs"].update(bias=3))
    assert "node 5 ('linear') has attrs ['bias']" in _load_error(path)


def test_a_bad_attr_value_is_an_error(tmp_path):
    path, _, _ = _saved(tmp_path)
    _edit(path, lambda root: _node(root, "batch_norm")["attrs"].update(eps="small"))
    assert "('batch_norm') has a bad attr: batch_norm: attr 'eps' expected float" \
        in _load_error(path)


def test_a_newer_format_version_is_an_error(tmp_path):
    path, _, _ = _saved(tmp_path)
    _edit(path, lambda root: root.update(version=mg.export.VERSION + 1))
    message = _load_error(path)
    assert f"graph format version {mg.export.VERSION + 1}, newer than this minflow" in message


def test_truncated_corrupt_and_foreign_files_are_errors(tmp_path):
    path, _, _ = _saved(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-100])
    assert "is truncated" in _load_error(path)
    corrupt = bytearray(data)
    corrupt[-50] ^= 0xFF
    path.write_bytes(bytes(corrupt))
    assert "checksum does not match" in _load_error(path)
    path.write_bytes(b"digraph { a -> b }")
    assert "is not a minflow checkpoint" in _load_error(path)
    minflow.save(_cnn().state_dict(), path)
    assert "is a minflow checkpoint but not a saved graph" in _load_error(path)
    path.write_bytes(data)
    _edit(path, lambda root: root["nodes"][0]["inputs"].__setitem__(0, {"value": 999}))
    assert "is corrupt: malformed graph metadata" in _load_error(path)


# -- what cannot be saved ----------------------------------------------------------------

def test_training_and_uncompiled_graphs_cannot_be_saved(tmp_path):
    class Train(nn.Graph):
        def __init__(self, model):
            super().__init__()
            self.model = model
            self.add_optimizer(minflow.optim.SGD(model.parameters(), lr=0.1))

        def build(self, x):
            loss = self.model(x).sum()
            loss.backward()
            return loss

    model = nn.Linear(3, 1)
    with pytest.raises(RuntimeError, match=r"Eval.save: the graph is not compiled yet"):
        Eval(model).save(tmp_path / "g.mfg")
    train = Train(model)
    train(minflow.randn(2, 3))
    with pytest.raises(ValueError, match=r"Train.save: a training graph .* cannot be saved"):
        train.save(tmp_path / "g.mfg")
    w = minflow.ones(3, requires_grad=True)
    with mg.trace() as g:
        (w * 2).sum().backward()
    with pytest.raises(ValueError, match=r"the graph has backward ops; only eval graphs"):
        mg.save(mg.compile(g), tmp_path / "g.mfg")
    assert not (tmp_path / "g.mfg").exists()


def test_a_generator_attr_cannot_be_saved(tmp_path):
    gen = minflow.Generator().manual_seed(1)
    g = mg.trace_function(lambda x: x + minflow.rand(3, generator=gen), minflow.ones(3))
    with pytest.raises(TypeError, match=r"node 0 \(uniform\) attr 'generator' is a Generator"):
        mg.save(mg.compile(g), tmp_path / "g.mfg")


def _define_shift(with_scale):
    """A user op; the second version adds an attr with a default, as a newer minflow may."""
    attrs = [L.Attr("by", "float", 1.0)] + ([L.Attr("scale", "float", 1.0)] if with_scale
                                            else [])
    op = L.define_op("exporttest.shift", ["input"], attrs=attrs,
                     infer=lambda input, **_: (input.shape, input.dtype))
    if with_scale:
        kernel = lambda xp, input, by, scale: input * input.dtype.type(scale) + by  # noqa
    else:
        kernel = lambda xp, input, by: input + input.dtype.type(by)  # noqa: E731
    L.register_kernel("exporttest.shift", ("cpu",), L.FLOATS)(kernel)
    return L.bind_function(op)


def test_a_file_from_before_an_op_gained_an_attr_loads_and_an_unloaded_op_fails(tmp_path):
    shift = _define_shift(with_scale=False)
    try:
        g = mg.trace_function(lambda x: shift(x.exp(), by=0.5), minflow.ones(3))
        mg.save(mg.compile(g), tmp_path / "g.mfg")
        assert "scale" not in _node(minflow.load(tmp_path / "g.mfg"), "exporttest.shift")["attrs"]
        shift = _define_shift(with_scale=True)        # the op as a later version defines it
        loaded = mg.load(tmp_path / "g.mfg")
        assert loaded.graph.nodes[1].attrs == {"by": 0.5, "scale": 1.0}
        x = minflow.randn(3)
        np.testing.assert_allclose(loaded(x)[0].numpy(), x.exp().numpy() + 0.5, rtol=1e-6)
    finally:
        L.unload("exporttest")
    message = _load_error(tmp_path / "g.mfg")
    assert "uses op 'exporttest.shift' (node 1), which this minflow does not define; import " \
           "or load the library that defines it" in message


def test_saved_on_a_device_loads_there_or_mapped_to_the_cpu(tmp_path, device):
    model = _trained_cnn().to(device)
    graph = Eval(model)
    x = minflow.randn(3, 2, 6, 6)
    graph(x.to(device))
    graph.save(tmp_path / "g.mfg")
    with minflow.no_grad():
        expected = model(x.to(device)).cpu().numpy()
    here = mg.load(tmp_path / "g.mfg")
    got = here(x.to(device))
    assert got.device.type == minflow.device(device).type
    np.testing.assert_allclose(got.cpu().numpy(), expected, rtol=1e-5, atol=1e-6)
    on_cpu = mg.load(tmp_path / "g.mfg", map_location="cpu")
    assert {v.device.type for v in on_cpu.graph.values} == {"cpu"}
    np.testing.assert_allclose(on_cpu(x).numpy(), expected, rtol=1e-5, atol=1e-6)
