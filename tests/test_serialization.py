import collections
import io
import json
import math
import os
import pickle
import struct
import time
import zlib

import numpy as np
import pytest

import minflow
from minflow import serialization
from minflow.serialization import SerializationError

DTYPES = [minflow.bool, minflow.int32, minflow.int64, minflow.float16, minflow.float32,
          minflow.float64]
SHAPES = [(), (0,), (1,), (5,), (2, 3), (0, 4), (2, 1, 3, 2)]


def _round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    minflow.save(obj, buffer)
    buffer.seek(0)
    return minflow.load(buffer, **load_kwargs)


def _random(shape, dtype):
    values = np.random.default_rng(0).normal(size=shape) * 100
    return minflow.as_tensor(values.astype(dtype.np))


def _same(a, b):
    assert type(b) is minflow.Tensor
    assert a.dtype == b.dtype and a.shape == b.shape and a.device == b.device
    np.testing.assert_array_equal(np.asarray(a.detach().cpu()), np.asarray(b.detach().cpu()))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_tensor_round_trip(dtype, shape):
    t = _random(shape, dtype)
    _same(t, _round_trip(t))


def test_special_float_values_in_tensors_and_python():
    t = minflow.tensor([math.nan, math.inf, -math.inf, -0.0, 1e-300, 5e-324],
                       dtype=minflow.float64)
    out = _round_trip([t, math.nan, math.inf, -math.inf, -0.0, 0.1, 1e300])
    np.testing.assert_array_equal(out[0].numpy(), t.numpy())
    assert math.isnan(out[1]) and out[2:4] == [math.inf, -math.inf]
    assert math.copysign(1, out[4]) == -1 and out[5:] == [0.1, 1e300]


def test_non_contiguous_views_saved_as_values():
    base = minflow.arange(24).reshape(4, 6).float()
    views = [base.T, base[::2, 1::3], base[:, 2], base.permute(1, 0)[1:, :3]]
    for view, out in zip(views, _round_trip(views)):
        _same(view, out)
        assert out.is_contiguous()


def test_python_values_round_trip_with_types():
    obj = {"int": 3, "big": 2 ** 100, "neg": -7, "float": 2.5, "whole": 1.0, "t": True,
           "f": False, "none": None, "str": "héllo ✓", "empty": "", "list": [1, [2, [3]]],
           "tuple": (1, (2.0, "x")), "empty_list": [], "empty_tuple": (), "empty_dict": {},
           "dtype": minflow.float16, "device": minflow.device("cpu")}
    out = _round_trip(obj)
    assert out == obj
    for key in obj:
        assert type(out[key]) is type(obj[key]), key
    assert type(out["tuple"][1]) is tuple and type(out["whole"]) is float


def test_dict_keys_and_ordered_dict():
    od = collections.OrderedDict([("z", 1), ("a", minflow.ones(1))])
    obj = {0: "int key", -3: "neg", "s": 1, 2.5: "float", None: "none", (1, "a"): "tuple",
           "state": {0: {"step": 4, "exp_avg": minflow.zeros(2)}, 1: {"step": 4}},
           "od": od}
    out = _round_trip(obj)
    assert list(out) == list(obj)
    assert out[0] == "int key" and out[(1, "a")] == "tuple" and out[None] == "none"
    assert list(out["state"]) == [0, 1] and out["state"][0]["step"] == 4
    assert type(out["od"]) is collections.OrderedDict and list(out["od"]) == ["z", "a"]


def test_parameters_load_as_parameters_and_requires_grad_of_leaves_is_kept():
    leaf = minflow.ones(2, requires_grad=True)
    non_leaf = leaf * 2
    obj = {"leaf": leaf, "non_leaf": non_leaf, "plain": minflow.ones(2),
           "param": minflow.nn.Parameter(minflow.ones(3)),
           "frozen": minflow.nn.Parameter(minflow.ones(1), requires_grad=False)}
    out = _round_trip(obj)
    assert out["leaf"].requires_grad and out["leaf"].is_leaf
    assert not out["non_leaf"].requires_grad and not out["plain"].requires_grad
    assert out["non_leaf"].tolist() == [2.0, 2.0]
    for key in ("leaf", "non_leaf", "plain"):
        assert type(out[key]) is minflow.Tensor
    assert type(out["param"]) is minflow.nn.Parameter and out["param"].requires_grad
    assert type(out["frozen"]) is minflow.nn.Parameter and not out["frozen"].requires_grad


def test_python_and_numpy_values_round_trip_as_torch_saves_them():
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    obj = {"set": {1, "a"}, "frozen": frozenset({2}), "bytes": b"\x00\xffab",
           "complex": complex(1.5, float("-inf")), "size": minflow.Size([2, 3]),
           "array": array, "same": array, "scalars": [np.float32(0.1), np.int64(-3), np.bool_(1)]}
    out = _round_trip(obj)
    assert out["set"] == {1, "a"} and out["frozen"] == frozenset({2})
    assert out["bytes"] == b"\x00\xffab" and out["complex"] == complex(1.5, float("-inf"))
    assert type(out["size"]) is minflow.Size and out["size"] == (2, 3)
    assert type(out["array"]) is np.ndarray and out["array"].dtype == np.int16
    np.testing.assert_array_equal(out["array"], array)
    assert out["same"] is out["array"]          # one object saved twice loads as one
    assert [type(v) for v in out["scalars"]] == [np.float32, np.int64, np.bool_]
    assert out["scalars"][0] == np.float32(0.1) and out["scalars"][1] == -3


def test_mmap_load_maps_the_file(tmp_path):
    path = tmp_path / "ckpt.mf"
    minflow.save({"w": minflow.arange(6.0).reshape(2, 3), "n": 3}, path)
    out = minflow.load(path, mmap=True)
    assert out["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and out["n"] == 3
    out["w"].add_(1)                            # copy-on-write: the file is unchanged
    assert minflow.load(path)["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        minflow.load(io.BytesIO(path.read_bytes()), mmap=True)
    data = bytearray(path.read_bytes())
    data[-12] ^= 0xFF                           # a byte of tensor data
    path.write_bytes(bytes(data))
    with pytest.raises(minflow.serialization.SerializationError, match="checksum"):
        minflow.load(path, mmap=True)


def test_same_tensor_twice_loads_as_one_object_but_views_do_not_share():
    t = minflow.arange(4).float()
    out = _round_trip({"a": t, "b": t, "view": t[1:]})
    assert out["a"] is out["b"]
    out["view"][0] = 100.0
    assert out["a"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_paths_pathlike_and_open_files(tmp_path):
    obj = {"w": minflow.ones(3)}
    minflow.save(obj, str(tmp_path / "a.mf"))
    minflow.save(obj, tmp_path / "b.mf")
    with open(tmp_path / "c.mf", "wb") as f:
        minflow.save(obj, f)
        minflow.save([1, 2], f)                   # two objects in one stream
        assert not f.closed
    for name in ("a.mf", "b.mf"):
        assert minflow.load(tmp_path / name)["w"].tolist() == [1.0, 1.0, 1.0]
        assert minflow.load(str(tmp_path / name))["w"].tolist() == [1.0, 1.0, 1.0]
    with open(tmp_path / "c.mf", "rb") as f:
        assert minflow.load(f)["w"].tolist() == [1.0, 1.0, 1.0]
        assert minflow.load(f) == [1, 2]


def test_file_object_without_readinto():
    class ReadOnly:
        def __init__(self, data):
            self._buffer = io.BytesIO(data)

        def read(self, n=-1):
            return self._buffer.read(n)

    buffer = io.BytesIO()
    minflow.save({"w": minflow.arange(5)}, buffer)
    assert minflow.load(ReadOnly(buffer.getvalue()))["w"].tolist() == [0, 1, 2, 3, 4]


def test_new_file_permissions_follow_umask(tmp_path):
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    old = os.umask(0o022)
    try:
        minflow.save(1, tmp_path / "x.mf")
    finally:
        os.umask(old)
    assert (tmp_path / "x.mf").stat().st_mode & 0o777 == 0o644


# -- map_location --------------------------------------------------------------------------

def _saved_on(device_name, tmp_path):
    """A file whose tensor was recorded on ``device_name`` (faked for devices absent here)."""
    t = minflow.arange(3).float()
    t.device = minflow.device(device_name)          # only the recorded name matters
    path = tmp_path / "dev.mf"
    minflow.save({"t": t}, path)
    return path


@pytest.mark.parametrize("map_location", [None, "cpu", minflow.device("cpu"),
                                          {"cpu": "cpu"}, {"cuda:0": "cuda:0"},
                                          lambda t, location: None,
                                          lambda t, location: t])
def test_map_location_to_cpu(map_location):
    out = _round_trip(minflow.ones(2), map_location=map_location)
    assert out.device == minflow.device("cpu") and out.tolist() == [1.0, 1.0]


def test_map_location_callable_gets_cpu_tensor_and_saved_device():
    calls = []

    def move(t, location):
        calls.append((t.device, location))
        return t * 10

    out = _round_trip({"a": minflow.ones(1)}, map_location=move)
    assert calls == [(minflow.device("cpu"), "cpu")] and out["a"].tolist() == [10.0]
    with pytest.raises(TypeError, match="map_location returned str"):
        _round_trip(minflow.ones(1), map_location=lambda t, location: "cpu")


@pytest.mark.skipif(minflow.cuda_is_available(), reason="needs a machine without a GPU")
def test_cuda_tensors_without_gpu(tmp_path):
    path = _saved_on("cuda:0", tmp_path)
    with pytest.raises(RuntimeError, match=r"dev\.mf.*saved on 'cuda:0'.*not available.*"
                                           r"map_location='cpu'"):
        minflow.load(path)
    for map_location in ("cpu", {"cuda:0": "cpu"}, lambda t, location: t):
        out = minflow.load(path, map_location=map_location)
        assert out["t"].device.type == "cpu" and out["t"].tolist() == [0.0, 1.0, 2.0]


def test_device_round_trip(device, tmp_path):
    t = minflow.arange(6, device=device).reshape(2, 3).float()
    by_dtype = {d.name: _random((2, 3), d).to(device) for d in DTYPES}
    leaf = minflow.ones(2, device=device, requires_grad=True)
    path = tmp_path / "t.mf"
    minflow.save({"t": t, "view": t.T, "dtypes": by_dtype, "leaf": leaf}, path)
    out = minflow.load(path)
    assert out["t"].device == t.device and out["t"].tolist() == t.tolist()
    assert out["view"].tolist() == t.T.tolist()
    for name, value in by_dtype.items():
        _same(value, out["dtypes"][name])
    assert out["leaf"].requires_grad and out["leaf"].device == leaf.device
    assert minflow.load(path, map_location="cpu")["t"].device.type == "cpu"
    saved_on = str(t.device)                   # the name as minflow gives it: "cuda" stays so
    assert minflow.load(path, map_location={saved_on: "cpu"})["t"].device.type == "cpu"
    locations = set()
    minflow.load(path, map_location=lambda t, location: locations.add(location))
    assert locations == {saved_on}
    cpu_file = tmp_path / "cpu.mf"
    minflow.save(t.cpu(), cpu_file)
    assert minflow.load(cpu_file, map_location=device).device.type == device


# -- atomic writes ---------------------------------------------------------------------------

def _old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.mf"
    minflow.save({"version": "old"}, path)
    return path, path.read_bytes()


def test_unsaveable_object_leaves_the_old_file(tmp_path):
    path, before = _old_checkpoint(tmp_path)
    obj = {"model": {"w": minflow.ones(1000)}, "opt": {"state": {0: 1, 3: object()}}}
    with pytest.raises(TypeError, match=r"^minflow\.save: cannot save object of type object "
                                        r"at obj\['opt'\]\['state'\]\[3\]"):
        minflow.save(obj, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.mf"]


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_failure_mid_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, error):
    path, before = _old_checkpoint(tmp_path)
    real = serialization._little_endian_bytes
    written = []

    def fail_on_second(t):
        if written:
            raise error
        written.append(t)
        return real(t)

    monkeypatch.setattr(serialization, "_little_endian_bytes", fail_on_second)
    with pytest.raises(type(error)):
        minflow.save({"a": minflow.ones(100), "b": minflow.ones(100)}, path)
    assert written and path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.mf"]


def test_failure_at_fsync_leaves_the_old_file(tmp_path, monkeypatch):
    path, before = _old_checkpoint(tmp_path)

    def broken_fsync(fd):
        raise OSError("I/O error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="I/O error"):
        minflow.save({"version": "new"}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.mf"]


def test_successful_save_replaces_the_file(tmp_path):
    path, _ = _old_checkpoint(tmp_path)
    minflow.save({"version": "new"}, path)
    assert minflow.load(path) == {"version": "new"} and os.listdir(tmp_path) == ["ckpt.mf"]


# -- unsupported objects ---------------------------------------------------------------------

Pair = collections.namedtuple("Pair", "a b")


@pytest.mark.parametrize("obj, message", [
    ({"a": [1, {2: object()}]}, r"type object at obj\['a'\]\[1\]\[2\]"),
    ([np.zeros(2, np.uint16)], r"the numpy ndarray of dtype uint16 at obj\[0\]"),
    ({"p": Pair(1, 2)}, r"type Pair at obj\['p'\]"),
    ((1, np.str_("a")), r"the numpy str_ of dtype <U1 at obj\[1\]"),
    (collections.defaultdict(int), "type defaultdict at obj;"),
    ({0: {"f": len}}, r"type builtin_function_or_method at obj\[0\]\['f'\]"),
    ({frozenset(): 1}, r"dict key of type frozenset at obj\[frozenset\(\)\]"),
])
def test_unsupported_types_name_the_path(obj, message):
    with pytest.raises(TypeError, match=message):
        _round_trip(obj)


def test_reference_cycle_is_an_error():
    a = [1]
    a.append({"back": a})
    with pytest.raises(ValueError, match=r"obj\[1\]\['back'\] contains itself"):
        _round_trip(a)
    shared = [1]
    assert _round_trip([shared, shared]) == [[1], [1]]    # repeated, not cyclic: fine


def test_meta_tensor_is_an_error():
    with pytest.raises(TypeError, match=r"meta tensor at obj\['m'\]"):
        _round_trip({"m": minflow.ones(2, device="meta")})


# -- bad files -------------------------------------------------------------------------------

@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.mf"
    minflow.save({"w": minflow.arange(100).float(), "b": minflow.ones(3), "step": 7}, path)
    return path


def test_truncated_files_fail_clearly(good_file, tmp_path):
    data = good_file.read_bytes()
    bad = tmp_path / "cut.mf"
    for size in list(range(0, 200, 7)) + list(range(200, len(data), 97)) + [len(data) - 1]:
        bad.write_bytes(data[:size])
        with pytest.raises(SerializationError, match="cut.mf"):
            minflow.load(bad)
        with pytest.raises(SerializationError, match="truncated|empty"):
            minflow.load(io.BytesIO(data[:size]))


def test_corrupt_bytes_fail_clearly(good_file, tmp_path):
    data = bytearray(good_file.read_bytes())
    bad = tmp_path / "bad.mf"
    header_end = struct.unpack("<Q", data[12:20])[0] + 24
    for position, message in [(0, "not a minflow checkpoint"), (30, "header's checksum"),
                              (header_end + 100, "data's checksum"),
                              (len(data) - 6, "data's checksum"),
                              (len(data) - 2, "end marker")]:
        corrupt = bytearray(data)
        corrupt[position] ^= 0xFF
        bad.write_bytes(corrupt)
        with pytest.raises(SerializationError, match=f"bad.mf.*{message}"):
            minflow.load(bad)


def test_newer_format_version(good_file):
    data = bytearray(good_file.read_bytes())
    data[8:12] = struct.pack("<I", 99)
    with pytest.raises(SerializationError, match="format version 99, newer"):
        minflow.load(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"hello, world\n" * 10, "starts with b'hello, w'"),
    (pickle.dumps({"a": 1}), "Python pickle"),
    (b"PK\x03\x04rest-of-a-zip", "zip archive"),
])
def test_foreign_files(tmp_path, content, message):
    path = tmp_path / "foreign.bin"
    path.write_bytes(content)
    with pytest.raises(SerializationError, match=f"foreign.bin.*not a minflow checkpoint.*"
                                                 f"{message}"):
        minflow.load(path)


def test_numpy_and_torch_files(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3))
    with pytest.raises(SerializationError, match="numpy .npy"):
        minflow.load(tmp_path / "a.npy")
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.zeros(2)}, tmp_path / "model.pt")
    with pytest.raises(SerializationError, match=r"model\.pt.*torch\.save"):
        minflow.load(tmp_path / "model.pt")


def _file_with_header(header, data=b""):
    """A file with a valid prelude and checksums around a hand-made header."""
    text = json.dumps(header).encode()
    prelude = struct.pack("<8sIQI", serialization.MAGIC, 1, len(text), zlib.crc32(text))
    pad = bytes(-(len(prelude) + len(text)) % 64)
    return io.BytesIO(prelude + text + pad + data +
                      struct.pack("<I4s", zlib.crc32(data), serialization.END))


def _record(**kw):
    record = {"dtype": "float32", "shape": [2], "device": "cpu", "requires_grad": False,
              "offset": 0, "nbytes": 8}
    record.update(kw)
    return record


@pytest.mark.parametrize("header", [
    [],
    {"root": 1},
    {"root": {"tensor": 0}, "tensors": [], "data_size": 0},
    {"root": {"bogus": [1]}, "tensors": [], "data_size": 0},
    {"root": {"list": [1], "tuple": [2]}, "tensors": [], "data_size": 0},
    {"root": {"dict": [[[1], 2]]}, "tensors": [], "data_size": 0},
    {"root": {"device": "tpu"}, "tensors": [], "data_size": 0},
    {"root": 1, "tensors": [_record(dtype="object")], "data_size": 8},
    {"root": 1, "tensors": [_record(shape=[-2])], "data_size": 8},
    {"root": 1, "tensors": [_record(nbytes=4)], "data_size": 8},
    {"root": 1, "tensors": [_record(offset=8)], "data_size": 8},
    {"root": 1, "tensors": [_record(device="gpu")], "data_size": 8},
])
def test_malformed_headers_fail_clearly(header):
    with pytest.raises(SerializationError, match="corrupt"):
        minflow.load(_file_with_header(header, bytes(8 if header and "tensors" in header
                                                     and header["tensors"] else 0)))


def test_load_never_unpickles(good_file, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    assert minflow.load(good_file)["step"] == 7


def test_large_tensor_round_trip_is_fast(tmp_path):
    t = minflow.rand(50 * 2 ** 20 // 4)                    # 50 MB of float32
    path = tmp_path / "big.mf"
    start = time.perf_counter()
    minflow.save({"t": t}, path)
    out = minflow.load(path)
    elapsed = time.perf_counter() - start
    np.testing.assert_array_equal(out["t"].numpy(), t.numpy())
    assert path.stat().st_size < 50 * 2 ** 20 + 4096
    assert elapsed < 10, f"50 MB save + load took {elapsed:.1f} s"


def test_huge_claimed_size_fails_before_allocating():
    header = {"root": {"tensor": 0}, "tensors": [_record(shape=[2 ** 40], nbytes=2 ** 42)],
              "data_size": 2 ** 42}
    with pytest.raises(SerializationError, match="truncated: its tensor data needs"):
        minflow.load(_file_with_header(header, bytes(8)))


def test_torch_pickle_options_are_accepted_or_refused_clearly(tmp_path):
    path = tmp_path / "ckpt.mf"
    minflow.save({"w": minflow.ones(1)}, path, pickle_protocol=4,
                 _use_new_zipfile_serialization=False)
    assert minflow.load(path)["w"].tolist() == [1.0]
    with pytest.raises(ValueError, match="pickle_module is not supported"):
        minflow.save({}, path, pickle_module=pickle)
    with pytest.raises(ValueError, match="pickle_module is not supported"):
        minflow.load(path, pickle_module=pickle)
