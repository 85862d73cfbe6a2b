"""``minflow.save`` / ``minflow.load``: checkpoints in a safe format (no pickle, no code runs).

A file is::

    prelude   MAGIC (8 bytes), format version (u32), header length (u64), header crc32 (u32)
    header    UTF-8 JSON: {"root": <the object>, "tensors": [records], "data_size": n};
              a record is {"dtype", "shape", "device", "requires_grad", "offset", "nbytes"}
    padding   zeros up to a multiple of 64 bytes from the start of the checkpoint
    data      each tensor's bytes, C order, little-endian, at a 64-byte aligned offset
    trailer   crc32 of the data (u32), END (4 bytes)

In the header, JSON null, true/false, ints, finite floats and strings stand for themselves;
anything else is an object with one tag key: {"list": [...]}, {"tuple": [...]},
{"dict": [[key, value], ...]}, {"odict": [...]} (OrderedDict), {"set": [...]},
{"frozenset": [...]}, {"tensor": i} (record i), {"float": "nan" | "inf" | "-inf"},
{"complex": [re, im]}, {"bytes": "<base64>"}, {"size": [...]} (minflow.Size),
{"dtype": "float32"}, {"device": "cuda:0"}, {"ndarray": i} (record i, loaded as a numpy
array), {"npscalar": ["float32", value]} (a numpy scalar).

What is kept: container types and key types (str, int and other supported scalars), tensor
dtype, shape, values, recorded device, ``requires_grad`` of leaf tensors, and whether a
tensor is an ``nn.Parameter``. Views are saved as their values: shared storage is not
preserved, except that one tensor object saved twice loads as one object. Objects of other
classes (a whole module, a namedtuple) are refused: loading them would run their code.
"""
import base64
import json
import math
import os
import secrets
import struct
import zlib
from collections import OrderedDict

import numpy as np

from .core import dtype as dtypes
from .core.device import Device, check_available, to_numpy
from .core.namespace import F
from .core.tensor import Size, Tensor

__all__ = ["save", "load", "SerializationError"]

MAGIC = b"\x89MINFLW\n"
VERSION = 2            # 2 added sets, bytes, complex, Size, numpy values and parameters
_READABLE = (1, 2)
END = b"MFND"
ALIGN = 64
_PRELUDE = struct.Struct("<8sIQI")
_TRAILER = struct.Struct("<I4s")
_FOREIGN = [(b"PK\x03\x04", "a zip archive (a torch.save file?)"),
            (b"\x80", "a Python pickle (torch.save's legacy format?)"),
            (b"\x93NUMPY", "a numpy .npy file")]


class SerializationError(RuntimeError):
    """A file that ``minflow.load`` cannot read: foreign, truncated or corrupt."""


# -- save --------------------------------------------------------------------------------

def save(obj, f, pickle_module=None, pickle_protocol=None,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` (nested dicts, lists, tuples, tensors, numbers, strings, None) to ``f``.

    ``f`` is a path (str or os.PathLike), written atomically: the data goes to a temporary
    file in the same directory, is flushed to disk, then renamed onto ``f``, so a failed
    save never leaves a partial file under that name. ``f`` may also be a binary file object.
    torch's pickle and zipfile options are accepted and have no effect (the format has no
    pickle; a ``pickle_module`` is refused).

    >>> import io
    >>> buffer = io.BytesIO()
    >>> minflow.save({"w": minflow.ones(2), "step": 3, "lr": [0.1, 0.01]}, buffer)
    >>> _ = buffer.seek(0)
    >>> minflow.load(buffer)
    {'w': tensor([1., 1.]), 'step': 3, 'lr': [0.1, 0.01]}
    """
    _no_pickle(pickle_module, "save")
    encoder = _Encoder()
    header = encoder.header(obj)
    if not isinstance(f, (str, os.PathLike)):
        _write(f, header, encoder.tensors)
        return
    path = os.fspath(f)
    directory, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
    # os.open with mode 0o666 lets the umask decide permissions, as open() would
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            _write(out, header, encoder.tensors)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX); not possible, nor needed, on Windows."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _Encoder:
    """Turns an object into its JSON header, collecting the tensors it holds."""

    def __init__(self):
        self.tensors = []               # (tensor, record)
        self._tensor_index = {}         # id(tensor) -> record index
        self._open = set()              # ids of the containers being encoded (cycles)
        self._keep = []
        self._size = 0

    def header(self, obj):
        root = self.encode(obj, "obj")
        return {"root": root, "tensors": [record for _, record in self.tensors],
                "data_size": self._size}

    def encode(self, obj, where):
        kind = type(obj)
        if obj is None or kind in (bool, int, str):
            return obj
        if kind is float:
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return {"tensor": self._add_tensor(obj, where)}
        if isinstance(obj, dtypes.DType):
            return {"dtype": obj.name}
        if kind is Device:
            return {"device": str(obj)}
        if kind is complex:
            return {"complex": [self.encode(obj.real, where), self.encode(obj.imag, where)]}
        if kind is bytes:
            return {"bytes": base64.b64encode(obj).decode("ascii")}
        if kind is Size:
            return {"size": list(obj)}
        if kind is np.ndarray or isinstance(obj, np.generic):
            return self._encode_numpy(obj, where)
        if kind in (set, frozenset):
            return {kind.__name__: [self.encode(x, f"{where}{{...}}") for x in obj]}
        if kind in (list, tuple, dict, OrderedDict):
            if id(obj) in self._open:
                raise ValueError(f"minflow.save: {where} contains itself (a reference "
                                 f"cycle); cannot save it")
            self._open.add(id(obj))
            try:
                return self._encode_container(obj, kind, where)
            finally:
                self._open.discard(id(obj))
        raise TypeError(f"minflow.save: cannot save object of type {kind.__name__} at "
                        f"{where}; supported: tensors, numpy arrays and scalars, dict, "
                        f"OrderedDict, list, tuple, set, int, float, complex, bool, str, "
                        f"bytes, None, minflow dtypes, devices and Sizes (save a module's "
                        f"state_dict(), not the module)")

    def _encode_numpy(self, obj, where):
        try:
            dtype = dtypes.from_numpy_dtype(obj.dtype)
        except TypeError:
            raise TypeError(f"minflow.save: cannot save the numpy {type(obj).__name__} of "
                            f"dtype {obj.dtype} at {where}: no minflow dtype holds it") from None
        if isinstance(obj, np.generic):
            return {"npscalar": [dtype.name, self.encode(obj.item(), where)]}
        return {"ndarray": self._add_tensor(Tensor._make(np.ascontiguousarray(obj), dtype,
                                                          Device("cpu")), where, keep=obj)}

    def _encode_container(self, obj, kind, where):
        if kind in (list, tuple):
            items = [self.encode(x, f"{where}[{i}]") for i, x in enumerate(obj)]
            return {kind.__name__: items}
        items = []
        for key, value in obj.items():
            key_path = f"{where}[{key!r}]"
            if type(key) not in (str, int, float, bool, tuple) and key is not None:
                raise TypeError(f"minflow.save: cannot save a dict key of type "
                                f"{type(key).__name__} at {key_path}; keys must be str, "
                                f"int, float, bool, None or tuples of these")
            items.append([self.encode(key, f"key of {key_path}"),
                          self.encode(value, key_path)])
        return {"odict" if kind is OrderedDict else "dict": items}

    def _add_tensor(self, t, where, keep=None):
        """The record index of ``t``; ``keep``: the object whose id stands for it (a numpy
        array saved through a tensor made here)."""
        key = id(t if keep is None else keep)
        if key in self._tensor_index:
            return self._tensor_index[key]
        if t.device.type == "meta":
            raise TypeError(f"minflow.save: cannot save the meta tensor at {where}: it has "
                            f"no data")
        offset = -(-self._size // ALIGN) * ALIGN
        nbytes = t.numel() * t.dtype.itemsize
        record = {"dtype": t.dtype.name, "shape": list(t.shape), "device": str(t.device),
                  "requires_grad": t.requires_grad and t.is_leaf,
                  "offset": offset, "nbytes": nbytes}
        if type(t).__name__ == "Parameter":
            record["parameter"] = True
        self._size = offset + nbytes
        self._tensor_index[key] = len(self.tensors)
        self.tensors.append((t, record))
        self._keep.append(keep)             # alive while its id is a key
        return self._tensor_index[key]


def _write(out, header, tensors):
    text = json.dumps(header, allow_nan=False, separators=(",", ":")).encode("utf-8")
    out.write(_PRELUDE.pack(MAGIC, VERSION, len(text), zlib.crc32(text)))
    out.write(text)
    position = _PRELUDE.size + len(text)
    out.write(bytes(_padding(position)))
    crc, written = 0, 0
    for t, record in tensors:
        gap = bytes(record["offset"] - written)
        out.write(gap)
        data = _little_endian_bytes(t)
        out.write(data)
        crc = zlib.crc32(data, zlib.crc32(gap, crc))
        written = record["offset"] + record["nbytes"]
    out.write(_TRAILER.pack(crc, END))


def _padding(position):
    return -position % ALIGN


def _little_endian_bytes(t):
    """The tensor's values as a flat uint8 array (no copy for contiguous cpu tensors)."""
    array = np.ascontiguousarray(to_numpy(t._data))
    array = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return array.reshape(-1).view(np.uint8)


# -- load --------------------------------------------------------------------------------

def _no_pickle(pickle_module, where):
    if pickle_module is not None:
        raise ValueError(f"minflow.{where}: pickle_module is not supported: minflow's "
                         f"checkpoints hold data only, never pickles")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None):
    """Load an object saved by ``minflow.save`` from a path or a binary file object.

    ``map_location`` decides where tensors go, as in torch: None (the device each was
    saved from; an error if that is not available here), a device or its name (all
    tensors there), a dict mapping saved device names to new ones (``{"cuda:1":
    "cuda:0"}``), or a callable ``fn(cpu_tensor, saved_device_name)`` returning the tensor
    to use, or None for the default. The format holds only data, so loading never runs
    code; ``weights_only`` is accepted for torch compatibility and changes nothing.
    ``mmap=True`` (``f`` a path) maps the file instead of reading it: cpu tensors are
    copy-on-write views of its pages (the checksum is still verified).

    >>> import io, collections
    >>> buffer = io.BytesIO()
    >>> state = collections.OrderedDict(bias=minflow.zeros(2, dtype=minflow.float16))
    >>> minflow.save({"model": state, "opt": {0: {"step": 10}}}, buffer)
    >>> _ = buffer.seek(0)
    >>> out = minflow.load(buffer, map_location="cpu")
    >>> type(out["model"]).__name__, out["model"]["bias"], out["opt"]
    ('OrderedDict', tensor([0., 0.], dtype=minflow.float16), {0: {'step': 10}})
    """
    _no_pickle(pickle_module, "load")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            reader = _Reader(stream, repr(os.fspath(f)))
            reader.mapped_path = os.fspath(f) if mmap else None
            return reader.load(map_location)
    if mmap:
        raise ValueError("minflow.load: f must be a file path in order to use the mmap "
                         "argument")
    name = getattr(f, "name", None)
    return _Reader(f, repr(name) if isinstance(name, str) else "<file object>").load(
        map_location)


class _Reader:
    """Reads one file; every error names the file and what is wrong with it."""

    mapped_path = None      # read the tensor data by mapping this file (mmap=True)

    def __init__(self, stream, name):
        self.stream, self.name = stream, name

    def fail(self, problem):
        return SerializationError(f"minflow.load: {self.name} {problem}")

    def load(self, map_location):
        header = self._read_header()
        try:
            records, data_size = header["tensors"], header["data_size"]
            root = header["root"]
            arrays = self._read_data(records, data_size)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise self.fail(f"is corrupt: malformed header ({err!r})") from None
        tensors = [_place(array, record, map_location, self.name)
                   for array, record in zip(arrays, records)]
        try:
            return _decode(root, tensors)
        except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as err:
            raise self.fail(f"is corrupt: malformed header ({err!r})") from None

    def _read_exact(self, size, what):
        data = self.stream.read(size)
        if len(data) != size:
            raise self.fail(f"is truncated: expected {size} bytes of {what}, got {len(data)}")
        return data

    def _read_header(self):
        prelude = self.stream.read(_PRELUDE.size)
        if prelude and MAGIC.startswith(prelude):
            raise self.fail("is truncated: it ends inside the magic string")
        if prelude[:len(MAGIC)] != MAGIC:
            raise self.fail(f"is not a minflow checkpoint: {_describe(prelude)}")
        if len(prelude) < _PRELUDE.size:
            raise self.fail(f"is truncated: it ends inside the {_PRELUDE.size}-byte prelude")
        _, version, length, crc = _PRELUDE.unpack(prelude)
        if version not in _READABLE:
            newer = "newer than this minflow reads; upgrade minflow" if version > VERSION \
                else "which does not exist"
            raise self.fail(f"has format version {version}, {newer} (expected one of "
                            f"{list(_READABLE)})")
        self._check_size(length, "header")
        text = self._read_exact(length, "header")
        if zlib.crc32(text) != crc:
            raise self.fail("is corrupt: the header's checksum does not match")
        try:
            header = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            raise self.fail(f"is corrupt: unreadable header ({err})") from None
        if not isinstance(header, dict):
            raise self.fail("is corrupt: the header is not a JSON object")
        self._read_exact(_padding(_PRELUDE.size + length), "padding")
        return header

    def _check_size(self, needed, what):
        """Fail before allocating if the stream holds fewer bytes than the header claims."""
        try:
            if not self.stream.seekable():
                return
            here = self.stream.tell()
            left = self.stream.seek(0, os.SEEK_END) - here
            self.stream.seek(here)
        except (AttributeError, OSError, ValueError):
            return                       # a pipe or a minimal file object: reads will tell
        if left < needed:
            raise self.fail(f"is truncated: its {what} needs {needed} more bytes, only "
                            f"{left} are left")

    def _read_data(self, records, data_size):
        self._check_size(data_size + _TRAILER.size, "tensor data")
        if self.mapped_path is not None:
            return self._map_data(records, data_size)
        arrays, position, crc = [], 0, 0
        for i, record in enumerate(records):
            array = _empty_array(record, i)
            if record["offset"] < position or record["offset"] + array.nbytes > data_size:
                raise ValueError(f"tensor {i} lies outside the data section")
            crc = zlib.crc32(self._read_exact(record["offset"] - position, "padding"), crc)
            view = array.reshape(-1).view(np.uint8)
            self._read_into(view, f"data of tensor {i}")
            crc = zlib.crc32(view, crc)
            position = record["offset"] + array.nbytes
            arrays.append(array.astype(array.dtype.newbyteorder("="), copy=False))
        crc = zlib.crc32(self._read_exact(data_size - position, "padding"), crc)
        self._check_trailer(self._read_exact(_TRAILER.size, "trailer"), crc)
        return arrays

    def _map_data(self, records, data_size):
        """The tensors as copy-on-write views of the mapped data section."""
        mapped = np.memmap(self.mapped_path, np.uint8, "c", self.stream.tell(),
                           (data_size + _TRAILER.size,))
        arrays = []
        for i, record in enumerate(records):
            shape, dtype = _layout(record, i)
            start, end = record["offset"], record["offset"] + record["nbytes"]
            if start < 0 or end > data_size:
                raise ValueError(f"tensor {i} lies outside the data section")
            array = mapped[start:end].view(dtype).reshape(shape)
            arrays.append(array.astype(array.dtype.newbyteorder("="), copy=False))
        self._check_trailer(bytes(mapped[data_size:]), zlib.crc32(mapped[:data_size]))
        return arrays

    def _check_trailer(self, trailer, crc):
        stored_crc, end = _TRAILER.unpack(trailer)
        if end != END:
            raise self.fail("is corrupt: the end marker is missing")
        if stored_crc != crc:
            raise self.fail("is corrupt: the tensor data's checksum does not match")

    def _read_into(self, view, what):
        readinto = getattr(self.stream, "readinto", None)
        if readinto is None:
            view[:] = np.frombuffer(self._read_exact(view.size, what), np.uint8)
            return
        got = 0
        while got < view.size:
            n = readinto(memoryview(view[got:]))
            if not n:
                raise self.fail(f"is truncated: expected {view.size} bytes of {what}, "
                                f"got {got}")
            got += n


def _describe(start):
    if not start:
        return "the file is empty"
    for magic, what in _FOREIGN:
        if start.startswith(magic):
            return f"it looks like {what}"
    return f"it starts with {start[:8]!r}, not {MAGIC!r}"


def _layout(record, i):
    """(shape, little-endian numpy dtype) of record ``i``, checked."""
    name, shape = record["dtype"], record["shape"]
    if type(record["requires_grad"]) is not bool:
        raise ValueError(f"tensor {i} has a non-boolean requires_grad")
    try:
        Device(record["device"])
    except RuntimeError:
        raise ValueError(f"tensor {i} has unknown device {record['device']!r}") from None
    if name not in {d.name for d in dtypes.EVERY}:
        raise ValueError(f"tensor {i} has unknown dtype {name!r}")
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise ValueError(f"tensor {i} has invalid shape {shape!r}")
    dtype = dtypes.as_dtype(name).np.newbyteorder("<")
    if math.prod(shape) * dtype.itemsize != record["nbytes"]:
        raise ValueError(f"tensor {i}: {record['nbytes']} bytes do not fit shape {shape}")
    return shape, dtype


def _empty_array(record, i):
    return np.empty(*_layout(record, i))


def _place(array, record, map_location, file_name):
    """The loaded tensor, on the device ``map_location`` picks for it."""
    saved = record["device"]
    t = F.from_numpy(array)
    if callable(map_location) and not isinstance(map_location, (str, Device)):
        placed = map_location(t, saved)
        if placed is not None and not isinstance(placed, Tensor):
            raise TypeError(f"minflow.load: map_location returned {type(placed).__name__} "
                            f"for a tensor saved on {saved!r}; expected a Tensor or None")
        target = saved if placed is None else None
        t = t if placed is None else placed
    elif isinstance(map_location, dict):
        target = map_location.get(saved, saved)
    else:
        target = saved if map_location is None else map_location
    if target is not None:
        t = _to_device(t, Device(target), saved, file_name)
    if record.get("parameter"):
        from .nn.parameter import Parameter
        return Parameter(t, requires_grad=record["requires_grad"])
    if record["requires_grad"] and t.is_leaf and t.dtype.is_floating_point:
        t.requires_grad_(True)
    return t


def _to_device(t, device, saved, file_name):
    if device.type == "cpu":
        return t
    try:
        check_available(device)
    except RuntimeError as err:
        raise RuntimeError(f"minflow.load: {file_name} holds a tensor saved on {saved!r}, "
                           f"to be loaded on {str(device)!r}, which is not available here "
                           f"({err}); pass map_location='cpu' to load it on the cpu") from None
    return t.to(device)


def _decode(node, tensors):
    if node is None or type(node) in (bool, int, float, str):
        return node
    if not isinstance(node, dict) or len(node) != 1:
        raise ValueError(f"expected a value or a one-key tagged object, got {node!r:.60}")
    (tag, value), = node.items()
    if tag == "list":
        return [_decode(x, tensors) for x in value]
    if tag == "tuple":
        return tuple(_decode(x, tensors) for x in value)
    if tag in ("dict", "odict"):
        pairs = ((_decode(k, tensors), _decode(v, tensors)) for k, v in value)
        return OrderedDict(pairs) if tag == "odict" else dict(pairs)
    if tag == "tensor":
        return tensors[value]
    if tag == "float" and value in ("nan", "inf", "-inf"):
        return float(value)
    if tag == "dtype":
        return dtypes.as_dtype(value)
    if tag == "device":
        return Device(value)
    if tag in ("set", "frozenset"):
        items = (_decode(x, tensors) for x in value)
        return set(items) if tag == "set" else frozenset(items)
    if tag == "complex":
        return complex(_decode(value[0], tensors), _decode(value[1], tensors))
    if tag == "bytes":
        return base64.b64decode(value.encode("ascii"), validate=True)
    if tag == "size":
        return Size(value)
    if tag == "ndarray":
        return to_numpy(tensors[value].detach()._data)
    if tag == "npscalar":
        return dtypes.as_dtype(value[0]).np.type(_decode(value[1], tensors))
    raise ValueError(f"unknown tag {tag!r}")
