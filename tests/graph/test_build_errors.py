"""Errors while nn.Graph builds: each names what failed (op or module, shapes, dtypes) and
the user's source line in build."""
import pytest

import minflow
import minflow.library as L
from minflow import nn, optim
from minflow.graph import GraphBuildError

HERE = __file__


class Eval(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)                    # BUILD_LINE


class Train(nn.Graph):
    def __init__(self, model, loss_fn):
        super().__init__()
        self.model, self.loss_fn = model, loss_fn
        self.add_optimizer(optim.SGD(model.parameters(), lr=0.1))

    def build(self, x):
        loss = self.loss_fn(self.model(x))
        loss.backward()
        return loss


def _line(marker):
    with open(HERE) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "def " not in text)


def test_a_module_s_shape_check_names_the_source_line_and_input_types():
    with pytest.raises(RuntimeError, match=(
            rf"(?s)^Linear: expected input with last dimension 3 \(in_features\), got shape "
            rf"\(4, 5\)\n  while building Eval at {HERE}:{_line('BUILD_LINE')} \(for input 0: "
            rf"float32\[4, 5\] on cpu\)$")):
        Eval(nn.Linear(3, 2))(minflow.randn(4, 5))


def test_an_op_s_dtype_mismatch_names_op_types_and_source_line():
    with pytest.raises(RuntimeError, match=(
            rf"(?s)^linear: .*float64 != float32\n  while building a graph: linear\("
            rf"float64\[4, 3\], float32\[2, 3\], float32\[2\]\) at "
            rf"{HERE}:{_line('BUILD_LINE')}$")):
        Eval(nn.Linear(3, 2))(minflow.randn(4, 3, dtype=minflow.float64))


def test_a_shape_mismatch_inside_an_op_names_shapes_and_source_line():
    class Add(nn.Graph):
        def build(self, x, y):
            return x + y                        # ADD_LINE
    with pytest.raises(RuntimeError, match=(
            rf"(?s)^add: shapes \[\[2, 3\], \[4\]\] cannot be broadcast.*\n  while building a "
            rf"graph: add\(float32\[2, 3\], float32\[4\]\) at "
            rf"{HERE}:{_line('ADD_LINE')}")):
        Add()(minflow.ones(2, 3), minflow.ones(4))


@pytest.fixture
def no_grad_op():
    """A differentiable user op with a kernel and no gradient of either kind."""
    op = L.define_op("buildtest.twice", ["input"], infer=lambda input: (input.shape,
                                                                       input.dtype))
    L.register_kernel("buildtest.twice", ("cpu",), L.FLOATS)(lambda xp, input: input * 2)
    L.bind_function(op)
    yield minflow.ops.buildtest.twice
    L.unload("buildtest")


def test_a_missing_grad_generator_names_the_op_and_its_source_line(no_grad_op):
    def loss_fn(out):
        return no_grad_op(out).sum()            # TWICE_LINE
    graph = Train(nn.Linear(3, 2), loss_fn)
    with pytest.raises(GraphBuildError, match=(
            rf"(?s)^backward: op 'buildtest.twice' \(traced at {HERE}:{_line('TWICE_LINE')}\) "
            rf"is differentiable but has no grad function or grad-op conf generator")):
        graph(minflow.randn(4, 3))


def test_a_non_scalar_loss_is_an_error_naming_its_shape():
    graph = Train(nn.Linear(3, 2), lambda out: out * 2)
    with pytest.raises(GraphBuildError, match=r"needs a scalar loss .* got shape \[4, 2\]"):
        graph(minflow.randn(4, 3))


@pytest.mark.parametrize("result, message", [
    ("loss", r"^output 0: expected a Tensor \(or a tuple, list or dict of them, or None\), "
             r"got str"),
    ([None, (1.5,)], r"^output 0 at \[1\]\[0\]: expected a Tensor .* got float"),
    ({"logits": minflow.ones(1), "n": 3}, r"^output 0 at \['n'\]: expected a Tensor .* got int"),
])
def test_bad_build_outputs_name_the_position_and_path(result, message):
    class Bad(nn.Graph):
        def build(self, x):
            return result
    with pytest.raises(TypeError, match=message):
        Bad()(minflow.ones(2))


def test_non_tensor_inputs_name_the_position_and_path():
    graph = Eval(nn.Identity())
    with pytest.raises(TypeError, match=r"^input 1 at \['w'\]\[0\]: expected a Tensor .* got "
                                        r"str"):
        graph(minflow.ones(2), {"w": ["a"]})
    with pytest.raises(TypeError, match=r"^input 0: expected a Tensor .* got ndarray"):
        graph(minflow.ones(2).numpy())
