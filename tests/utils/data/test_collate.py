import collections

import numpy as np
import pytest

import minflow
from minflow.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def test_tensors_are_stacked():
    out = default_collate([minflow.ones(2, 3), minflow.zeros(2, 3)])
    assert out.shape == (2, 2, 3) and out.dtype == minflow.float32
    assert out.sum().item() == 6.0


def test_zero_dim_tensors_become_a_vector():
    out = default_collate([minflow.tensor(1), minflow.tensor(2)])
    assert out.tolist() == [1, 2] and out.dtype == minflow.int64


def test_unequal_tensor_shapes_name_the_shapes():
    batch = [minflow.zeros(3), minflow.zeros(3), minflow.zeros(4)]
    with pytest.raises(RuntimeError, match=r"element 0 has shape \[3\], element 2 has "
                                           r"shape \[4\]"):
        default_collate(batch)
    with pytest.raises(RuntimeError, match=r"numpy arrays of unequal shapes.*\[2, 1\]"):
        default_collate([np.zeros((2, 2)), np.zeros((2, 1))])


@pytest.mark.parametrize("np_dtype, dtype", [(np.float32, minflow.float32),
                                             (np.float64, minflow.float64),
                                             (np.int32, minflow.int32),
                                             (np.int64, minflow.int64),
                                             (np.bool_, minflow.bool)])
def test_numpy_arrays_and_scalars_keep_their_dtype(np_dtype, dtype):
    out = default_collate([np.zeros(3, np_dtype), np.ones(3, np_dtype)])
    assert isinstance(out, minflow.Tensor) and out.dtype == dtype and out.shape == (2, 3)
    out = default_collate([np_dtype(1), np_dtype(0)])
    assert out.dtype == dtype and out.shape == (2,)


def test_python_numbers_and_strings():
    ints = default_collate([1, 2, 3])
    floats = default_collate([0.5, 1.5])
    bools = default_collate([True, False])
    assert ints.dtype == minflow.int64 and ints.tolist() == [1, 2, 3]
    assert floats.dtype == minflow.float64 and floats.tolist() == [0.5, 1.5]
    assert bools.dtype == minflow.bool and bools.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_containers_recurse():
    batch = [{"x": minflow.zeros(2), "label": 1, "meta": ("a", 0.5)},
             {"x": minflow.ones(2), "label": 0, "meta": ("b", 1.5)}]
    out = default_collate(batch)
    assert list(out) == ["x", "label", "meta"]
    assert out["x"].shape == (2, 2) and out["label"].tolist() == [1, 0]
    assert out["meta"][0] == ("a", "b") and out["meta"][1].tolist() == [0.5, 1.5]
    assert isinstance(out["meta"], list)                  # tuples become lists, as in torch
    # strings that were fields of the samples come back as a tuple of them, as in torch
    assert default_collate([(1, "ab"), (2, "cd")])[1] == ("ab", "cd")


def test_namedtuple_and_ordered_dict_keep_their_type():
    out = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(out, Point) and out.x.tolist() == [1, 3]
    od = default_collate([collections.OrderedDict(b=1, a=2)] * 2)
    assert isinstance(od, collections.OrderedDict) and list(od) == ["b", "a"]


def test_errors():
    with pytest.raises(RuntimeError, match="equal size; element 0 has 2 fields, element 1 "
                                           "has 3"):
        default_collate([[1, 2], [1, 2, 3]])
    with pytest.raises(TypeError, match="found <class 'set'>"):
        default_collate([{1}, {2}])
    with pytest.raises(TypeError, match="found <class 'NoneType'>"):
        default_collate([None, None])
    with pytest.raises(TypeError, match="numpy arrays of dtype <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def _plain(value):
    """A comparable picture of a collated batch from either library."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return str(value.dtype).split(".")[-1], np.asarray(value).tolist()
    return value


def test_matches_torch_default_collate():
    torch = pytest.importorskip("torch")
    samples = [{"img": np.full((2, 2), i, np.float32), "n": i, "w": i / 2, "id": f"s{i}",
                "pair": (i, [np.int32(i), 1.0 * i]), "flag": i % 2 == 0,
                "label_text": (i, f"text {i}", [f"w{i}", "x"]),
                "nested": {"a": np.arange(3) + i}} for i in range(4)]
    ours = default_collate(samples)
    theirs = torch.utils.data.default_collate(samples)
    assert _plain(ours) == _plain(theirs)


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": ("x", np.float32(2)), "c": 5})
    assert isinstance(out["a"], minflow.Tensor) and out["a"].dtype == minflow.int64
    assert out["b"][0] == "x" and out["b"][1].dtype == minflow.float32
    assert out["c"] == 5
    strings = np.array(["a"])
    assert default_convert(strings) is strings
