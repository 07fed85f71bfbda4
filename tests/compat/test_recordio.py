"""``mx.recordio`` against files MXNet 2.0.0b1's C++ writer made (``tests/fixtures/
recordio``): records holding the magic number at 4-byte boundaries are split as dmlc
splits them, so reading gives the payloads back and writing them again gives MXNet's
bytes; the index file, image records' headers (scalar and array labels) and
``pack_img``/``unpack_img`` (OpenCV's BGR order)."""
import os
import pickle
import struct

import numpy as np
import pytest

import xprof.runtime as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "recordio")
MAGIC = struct.pack("<I", 0xCED7230A)
# what tests/fixtures/recordio/plain.rec holds (written by MXNet's MXRecordIO.write)
PLAIN = [b"record_0", b"", b"abc", MAGIC + b"head", b"tail" + MAGIC,
         b"12345678" + MAGIC + b"mid" + MAGIC + b"x" * 5, b"xy" + MAGIC + b"z"]


def _all(reader):
    out = []
    while (rec := reader.read()) is not None:
        out.append(rec)
    return out


def test_reads_mxnets_file_and_writes_the_same_bytes(tmp_path):
    path = os.path.join(FIXTURES, "plain.rec")
    reader = mx.recordio.MXRecordIO(path, "r")
    assert _all(reader) == PLAIN
    reader.reset()
    assert reader.read() == PLAIN[0]
    writer = mx.recordio.MXRecordIO(str(tmp_path / "out.rec"), "w")
    for rec in PLAIN:
        writer.write(rec)
    writer.close()
    assert (tmp_path / "out.rec").read_bytes() == open(path, "rb").read()


def test_indexed_file_reads_by_key_and_round_trips(tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(FIXTURES, "images.idx"),
                                        os.path.join(FIXTURES, "images.rec"), "r")
    assert rec.keys == [10, 11, 12, 13]
    header, payload = mx.recordio.unpack(rec.read_idx(12))
    assert header.flag == 3 and header.id == 102
    np.testing.assert_array_equal(header.label, [1.5, 2.5, 3.5])
    assert payload[:2] == b"\xff\xd8"                          # a JPEG
    header, payload = mx.recordio.unpack(rec.read_idx(13))
    assert (header.flag, header.label, header.id) == (0, 3.0, 103)
    assert payload[:4] == b"\x89PNG"
    out = mx.recordio.MXIndexedRecordIO(str(tmp_path / "o.idx"), str(tmp_path / "o.rec"), "w")
    for key in rec.keys:
        out.write_idx(key, rec.read_idx(key))
    out.close()
    assert (tmp_path / "o.rec").read_bytes() == open(os.path.join(FIXTURES, "images.rec"),
                                                     "rb").read()
    assert (tmp_path / "o.idx").read_text() == open(os.path.join(FIXTURES, "images.idx")).read()
    again = pickle.loads(pickle.dumps(rec))               # reopened where it was opened
    assert again.read_idx(11) == rec.read_idx(11)


def test_pack_img_and_unpack_img_use_bgr_as_opencv(tmp_path):
    pytest.importorskip("PIL")
    bgr = np.zeros((4, 5, 3), np.uint8)
    bgr[..., 0] = 200                                         # blue in OpenCV's order
    s = mx.recordio.pack_img(mx.recordio.IRHeader(0, [1, 2], 7, 0), bgr, img_fmt=".png")
    header, img = mx.recordio.unpack_img(s)
    np.testing.assert_array_equal(header.label, [1, 2])
    np.testing.assert_array_equal(img, bgr)
    _, grey = mx.recordio.unpack_img(s, iscolor=0)
    assert grey.shape == (4, 5)
    rgb = mx.image.imdecode(mx.recordio.unpack(s)[1]).asnumpy()
    assert (rgb[..., 2] == 200).all() and (rgb[..., 0] == 0).all()   # imdecode gives RGB
    with pytest.raises(ValueError, match="img_fmt"):
        mx.recordio.pack_img(mx.recordio.IRHeader(0, 1, 0, 0), bgr, img_fmt=".gif")


def test_bad_files_and_modes_are_named(tmp_path):
    bad = tmp_path / "bad.rec"
    bad.write_bytes(b"not a record file")
    with pytest.raises(ValueError, match="invalid RecordIO"):
        mx.recordio.MXRecordIO(str(bad), "r").read()
    cut = tmp_path / "cut.rec"
    cut.write_bytes(open(os.path.join(FIXTURES, "plain.rec"), "rb").read()[:-6])
    with pytest.raises(ValueError, match="truncated"):
        _all(mx.recordio.MXRecordIO(str(cut), "r"))
    with pytest.raises(ValueError, match="Invalid flag"):
        mx.recordio.MXRecordIO(str(bad), "a")
