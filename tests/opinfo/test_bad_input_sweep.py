"""Bad input over the public API against torch (see bad_input_sweep.py): every varied call
that torch rejects, minflow rejects with the same class and a message naming the function
(never a raw Python or numpy message); every one torch accepts, minflow accepts with
torch's result.

LEFT (bad_input_sweep_left.py) lists the cases where minflow still differs, each with its
reason; a case that starts passing must leave the table."""
import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")        # torch.testing._internal imports it
from bad_input_sweep import (CATALOGUE, NOT_TENSORS, error_input_faults,  # noqa: E402
                             function_cases, module_cases, module_error_input_faults, op_cases,
                             run_catalogue, run_function, run_module, run_op)
from bad_input_sweep_left import LEFT  # noqa: E402

_OPS = op_cases()


def _check(name, faults, owns):
    """No faults but LEFT's for ``name`` among the case labels this test ``owns`` (a
    predicate), and each of those still a fault."""
    left = {case for key, case in LEFT if key == name and owns(case)}
    new = {case: fault for case, fault in faults.items() if case not in left}
    assert not new, f"{len(new)} bad inputs handled otherwise than by torch:\n" + "\n".join(
        f"{case}: {fault}" for case, fault in list(new.items())[:10])
    fixed = left - set(faults)
    assert not fixed, f"now handled as torch does, remove from LEFT: {sorted(fixed)}"


def _varied(case):
    return "=" in case or case.startswith("forward")


def _error_input(case):
    return case.startswith("error input")


@pytest.mark.parametrize("name, opinfo", [pytest.param(n, o, id=n) for n, o in _OPS])
def test_op_bad_input_as_torch(name, opinfo):
    """OpInfo's first sample with one argument made bad, as a function and a method."""
    faults, _ = run_op(name, opinfo)
    _check(name, faults, _varied)


@pytest.mark.parametrize("name, info", [pytest.param(n, i, id=n) for n, i in module_cases()])
def test_module_bad_input_as_torch(name, info):
    """ModuleInfo's first input with one constructor argument or the input made bad."""
    faults, _ = run_module(name, info)
    _check(name, faults, _varied)


@pytest.mark.parametrize("name, opinfo", [pytest.param(n, o, id=n) for n, o in _OPS
                                          if o.error_inputs_func is not None])
def test_op_error_input_messages(name, opinfo):
    """torch's own error inputs: minflow's message names the function, and is none of
    Python's or numpy's (test_opinfo.py checks the class)."""
    _check(name, error_input_faults(name, opinfo), _error_input)


@pytest.mark.parametrize("name, info", [pytest.param(n, i, id=n) for n, i in module_cases()
                                        if i.module_error_inputs_func is not None])
def test_module_error_input_messages(name, info):
    """The same for torch's module error inputs (test_moduleinfo.py checks the class)."""
    _check(name, module_error_input_faults(name, info), _error_input)


@pytest.mark.parametrize("name, theirs, ours", [
    pytest.param(n, t, o, id=n) for n, t, o in function_cases({o.name for _, o in _OPS})])
def test_function_non_tensor_as_torch(name, theirs, ours):
    """Every other public function with a string, None or a list of strings for its
    first argument."""
    _check(name, run_function(name, theirs, ours), lambda case: case in NOT_TENSORS)


@pytest.mark.parametrize("name, make", [pytest.param(n, m, id=f"{i}-{n}")
                                        for i, (n, m) in enumerate(CATALOGUE)])
def test_catalogue_as_torch(name, make):
    """Calls the samples do not make: layers built with bad arguments, indices and targets
    of the wrong dtype or out of range, mismatched shapes, out-of-range dims."""
    fault = run_catalogue(name, make)
    case = f"catalogue {next(i for i, (_, m) in enumerate(CATALOGUE) if m is make)}"
    _check(name, {case: fault} if fault else {}, lambda label: label == case)
