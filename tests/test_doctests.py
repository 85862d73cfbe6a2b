"""Every ``>>>`` example in a minflow docstring runs and prints what it claims.

Examples are written as if ``import minflow`` and ``import numpy as np`` had run; one test
per module that has examples. A docstring whose examples put tensors on a GPU is left out
where cupy or a CUDA device is absent. Each docstring starts from a fresh random seed, so an
example that shows random values must seed inside the example.
"""
import doctest
import importlib
import pathlib
import re

import numpy as np
import pytest

import minflow
from minflow.core import grad_mode
from minflow.core.device import cuda_is_available
from minflow.core.namespace import F

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
NEEDS_GPU = re.compile(r"""device=["']cuda|\.cuda\(|\.to\(["']cuda|"""
                       r"""cuda\.(current_device|set_device|synchronize|get_device_name)\(""")


def _tests_of(module):
    return [test for test in doctest.DocTestFinder().find(module, module.__name__)
            if test.examples]


def _modules_with_examples():
    package = pathlib.Path(minflow.__file__).parent
    names = sorted(".".join(("minflow",) + path.relative_to(package).with_suffix("").parts)
                   .removesuffix(".__init__") for path in package.rglob("*.py"))
    return [name for name in names if _tests_of(importlib.import_module(name))]


MODULES = _modules_with_examples()


def _needs_gpu(tests):
    return any(NEEDS_GPU.search(ex.source) for test in tests for ex in test.examples)


def test_modules_are_collected():
    assert {"minflow", "minflow.ops.activation", "minflow.core.grad_mode"} <= set(MODULES)
    assert "minflow.kernels.generic.elementwise" not in MODULES        # no examples there


def test_generated_functions_are_found():
    # generated public functions carry __module__ "minflow": their examples run there
    names = {test.name for test in _tests_of(minflow)}
    assert {"minflow.exp", "minflow.remainder", "minflow.is_tensor"} <= names


def _has_example(obj):
    doc = obj.__doc__ or ""
    return ">>>" in doc or doc.startswith("In-place version of")


@pytest.mark.parametrize("name", sorted(n for n in vars(F) if not n.startswith("_")))
def test_public_function_has_example(name):
    assert _has_example(getattr(F, name)), f"minflow.{name}: no example"


PUBLIC_MODULES = ["minflow", "minflow.linalg", "minflow.nn", "minflow.nn.functional",
                  "minflow.nn.init", "minflow.nn.utils", "minflow.optim",
                  "minflow.optim.lr_scheduler", "minflow.utils.data", "minflow.autograd",
                  "minflow.library", "minflow.testing", "minflow.ops", "minflow.cuda",
                  "minflow.backends", "minflow.graph"]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_public_api_has_examples(module):
    """Every function and class a public module exports has an example."""
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
    missing = [n for n in names if callable(getattr(mod, n, None))
               and not isinstance(getattr(mod, n), type(mod)) and not _has_example(getattr(mod, n))]
    assert not missing, f"{module}: no example in the docstring of {missing}"


def test_tensor_methods_have_examples():
    missing = []
    for name, attr in vars(minflow.Tensor).items():
        if name.startswith("_") or type(attr).__name__ == "member_descriptor":  # dtype, device
            continue
        if not _has_example(attr.fget if isinstance(attr, property) else attr):
            missing.append(name)
    assert not missing, f"Tensor methods without an example: {missing}"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    tests = _tests_of(module)
    if not cuda_is_available():
        tests = [test for test in tests if not _needs_gpu([test])]
        if not tests:
            pytest.skip(f"{name}: its examples need cupy and a CUDA GPU")
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    saved = minflow.get_default_dtype(), grad_mode.state.grad_enabled, grad_mode.state.inference
    try:
        for test in tests:
            test.globs = {"minflow": minflow, "np": np}
            minflow.seed()
            runner.run(test, out=report.append, clear_globs=True)
    finally:   # a failing example must not leave its global state to later tests
        minflow.set_default_dtype(saved[0])
        grad_mode.state.grad_enabled, grad_mode.state.inference = saved[1:]
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{name}: {failed} of {attempted} examples failed\n" + "".join(report)
