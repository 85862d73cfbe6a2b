"""Python numbers as operands of the binary functions, against torch: for every public
function of minflow that takes two tensors and that torch has too, a number in the first
and in the second place is accepted exactly where torch accepts it (same value and dtype),
and refused where torch refuses it, with an error of torch's class that names the function
and the argument. Operators keep taking a number on either side (``2 + t`` goes through
``t.__radd__``)."""
import inspect

import numpy as np
import pytest

import minflow
from minflow.core.namespace import F

torch = pytest.importorskip("torch")

TENSORS = {"float": [1.5, -2.0, 3.0], "int": [1, 2, 3], "bool": [True, False, True]}
NUMBERS = (2, 2.5, True)
RANDOM = {"normal"}             # random values: dtype and shape compared, not values


def _call(lib, name, args):
    """("ok", result) or ("error", exception)."""
    try:
        return "ok", getattr(lib, name)(*args)
    except Exception as err:            # every error is compared with torch's
        return "error", err


def _takes_two_tensors(name):
    kinds = [p.kind for p in inspect.signature(getattr(minflow, name)).parameters.values()]
    if len(kinds) < 2 or inspect.Parameter.VAR_POSITIONAL in kinds[:2]:
        return False                    # stack(*tensors), atleast_1d(*tensors) ...
    pairs = ([[1.5, -2.0, 3.0], [2.0, 0.5, 1.0]], [[1, 2, 3], [2, 1, 3]])
    return any(all(_call(lib, name, [lib.tensor(v) for v in pair])[0] == "ok"
                   for lib in (minflow, torch)) for pair in pairs)


def _binary_functions():
    names = sorted(n for n in vars(F) if not n.startswith("_") and callable(getattr(torch, n,
                                                                                     None)))
    # the probe calls random functions too: the generators' states are kept for other tests
    with minflow.random.fork_rng(), torch.random.fork_rng():
        return [n for n in names if _takes_two_tensors(n)]


BINARY = _binary_functions()


def _arrays(result):
    """A result as a list of (dtype name, numpy array)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [(str(r.dtype).split(".")[-1], np.asarray(r.detach().cpu().numpy()
                                                     if isinstance(r, torch.Tensor)
                                                     else r.numpy()))
            for r in items]


def _cases():
    for kind in TENSORS:
        for number in NUMBERS:
            yield kind, number, 0
            yield kind, number, 1


def test_the_binary_functions_are_found():
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "atan2", "eq", "lt",
                 "logical_and", "remainder", "float_power", "xlogy", "hypot"):
        assert name in BINARY


@pytest.mark.parametrize("name", BINARY)
def test_number_operands_as_torch(name):
    with minflow.random.fork_rng(), torch.random.fork_rng():
        _compare_number_operands(name)


def _compare_number_operands(name):
    for kind, number, place in _cases():
        args = {lib: [lib.tensor(TENSORS[kind])] for lib in (minflow, torch)}
        for lib in args:
            args[lib].insert(place, number)
        (ours, got), (theirs, expected) = (_call(lib, name, args[lib]) for lib in args)
        where = f"{name}{tuple(args[torch])}"
        assert ours == theirs, f"{where}: minflow {got!r}, torch {expected!r}"
        if theirs == "error":
            assert isinstance(got, type(expected)), f"{where}: {got!r} vs torch {expected!r}"
            if isinstance(expected, TypeError):
                _names_function_and_argument(got, name, place)
            continue
        for (dtype, value), (torch_dtype, torch_value) in zip(_arrays(got), _arrays(expected)):
            assert dtype == torch_dtype, where
            assert value.shape == torch_value.shape, where
            if name not in RANDOM:
                np.testing.assert_allclose(value, torch_value, rtol=1e-6, err_msg=where)


@pytest.mark.parametrize("name", BINARY)
def test_two_numbers_as_torch(name):
    """Two Python numbers: accepted where torch accepts them (div(7, 2)), else torch's
    error class (remainder(7, 2) is a TypeError)."""
    for args in ((7, 2), (2.5, 1), (True, False)):
        (ours, got), (theirs, expected) = (_call(lib, name, args) for lib in (minflow, torch))
        assert ours == theirs, f"{name}{args}: minflow {got!r}, torch {expected!r}"
        if theirs == "error":
            assert isinstance(got, type(expected)), f"{name}{args}: {got!r} vs {expected!r}"
        else:
            (dtype, value), = _arrays(got)
            (torch_dtype, torch_value), = _arrays(expected)
            assert dtype == torch_dtype and value.shape == torch_value.shape, (name, args)
            np.testing.assert_allclose(value, torch_value, rtol=1e-6)


def _names_function_and_argument(err, name, place):
    fn = getattr(minflow, name)
    message = str(err)
    assert name.rstrip("_") in message or fn.__name__.rstrip("_") in message, message
    argument = list(inspect.signature(fn).parameters)[place]
    assert argument in message, f"{name}: {message!r} does not name {argument!r}"


@pytest.mark.parametrize("expression", [
    "2 + t", "2 - t", "2 * t", "2 / t", "2 ** t", "2 // t", "2 % t", "2 == t", "2 < t",
    "2 >= t", "t + 2", "t ** 2.5", "t > 1"])
def test_operators_take_numbers_on_either_side(expression):
    values = [1.5, 2.0, 3.0]
    ours = eval(expression, {"t": minflow.tensor(values)})
    theirs = eval(expression, {"t": torch.tensor(values)})
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_integer_operators_take_numbers_on_either_side():
    values = [1, 2, 3]
    for expression in ("2 & t", "2 | t", "2 ^ t", "1 << t", "64 >> t"):
        ours = eval(expression, {"t": minflow.tensor(values)})
        theirs = eval(expression, {"t": torch.tensor(values)})
        assert ours.tolist() == theirs.tolist(), expression
