"""MXNet 1.x's binary NDArray format: ``mx.nd.save``/``mx.nd.load``, Gluon's ``.params``
files and ``NDArray.__getstate__``/``__setstate__``.

A file (little-endian) is::

    uint64 0x112 (list magic), uint64 0 (reserved)
    uint64 n, then n arrays
    uint64 m, then m names (uint64 length + UTF-8 bytes); m is 0 for a list, n for a dict

and one array (MXNet's ``NDArray::Save``, V2 layout) is::

    uint32 0xF993FAC9 (V2; 0xF993FACA is V3, NumPy-shape semantics), int32 storage type
    uint32 ndim, int64 dims[ndim]        (ndim 0: an empty array, nothing follows)
    int32 device type, int32 device id   (1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared)
    int32 dtype flag, then the raw little-endian data, C order

Under ``mx.np_shape()`` arrays are written as V3 (0-d arrays kept 0-d); as in MXNet, a
V3 array loads only under ``np_shape`` and a V2 or older one only outside it. Bad or
truncated data raises ``FormatError`` (a ValueError and an ``MXNetError``).
Files written before V2 (legacy, "V1") start an array directly with ``uint32 ndim`` and
``uint32`` dims; they are read too. Arrays saved from a GPU load on the CPU. Only dense
storage (type 0) is supported: a sparse array in a file is refused with an error naming
it. Writing goes to a temp file renamed into place.
"""
import os
import struct

import numpy as np

from ..base import mxnet_error_type
from ..util import is_np_shape

__all__ = ["save", "load", "save_bytes", "load_bytes", "array_bytes", "array_from_bytes"]

LIST_MAGIC = 0x112
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA
_DTYPES = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8,
           6: np.int64, 7: np.bool_, 8: np.int16, 9: np.uint16, 10: np.uint32, 11: np.uint64}
_FLAGS = {np.dtype(v): k for k, v in _DTYPES.items()}
_STYPES = {1: "row_sparse", 2: "csr"}
# bad or truncated data: a ValueError that is also MXNet's MXNetError, as MXNet raises
FormatError = mxnet_error_type(ValueError)


class _Reader:
    def __init__(self, buf, what):
        self.buf = memoryview(buf)
        self.pos = 0
        self.what = what

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.buf):
            raise FormatError(f"{self.what}: truncated MXNet NDArray data (needed {size} bytes "
                             f"at offset {self.pos}, {len(self.buf) - self.pos} left)")
        out = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return out

    def raw(self, n):
        if self.pos + n > len(self.buf):
            raise FormatError(f"{self.what}: truncated MXNet NDArray data ({n} bytes of "
                             f"values at offset {self.pos}, {len(self.buf) - self.pos} left)")
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out


def _np_of(value):
    data = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    if data.dtype not in _FLAGS:
        raise ValueError(f"dtype {data.dtype} has no MXNet type flag; use one of "
                         + ", ".join(str(d) for d in _FLAGS))
    return data


def array_bytes(value, device=(1, 0)):
    """One array in MXNet's V2 layout, or V3 under ``mx.np_shape()`` (as MXNet writes
    them; ``value``: an NDArray or numpy array)."""
    data = _np_of(value)
    if is_np_shape():
        magic, shape = V3_MAGIC, data.shape
    else:
        magic, shape = V2_MAGIC, data.shape if data.ndim else (1,)   # never 0-d in 1.x
    head = struct.pack("<IiI", magic, 0, len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
    head += struct.pack("<iii", device[0], device[1], _FLAGS[data.dtype])
    return head + np.ascontiguousarray(data, dtype=data.dtype.newbyteorder("<")).tobytes()


def _check_shape_semantics(r, magic):
    """MXNet's rule: a V3 array (NumPy shape semantics) loads only under
    ``mx.np_shape()``, any other only outside it."""
    if magic == V3_MAGIC and not is_np_shape():
        raise FormatError(f"{r.what}: the array was saved in np shape semantics and must "
                          "be loaded in them: load it inside `with mx.np_shape(True):`")
    if magic != V3_MAGIC and is_np_shape():
        raise FormatError(f"{r.what}: the array was not saved in np shape semantics but is "
                          "loaded in them: load it inside `with mx.np_shape(False):`")


def _read_array(r):
    (magic,) = r.take("<I")
    _check_shape_semantics(r, magic)
    if magic in (V2_MAGIC, V3_MAGIC):
        (stype,) = r.take("<i")
        if stype != 0:
            name = _STYPES.get(stype, f"storage type {stype}")
            raise NotImplementedError(f"{r.what}: a {name} array: sparse storage is not "
                                      "supported by xprof; only dense arrays")
        (ndim,) = r.take("<i")
        if ndim < 0:        # V3's unknown shape: MXNet loads an empty array
            return np.zeros((0,), np.float32)
        shape = r.take(f"<{ndim}q") if ndim else ()
        if ndim == 0 and magic == V2_MAGIC:
            return np.zeros((0,), np.float32)
    else:      # legacy: the word read is ndim, dims are uint32
        ndim = magic
        if ndim > 32:
            raise FormatError(f"{r.what}: not MXNet NDArray data (array header 0x{magic:08x})")
        shape = r.take(f"<{ndim}I") if ndim else ()
        if ndim == 0:
            return np.zeros((0,), np.float32)
    _dev_type, _dev_id, flag = r.take("<iii")
    if flag not in _DTYPES:
        raise FormatError(f"{r.what}: unknown MXNet dtype flag {flag}")
    dtype = np.dtype(_DTYPES[flag]).newbyteorder("<")
    count = int(np.prod(shape)) if shape else 1
    values = np.frombuffer(r.raw(count * dtype.itemsize), dtype=dtype, count=count)
    return values.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def array_from_bytes(buf, what="NDArray state"):
    """The numpy array of one array in MXNet's layout (V1, V2 or V3)."""
    return _read_array(_Reader(buf, what))


def save_bytes(data):
    """The bytes of ``mx.nd.save``: ``data`` is an array, a list of arrays or a dict
    of name -> array."""
    if isinstance(data, dict):
        names = list(data)
        for k in names:
            if not isinstance(k, str):
                raise ValueError(f"save: key {k!r} is not a string")
        arrays = [data[k] for k in names]
    elif isinstance(data, (list, tuple)):
        names, arrays = [], list(data)
    else:
        names, arrays = [], [data]
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    parts.extend(array_bytes(a) for a in arrays)
    parts.append(struct.pack("<Q", len(names)))
    for k in names:
        b = k.encode("utf-8")
        parts.append(struct.pack("<Q", len(b)) + b)
    return b"".join(parts)


def load_bytes(buf, what="buffer"):
    """Arrays from ``mx.nd.save`` bytes: a list, or a dict when the file has names."""
    r = _Reader(buf, what)
    magic, _reserved = r.take("<QQ")
    if magic != LIST_MAGIC:
        raise FormatError(f"{what}: not an MXNet NDArray file (magic 0x{magic:x}, expected "
                         f"0x{LIST_MAGIC:x})")
    (n,) = r.take("<Q")
    arrays = [_read_array(r) for _ in range(n)]
    (m,) = r.take("<Q")
    if m == 0:
        return arrays
    if m != n:
        raise FormatError(f"{what}: {n} arrays but {m} names")
    names = []
    for _ in range(m):
        (length,) = r.take("<Q")
        names.append(bytes(r.raw(length)).decode("utf-8"))
    return dict(zip(names, arrays))


def save(fname, data):
    """Write ``data`` to ``fname`` in MXNet's format (temp file, then rename)."""
    blob = save_bytes(data)
    tmp = f"{fname}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, fname)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def is_mxnet_file(head):
    return len(head) >= 8 and struct.unpack_from("<Q", head)[0] == LIST_MAGIC


def load(fname):
    """The numpy arrays in ``fname`` (a list, or a dict by name)."""
    with open(fname, "rb") as f:
        blob = f.read()
    return load_bytes(blob, fname)
