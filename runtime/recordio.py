"""``mx.recordio``: MXNet's RecordIO files (dmlc-core's format), read and written in
Python so that files made by MXNet's ``im2rec.py``/``MXIndexedRecordIO`` read here and
files written here read in MXNet.

The format: each record is the magic ``0xced7230a``, a 32-bit word holding a
continuation flag (top 3 bits) and a length (low 29 bits), the payload, zero padding to
4 bytes. A payload that holds the magic at a 4-byte boundary is cut there and stored in
parts (flag 1 first, 2 middle, 3 last; the magic itself left out), so that a reader can
always find record starts; reading joins the parts with the magic between them. An
indexed file has a text ``.idx`` beside it: ``key<TAB>byte offset`` per record.

Image records (``pack``/``unpack``) start with MXNet's ``IfQQ`` header (flag, label, id,
id2); a label of several values is stored as ``flag`` float32s after it.
``pack_img``/``unpack_img`` encode and decode with Pillow (the ``image`` extra) and, as
OpenCV does for MXNet, take and give BGR pixel order.
"""
import io
import numbers
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


def _encode_record(buf):
    """The bytes dmlc's writer puts on disk for one record's payload ``buf``."""
    buf = bytes(buf)
    if len(buf) > _LEN_MASK:
        raise ValueError(f"RecordIO: a record holds at most {_LEN_MASK} bytes, got {len(buf)}")
    out = []
    start = 0
    pos = buf.find(_MAGIC_BYTES)
    while pos != -1:
        if pos % 4 == 0:
            out += [_MAGIC_BYTES, struct.pack("<I", ((1 if start == 0 else 2) << 29)
                                              | (pos - start)), buf[start:pos]]
            start = pos + 4
            pos = buf.find(_MAGIC_BYTES, start)
        else:
            pos = buf.find(_MAGIC_BYTES, pos + 1)
    out += [_MAGIC_BYTES, struct.pack("<I", ((3 if start else 0) << 29) | (len(buf) - start)),
            buf[start:], b"\0" * (-len(buf) % 4)]
    return b"".join(out)


class MXRecordIO:
    """A RecordIO file read (``flag='r'``) or written (``'w'``) record after record."""

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._file = None
        self.open()

    def open(self):
        """Opens the file (``'w'`` truncates it)."""
        if self.flag == "w":
            self._file = open(self.uri, "wb")
            self.writable = True
        elif self.flag == "r":
            self._file = open(self.uri, "rb")
            self.writable = False
        else:
            raise ValueError(f"Invalid flag {self.flag}")
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        is_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d["is_open"] = is_open
        d["_file"] = None
        return d

    def __setstate__(self, d):
        self.__dict__ = d
        is_open = d["is_open"]
        self.is_open = False
        if is_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        """A file opened in another process is reopened (``allow_reset``) or refused."""
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self):
        """Closes the file."""
        if not getattr(self, "is_open", False):
            return
        self._file.close()
        self.is_open = False
        self.pid = None

    def reset(self):
        """Back to the first record (a file opened with ``'w'`` is emptied)."""
        self.close()
        self.open()

    def write(self, buf):
        """Appends ``buf`` (bytes) as one record."""
        if not self.writable:
            raise ValueError(f"{self.uri}: opened for reading")
        self._check_pid(allow_reset=False)
        self._file.write(_encode_record(buf))

    def read(self):
        """The next record's bytes, or None at the end of the file."""
        if self.writable:
            raise ValueError(f"{self.uri}: opened for writing")
        self._check_pid(allow_reset=False)
        parts = []
        while True:
            head = self._file.read(8)
            if len(head) < 8:
                if parts or head:
                    raise ValueError(f"{self.uri}: truncated record at the end of the file")
                return None
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise ValueError(f"{self.uri}: invalid RecordIO file (no record starts at "
                                 f"byte {self._file.tell() - 8})")
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            data = self._file.read(length)
            if len(data) < length:
                raise ValueError(f"{self.uri}: truncated record at the end of the file")
            self._file.read(-length % 4)
            parts.append(data)
            if cflag in (0, 3):
                return _MAGIC_BYTES.join(parts)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with its index (``idx_path``: ``key<TAB>offset`` lines): records
    read by key (``read_idx``), written with their key (``write_idx``)."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for line in iter(self.fidx.readline, ""):
                line = line.strip().split("\t")
                key = self.key_type(line[0])
                self.idx[key] = int(line[1])
                self.keys.append(key)

    def close(self):
        if not getattr(self, "is_open", False):
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx):
        """The next ``read`` returns record ``idx``."""
        if self.writable:
            raise ValueError(f"{self.uri}: opened for writing")
        self._check_pid(allow_reset=True)
        self._file.seek(self.idx[idx])

    def tell(self):
        """The byte offset the next written record starts at."""
        if not self.writable:
            raise ValueError(f"{self.uri}: opened for reading")
        return self._file.tell()

    def read_idx(self, idx):
        """Record ``idx``'s bytes."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Appends ``buf`` as record ``idx`` (and its index line)."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """An image record: ``header`` (an ``IRHeader``; a label of several values is stored
    after it) then the bytes ``s``."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """(``IRHeader``, payload bytes) of an image record; a label of ``flag`` values is
    a float32 numpy array."""
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ValueError("pack_img/unpack_img need Pillow: pip install pillow (or "
                         "xprof-mx[image])") from None
    return Image


def unpack_img(s, iscolor=-1):
    """(``IRHeader``, the decoded image as a numpy array in OpenCV's layout): BGR (H, W, 3),
    or (H, W) grey; ``iscolor`` as OpenCV's flag (-1 as stored, 0 grey, 1 colour)."""
    header, s = unpack(s)
    with _pil().open(io.BytesIO(s)) as im:
        if iscolor == 0 or (iscolor < 0 and im.mode in ("L", "1")):
            return header, np.asarray(im.convert("L"))
        if iscolor < 0 and im.mode in ("RGBA", "LA"):
            arr = np.asarray(im.convert("RGBA"))
            return header, np.ascontiguousarray(arr[:, :, [2, 1, 0, 3]])
        arr = np.asarray(im.convert("RGB"))
    return header, np.ascontiguousarray(arr[:, :, ::-1])


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """An image record of ``img`` (a numpy array in OpenCV's BGR order, or grey) encoded
    as JPEG (``quality`` 1-100) or PNG (``quality`` the compression level, clamped to 0-9
    as OpenCV clamps it)."""
    fmt = img_fmt.upper()
    img = np.asarray(img)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim == 3:       # BGR(A) -> RGB(A)
        img = img[:, :, [2, 1, 0, 3] if img.shape[2] == 4 else [2, 1, 0]]
    im = _pil().fromarray(np.ascontiguousarray(img.astype(np.uint8, copy=False)))
    buf = io.BytesIO()
    if fmt in (".JPG", ".JPEG"):
        im.save(buf, format="JPEG", quality=int(quality))
    elif fmt == ".PNG":
        im.save(buf, format="PNG", compress_level=min(max(int(quality), 0), 9))   # as OpenCV
    else:
        raise ValueError(f"pack_img: img_fmt={img_fmt!r} is not allowed; use '.jpg' or '.png'")
    return pack(header, buf.getvalue())
