"""The built-in op tables of test_elementwise.py, test_activation.py, test_nn_extra.py,
test_nn_layers.py, test_loss_more.py, test_ctc_loss.py, test_special.py, test_unary_math.py,
test_binary_math.py, test_scan_reduce.py, test_gamma.py, test_conv3d.py and
test_grid_sample.py, run through
minflow.testing.check_op: the same checker user ops get (forward over every listed dtype
and device, undeclared dtypes, non-contiguous inputs, meta, gradcheck and double backward,
eager vs graph gradients, in-place and out= variants)."""
import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op
from test_activation import REFERENCES, X
from test_elementwise import BINARY, FLOATS, GRAD_OPS, UNARY, anywhere, grad_op, sample
from test_nn_extra import DOUBLE_BACKWARD, away_from_kinks
from test_nn_extra import REFERENCES as NN_REFERENCES
from test_nn_layers import REFERENCES as LAYER_REFERENCES
from test_loss_more import REFERENCES as LOSS_REFERENCES
from test_ctc_loss import REFERENCES as CTC_REFERENCES
from test_special import UNARY as SPECIAL
from test_unary_math import UNARY as UNARY_MATH
from test_binary_math import BINARY as BINARY_MATH, sample as sample_math
from test_scan_reduce import REDUCTIONS, SCANS, with_nans
from test_gamma import TABLE as GAMMA, needs_scipy
from test_conv3d import REFERENCES as CONV3D_REFERENCES
from test_grid_sample import REFERENCES as SAMPLING_REFERENCES

# composites, and public functions that are not their op's own (no kernels to declare
# dtypes from): forward runs in the float dtypes only
COMPOSITES = {"elu", "gelu_tanh", "silu", "softplus", "hardtanh", "selu", "celu", "softshrink",
              "hardshrink", "tanhshrink", "threshold", "rrelu_eval", "softmin"}
TOL = {"float16": (3e-3, 3e-3), "float32": (1e-6, 1e-6), "float64": (1e-10, 1e-12)}


def _unary_samples(sampler):
    return lambda dtype: [Sample(sample(sampler, (3, 4), dtype)),
                          Sample(sample(sampler, (5,), dtype, 1))]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_table(name, device):
    ref, sampler, dtypes, differentiable = UNARY[name]
    check_op(getattr(minflow, name), _unary_samples(sampler), ref, dtypes=dtypes,
             devices=[device], grad=differentiable, tol=TOL)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_table(name, device):
    ref, sampler, dtypes, differentiable = BINARY[name]

    def samples(dtype):     # broadcasting, and same shapes (the in-place variant's case)
        return [Sample(sample(sampler, (3, 1), dtype, 1), sample(sampler, (4,), dtype, 2)),
                Sample(sample(sampler, (2, 3), dtype, 3), sample(sampler, (2, 3), dtype, 4))]
    check_op(getattr(minflow, name), samples, ref, dtypes=dtypes, devices=[device],
             grad=differentiable, tol={**TOL, "float16": (3e-3, 3e-3)})


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_grad_op_table(name, device):
    ref, sampler = GRAD_OPS[name]
    samples = lambda dtype: [Sample(sample(anywhere, (3, 4), dtype, 1),   # noqa: E731
                                    sample(sampler, (3, 4), dtype, 2))]
    check_op(name, samples, ref, dtypes=FLOATS, devices=[device], tol=TOL)
    assert grad_op(name)      # the table's own way of calling it still works


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_table(name, device):
    fn, ref = REFERENCES[name]
    check_op(fn, [Sample(X), Sample(X.reshape(2, 3))], ref, devices=[device],
             dtypes=FLOATS if name in COMPOSITES else None, tol=TOL,
             check_dtype=name != "gelu")     # its reference, math.erf, is float64 only


# their references compute in float64 whatever the input dtype
FLOAT64_REFERENCES = {"conv_transpose2d", "interpolate_bilinear", "interpolate_bicubic",
                      "interpolate_bicubic_corners", "interpolate_bilinear_antialias",
                      "interpolate_bicubic_antialias", "interpolate_lanczos",
                      "interpolate_linear"}


@pytest.mark.parametrize("name", sorted(NN_REFERENCES))
def test_nn_table(name, device):
    fn, ref, inputs = NN_REFERENCES[name]
    check_op(fn, [Sample(*map(away_from_kinks, inputs))], ref, dtypes=["float32", "float64"],
             devices=[device], gradgrad=name in DOUBLE_BACKWARD,
             tol={"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-12)},
             check_dtype=name not in FLOAT64_REFERENCES)


@pytest.mark.parametrize("name", sorted(LAYER_REFERENCES))
def test_nn_layer_table(name, device):
    fn, ref, inputs = LAYER_REFERENCES[name]
    check_op(fn, [Sample(*inputs)], ref, dtypes=["float16", "float32", "float64"],
             devices=[device], tol={**TOL, "float32": (1e-5, 1e-6)})


@pytest.mark.parametrize("name", sorted(LOSS_REFERENCES))
def test_loss_table(name, device):
    fn, ref, inputs = LOSS_REFERENCES[name]
    check_op(fn, [Sample(*inputs)], ref, dtypes=["float32", "float64"], devices=[device],
             tol={"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)})


@pytest.mark.parametrize("name", sorted(CTC_REFERENCES))
def test_ctc_loss_table(name, device):
    """Called on logits through log_softmax (the gradient torch defines assumes normalised
    log-probabilities); no double backward, as torch."""
    fn, ref, inputs = CTC_REFERENCES[name]
    check_op(fn, [Sample(*inputs)], ref, op="ctc_loss", dtypes=["float32", "float64"],
             devices=[device], gradgrad=False, undeclared=["float16"],
             tol={"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)})


@pytest.mark.parametrize("name", sorted(n for n, case in SPECIAL.items() if case[1] is not None))
def test_special_table(name, device):
    fn, ref, sampler, dtypes = SPECIAL[name]

    def samples(dtype):
        if dtype == "int64":
            return [Sample(np.random.default_rng(0).integers(-3, 4, (3, 4)))]
        return [Sample(sampler((3, 4)).astype(dtype))]
    check_op(fn, samples, lambda x: ref(x.astype(np.float64)).astype(x.dtype), dtypes=dtypes,
             devices=[device], tol=TOL)


@pytest.mark.parametrize("name", sorted(UNARY_MATH))
def test_unary_math_table(name, device):
    ref, sampler, differentiable = UNARY_MATH[name]
    check_op(getattr(minflow, name), _unary_samples(sampler), ref, dtypes=FLOATS,
             devices=[device], grad=differentiable, tol=TOL)


@pytest.mark.parametrize("name", sorted(BINARY_MATH))
def test_binary_math_table(name, device):
    ref, (first, second), dtypes, differentiable = BINARY_MATH[name]

    def samples(dtype):     # broadcasting, and same shapes (the in-place variant's case)
        return [Sample(sample_math(first, (3, 1), dtype, 1), sample_math(second, (4,), dtype, 2)),
                Sample(sample_math(first, (2, 3), dtype, 3), sample_math(second, (2, 3), dtype, 4))]
    check_op(getattr(minflow, name), samples, ref, dtypes=dtypes, devices=[device],
             grad=differentiable, tol=TOL)


@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_table(name, device):
    ref, dtypes = SCANS[name]

    def samples(dtype):       # no NaN or ties (torch's are in test_scan_reduce.py)
        x = np.nan_to_num(with_nans((3, 5), seed=1)) + np.arange(15).reshape(3, 5) * 0.01
        return [Sample(x.astype(dtype), dim=1), Sample(x.T.astype(dtype), dim=0)]
    # cummax / cummin: the int indices output has no gradient for gradgradcheck to take;
    # their double backward is checked on the values in test_scan_reduce.py
    check_op(name, samples, ref, dtypes=dtypes, devices=[device], tol=TOL,
             gradgrad=name == "logcumsumexp")


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_composite_table(name, device):
    ref, kwargs = REDUCTIONS[name]
    x = with_nans((3, 4), seed=2)
    samples = [Sample(x, **kwargs), Sample(x)]
    if name in ("count_nonzero", "aminmax"):     # ties and NaN: no gradient checks there
        samples = [Sample(np.nan_to_num(x) + np.arange(12).reshape(3, 4) * 0.01, **kwargs)]
    check_op(getattr(minflow, name), samples, ref, dtypes=FLOATS, devices=[device], tol=TOL,
             grad=name != "count_nonzero")


@needs_scipy
@pytest.mark.parametrize("name", sorted(GAMMA))
def test_gamma_table(name, device):
    fn, ref, sampler = GAMMA[name]
    check_op(fn, _unary_samples(sampler), lambda x: ref(x.astype(np.float64)).astype(x.dtype),
             dtypes=FLOATS, devices=[device], tol={**TOL, "float16": (1e-2, 1e-2)},
             op=name if name != "mvlgamma" else None)


# the 3-D convolution and pooling ops and the unpooling / spatial sampling composites;
# references in float64 (float16 sums over windows of 8-36 values lose too much)
ND3_REFERENCES = {**CONV3D_REFERENCES, **SAMPLING_REFERENCES}


@pytest.mark.parametrize("name", sorted(ND3_REFERENCES))
def test_nd3_table(name, device):
    fn, ref, inputs = ND3_REFERENCES[name]
    check_op(fn, [Sample(*inputs)], ref, dtypes=["float32", "float64"], devices=[device],
             tol={"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}, check_dtype=False)
