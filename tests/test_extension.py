"""minflow.library: user ops defined, loaded, reloaded and unloaded; clashes name both
origins; backward_spec serves eager and graph gradients; the canonical example runs."""
import importlib.util
import pathlib
import sys
import textwrap

import numpy as np
import pytest

import minflow
import minflow.graph as mg
import minflow.library as L
from minflow.autograd import gradcheck, gradgradcheck

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _same(input, **attrs):
    return input.shape, input.dtype


@pytest.fixture
def ns():
    """A fresh namespace, unloaded after the test."""
    yield "ext"
    if any(n.startswith("ext.") for n in L._RECORDS):
        L.unload("ext")


def _define_scale(name="ext.scale", attrs=None):
    op = L.define_op(name, ["input"], infer=_same,
                     attrs=attrs or [L.Attr("factor", "float", 2.0)])
    L.register_kernel(name, ("cpu", "cuda"), L.FLOATS)(
        lambda xp, input, **a: input * input.dtype.type(a.get("factor", 2.0)))
    return op


def test_define_bind_and_call(ns):
    op = _define_scale()
    fn = L.bind_function(op, method="ext_scale")
    x = minflow.tensor([1.0, -2.0])
    assert minflow.ops.ext.scale(x, 3.0).tolist() == [3.0, -6.0]
    assert x.ext_scale(factor=0.5).tolist() == [0.5, -1.0]
    assert fn is minflow.ops.ext.scale and fn.__doc__ == "User op ext.scale."
    assert L.origin_of("ext.scale").startswith(__file__)
    import minflow.ops.ext as module     # a real module in sys.modules
    assert module.scale is fn
    with pytest.raises(TypeError, match="ext.scale: attr 'factor' expected float"):
        fn(x, "big")


def test_clash_with_a_builtin_names_both_origins():
    with pytest.raises(ValueError, match=r"'exp' is already defined by minflow.ops.elementwise; "
                                         r"defined again by .*test_extension.py:\d+; put user "
                                         r"ops in a namespace: 'myns.exp'"):
        L.define_op("exp", ["input"], infer=_same)


def test_clash_between_two_files_names_both(ns, tmp_path):
    _define_scale()
    lib = tmp_path / "other_lib.py"
    lib.write_text("import minflow.library as L\n"
                   "L.define_op('ext.scale', ['input'], infer=None)\n")
    with pytest.raises(ValueError, match=r"'ext.scale' is already defined by .*test_extension"
                                         r".py:\d+; defined again by .*other_lib.py:2"):
        L.load_library(lib)


def test_namespace_and_name_checks(ns):
    with pytest.raises(ValueError, match="must be an identifier"):
        L.define_op("a.b.c", ["input"], infer=_same)
    with pytest.raises(ValueError, match="namespace 'registry' is taken"):
        L.define_op("registry.thing", ["input"], infer=_same)
    with pytest.raises(ValueError, match="minflow.exp already exists"):
        L.define_op("exp_twice", ["input"], infer=_same)
        L.bind_function("exp_twice", name="exp")
    L.unload("exp_twice")


LIB_V1 = """
import minflow.library as L
OP = L.define_op("ext.shift", ["input"], infer=lambda input, **a: (input.shape, input.dtype),
                 attrs=[L.Attr("by", "float", 1.0)])
L.register_kernel("ext.shift", ("cpu", "cuda"), L.FLOATS)(
    lambda xp, input, by, **more: input + by + more.get("extra", 0.0))
shift = L.bind_function(OP)
"""


def test_load_library_and_reload_with_a_new_attr(ns, tmp_path):
    lib = tmp_path / "shift_lib.py"
    lib.write_text(LIB_V1)
    module = L.load_library(lib)
    assert module.shift(minflow.zeros(2)).tolist() == [1.0, 1.0]
    lib.write_text(LIB_V1.replace('L.Attr("by", "float", 1.0)]',
                                  'L.Attr("by", "float", 1.0), L.Attr("extra", "float", 0.5)]'))
    module = L.load_library(lib)        # same file: the op is redefined, not a clash
    assert minflow.ops.ext.shift(minflow.zeros(1)).tolist() == [1.5]
    lib.write_text(LIB_V1.replace('L.Attr("by", "float", 1.0)]',
                                  'L.Attr("by", "float", 1.0), L.Attr("extra", "float", 0.5), '
                                  'L.Attr("more", "float")]'))
    with pytest.raises(ValueError, match="new attr 'more' needs a default: graphs recorded "
                                         "with the earlier definition"):
        L.load_library(lib)
    lib.write_text(LIB_V1.replace('attrs=[L.Attr("by", "float", 1.0)]', 'attrs=[]'))
    with pytest.raises(ValueError, match=r"attrs \['by', 'extra'\] of the earlier definition"):
        L.load_library(lib)


def test_graph_recorded_before_a_new_attr_still_runs(ns, tmp_path):
    lib = tmp_path / "shift_lib.py"
    lib.write_text(LIB_V1)
    module = L.load_library(lib)
    with mg.trace() as g:
        mg.set_outputs(g, [module.shift(minflow.zeros(2), by=2.0)])
    assert g.nodes[-1].attrs == {"by": 2.0}
    lib.write_text(LIB_V1.replace('L.Attr("by", "float", 1.0)]',
                                  'L.Attr("by", "float", 1.0), L.Attr("extra", "float", 0.5)]')
                   .replace('**more: input + by + more.get("extra", 0.0)', 'extra: input + by + extra'))
    L.load_library(lib)
    (out,) = mg.compile(g)()        # the old node gets the new attr's default
    assert out.tolist() == [2.5, 2.5]


def test_load_library_from_a_package_directory(ns, tmp_path):
    pkg = tmp_path / "shift_pkg"
    pkg.mkdir()
    (pkg / "kernels.py").write_text("def shift(input, by):\n    return input + by\n")
    (pkg / "__init__.py").write_text(LIB_V1.split("L.register_kernel")[0] +
                                     "from .kernels import shift as kernel\n"
                                     "L.register_kernel('ext.shift', 'cpu', L.FLOATS)(kernel)\n"
                                     "shift = L.bind_function(OP)\n")
    module = L.load_library(pkg)        # a relative import inside the package works
    assert module.shift(minflow.zeros(1), by=3.0).tolist() == [3.0]


def test_load_library_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no Python file or package"):
        L.load_library(tmp_path / "missing.py")


def test_load_entry_points(ns, tmp_path, monkeypatch):
    pkg = tmp_path / "extpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(LIB_V1)
    dist = tmp_path / "extpkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: extpkg\nVersion: 1.0\n")
    (pkg / "more.py").write_text("import minflow.library as L\n"
                                 "def register():\n"
                                 "    L.define_op('ext.shift', ['input'], infer=None)\n")
    (dist / "entry_points.txt").write_text("[minflow.test_ops]\nshift = extpkg\n"
                                           "[minflow.test_more]\nclash = extpkg.more:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        loaded = L.load_entry_points("minflow.test_ops")
        assert list(loaded) == ["shift"] and loaded["shift"] is sys.modules["extpkg"]
        assert minflow.ops.ext.shift(minflow.zeros(1)).tolist() == [1.0]
        assert "entry point 'shift' = 'extpkg' of group 'minflow.test_ops'" in \
            L.origin_of("ext.shift")
        # a callable entry point is called; its clash names both entry points
        with pytest.raises(ValueError, match=r"'ext.shift' is already defined by .*extpkg.*"
                                             r"entry point 'shift' = 'extpkg'.*; defined again by "
                                             r".*more.py:3 \(entry point 'clash' = "
                                             r"'extpkg.more:register' of group"):
            L.load_entry_points("minflow.test_more")
    finally:
        sys.modules.pop("extpkg", None)
        sys.modules.pop("extpkg.more", None)


def test_unload_removes_everything(ns):
    op = _define_scale()
    L.bind_function(op, method="ext_scale2")
    L.backward_spec(op, op, inputs=[L.grad("out")], attrs=["factor"])
    L.unload("ext")
    assert not hasattr(minflow.ops, "ext") and not hasattr(minflow.Tensor, "ext_scale2")
    with pytest.raises(KeyError, match="no op named 'ext.scale'"):
        minflow.ops.get_op("ext.scale")
    with pytest.raises(KeyError, match="no op or namespace 'ext'"):
        L.unload("ext")
    _define_scale()         # and it can be defined again


def test_backward_spec_eager_and_graph_agree(ns):
    fwd = L.define_op("ext.cube", ["input"], infer=_same)
    L.define_op("ext.cube_grad", ["grad_out", "input"],
                infer=lambda grad_out, input: (input.shape, input.dtype))
    L.register_kernel("ext.cube", ("cpu", "cuda"), L.FLOATS)(lambda xp, x: x ** 3)
    L.register_kernel("ext.cube_grad", ("cpu", "cuda"), L.FLOATS)(lambda xp, g, x: 3 * g * x * x)
    L.backward_spec(fwd, "ext.cube_grad")           # names match: grad_out, input
    cube = L.bind_function(fwd)
    x = minflow.tensor([0.5, -1.5], dtype=minflow.float64, requires_grad=True)
    assert gradcheck(cube, (x,))
    assert type(cube(x).grad_fn).__name__ == "ExtCubeSpecGrad" or \
        cube(x).grad_fn.name() == "ExtCubeBackward0"
    with pytest.raises(RuntimeError, match="no grad function is registered"):
        gradgradcheck(cube, (x,))
    w = minflow.tensor([2.0], requires_grad=True)
    with mg.trace() as g:
        cube(w).sum().backward()
    mg.compile(g)()
    assert w.grad.tolist() == [12.0]
    assert [n.op for n in g.nodes if n.role == "backward"][-1] == "ext.cube_grad"


def test_backward_spec_errors(ns):
    fwd = _define_scale()
    with pytest.raises(ValueError, match=r"ext.scale input 'input' is neither an input "
                                         r"\['grad_out', 'other'\] nor an output"):
        L.define_op("ext.two", ["grad_out", "other"], outputs=("a", "b"),
                    infer=lambda g, o: [(g.shape, g.dtype)] * 2)
        L.backward_spec("ext.two", fwd)
    with pytest.raises(ValueError, match=r"takes 1 inputs \['input'\], got 2"):
        L.backward_spec(fwd, fwd, inputs=[L.grad("out"), "input"])
    with pytest.raises(ValueError, match="grad\\('nope'\\) names no output"):
        L.backward_spec(fwd, fwd, inputs=[L.grad("nope")])
    with pytest.raises(ValueError, match="attr 'eps' must be an attr of both"):
        L.backward_spec(fwd, fwd, inputs=[L.grad("out")], attrs=["eps"])


def _load_example():
    path = ROOT / "examples" / "custom_op_leaky_relu.py"
    spec = importlib.util.spec_from_file_location("custom_op_leaky_relu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_canonical_example_end_to_end():
    example = _load_example()
    try:
        report = example.check()
        assert not report.failures and report.counts["graph_grads"] >= 2
        assert report.counts["gradgradcheck"] == 2 and report.counts["errors"] == 2
        eager, accuracy = example.train(steps=150)
        graph, graph_accuracy = example.train(steps=150, graph=True)
        assert eager[-1] < 0.3 * eager[0] and accuracy > 0.9
        np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-5)
        assert abs(graph_accuracy - accuracy) < 0.02
        example = _load_example()       # running the same file again redefines, no clash
        assert minflow.ops.myns.leaky_relu is example.leaky_relu
    finally:
        L.unload("myns")


def test_library_module_is_documented():
    doc = textwrap.dedent(L.__doc__)
    for name in ("define_op", "register_kernel", "bind_function", "backward_spec",
                 "load_library", "load_entry_points", "unload"):
        assert name in doc
    for name in L.__all__:
        assert hasattr(L, name)
