"""searchsorted, bucketize and isin: a table run through minflow.testing.check_op (forward
vs numpy on every declared dtype, meta, non-contiguous inputs, undeclared dtypes), and
sweeps against torch (sides, sorter, batched sequences, ties, NaN, scalars, out_int32).
Bad-input cases: tests/test_bad_input.py."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
SEQ = np.array([-2.0, -0.5, -0.5, 0.0, 1.5, 3.0])
VALUES = np.array([[-3.0, -0.5, 0.2], [1.5, 3.0, 7.0]])


def np_searchsorted(seq, values, right=False, **_):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side).astype(np.int64)
    return np.stack([np.searchsorted(s, v, side) for s, v in zip(seq, values)]).astype(np.int64)


def _ints(dtype):
    cast = (lambda a: np.round(a * 2).astype(dtype)) if "int" in dtype else \
        (lambda a: a.astype(dtype))
    return cast


# name: (fn, samples(dtype), numpy reference)
TABLE = {
    "searchsorted": (minflow.searchsorted,
                     lambda d: [Sample(_ints(d)(SEQ), _ints(d)(VALUES)),
                                Sample(_ints(d)(SEQ), _ints(d)(VALUES), right=True)],
                     np_searchsorted),
    "searchsorted_batched": (lambda s, v: minflow.searchsorted(s, v, side="right"),
                             lambda d: [Sample(_ints(d)(np.stack([SEQ, SEQ * 2])),
                                               _ints(d)(VALUES))],
                             lambda s, v: np_searchsorted(s, v, True)),
    "bucketize": (minflow.bucketize, lambda d: [Sample(_ints(d)(VALUES), _ints(d)(SEQ))],
                  lambda v, s: np.searchsorted(s, v).astype(np.int64)),
    "isin": (minflow.isin, lambda d: [Sample(_ints(d)(VALUES), _ints(d)(SEQ)),
                                      Sample(_ints(d)(VALUES), _ints(d)(SEQ[:3]), invert=True)],
             lambda e, t, invert=False: np.isin(e, t, invert=invert)),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_table(name, device):
    fn, samples, ref = TABLE[name]
    check_op(fn, samples, ref, op=name.split("_")[0].replace("bucketize", "searchsorted"),
             devices=[device], grad=False)


def _sorted(shape, kind, dtype):
    a = RNG.integers(-4, 5, shape).astype(dtype) if kind != "distinct" else \
        RNG.standard_normal(shape).astype(dtype)
    a = np.sort(a, -1)
    if kind == "nan" and a.dtype.kind == "f" and a.shape[-1]:
        a[..., -1] = np.nan
    return a


def test_searchsorted_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for kind, dtype, batch, n in itertools.product(("distinct", "ties", "nan"),
                                                   ("float32", "float64", "int32", "int64"),
                                                   ((), (3,), (2, 2)), (0, 1, 2, 5, 9)):
        seq = _sorted(batch + (n,), kind, dtype)
        values = RNG.integers(-5, 6, batch + (4,)).astype(dtype)
        if dtype.startswith("float"):
            values[..., 0] = np.nan if kind == "nan" else 0.5
        sorter = np.argsort(RNG.permutation(n))           # for the shuffled sequence
        shuffled = seq[..., np.argsort(sorter)] if n else seq
        for right, out_int32 in itertools.product((False, True), (False, True)):
            ours = minflow.searchsorted(minflow.tensor(seq), minflow.tensor(values),
                                        right=right, out_int32=out_int32)
            theirs = torch.searchsorted(torch.tensor(seq), torch.tensor(values), right=right,
                                        out_int32=out_int32)
            assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            if not batch and n:
                ours = minflow.searchsorted(minflow.tensor(shuffled), minflow.tensor(values),
                                            side="right" if right else "left",
                                            sorter=minflow.tensor(sorter))
                theirs = torch.searchsorted(torch.tensor(shuffled), torch.tensor(values),
                                            side="right" if right else "left",
                                            sorter=torch.tensor(sorter))
                np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            if not batch:
                for scalar in (-1, 2, 0.5):
                    assert minflow.bucketize(scalar, minflow.tensor(seq), right=right).item() \
                        == torch.bucketize(scalar, torch.tensor(seq), right=right).item()
    mixed = (minflow.searchsorted(minflow.tensor([1, 3, 5]), minflow.tensor([2.5, 3.0])),
             torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.5, 3.0])))
    assert mixed[0].tolist() == mixed[1].tolist()


def test_isin_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for dtype, invert in itertools.product(("float32", "float64", "int32", "int64"),
                                           (False, True)):
        elements = RNG.integers(-3, 4, (3, 4)).astype(dtype)
        tests = RNG.integers(-3, 4, 5).astype(dtype)
        if dtype.startswith("float"):
            elements[0, 0] = tests[0] = np.nan
        ours = minflow.isin(minflow.tensor(elements), minflow.tensor(tests), invert=invert)
        theirs = torch.isin(torch.tensor(elements), torch.tensor(tests), invert=invert)
        assert ours.dtype is minflow.bool
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert minflow.isin(2, minflow.tensor(tests), invert=invert).item() == \
            torch.isin(2, torch.tensor(tests), invert=invert).item()
    assert minflow.isin(minflow.tensor([1, 2]), minflow.tensor([2.0, 1.5])).tolist() == \
        torch.isin(torch.tensor([1, 2]), torch.tensor([2.0, 1.5])).tolist()


def test_graph_mode():
    class Bucket(minflow.nn.Graph):
        def build(self, x, b):
            return minflow.bucketize(x, b) + minflow.isin(x, b)

    x, b = minflow.tensor(VALUES), minflow.tensor(SEQ)
    expected = minflow.bucketize(x, b) + minflow.isin(x, b)
    np.testing.assert_array_equal(Bucket()(x, b).numpy(), expected.numpy())
