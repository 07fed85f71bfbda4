"""``mx.image``: the PNG decoder against images encoded here with every row filter and
colour type, and ``imread``/``imresize``/``center_crop`` as MXNet defines them."""
import struct
import zlib

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.image import png


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _filter(kind, row, prior, bpp):
    """One scanline filtered with ``kind`` (the PNG specification, byte by byte)."""
    out = []
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
        out.append((x - pred) % 256)
    return bytes([kind] + out)


def encode(raw_rows, width, depth, color, filters=(0, 1, 2, 3, 4), palette=None,
           trns=None):
    """A PNG of the packed scanlines ``raw_rows`` (lists of bytes), row y filtered with
    ``filters[y % len(filters)]``."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    bpp = max(1, depth * channels // 8)
    prior = [0] * len(raw_rows[0])
    body = b""
    for y, row in enumerate(raw_rows):
        body += _filter(filters[y % len(filters)], list(row), prior, bpp)
        prior = list(row)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    out = png.SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(raw_rows),
                                                     depth, color, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    if trns is not None:
        out += chunk(b"tRNS", bytes(trns))
    return out + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("color,channels", [(2, 3), (6, 4), (0, 1), (4, 2)])
def test_every_filter_decodes_8_bit_images(color, channels):
    img = np.random.default_rng(color).integers(0, 256, (7, 5, channels), dtype=np.uint8)
    data = encode([r.tobytes() for r in img.reshape(7, -1)], 5, 8, color)
    np.testing.assert_array_equal(png.decode(data), img)


def test_16_bit_palette_and_low_bit_depths():
    rng = np.random.default_rng(1)
    img16 = rng.integers(0, 65536, (3, 4, 3), dtype=np.uint16)
    data = encode([r.astype(">u2").tobytes() for r in img16.reshape(3, -1)], 4, 16, 2)
    np.testing.assert_array_equal(png.decode(data), img16)
    palette = rng.integers(0, 256, (4, 3))
    index = rng.integers(0, 4, (3, 8), dtype=np.uint8)
    rows = [np.packbits(np.unpackbits(r[:, None], axis=1)[:, -2:].reshape(-1)).tobytes()
            for r in index]
    out = png.decode(encode(rows, 8, 2, 3, palette=palette, trns=[10, 20]))
    np.testing.assert_array_equal(out[:, :, :3], palette[index])
    np.testing.assert_array_equal(out[:, :, 3], np.array([10, 20, 255, 255])[index])
    bits = rng.integers(0, 2, (2, 9), dtype=np.uint8)
    rows = [np.packbits(r).tobytes() for r in bits]
    np.testing.assert_array_equal(png.decode(encode(rows, 9, 1, 0))[:, :, 0], bits * 255)


def test_bad_files_are_named(tmp_path):
    with pytest.raises(ValueError, match="not a PNG"):
        png.decode(b"GIF89a....")
    good = encode([bytes(3)], 1, 8, 2)
    with pytest.raises(ValueError, match="truncated|IEND"):
        png.decode(good[:-20])
    path = tmp_path / "x.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 not really")
    try:
        import PIL  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match=r"x\.jpg.*only PNG.*pillow"):
            mx.image.imread(str(path))


def test_imread_gives_rgb_or_grey_hwc_uint8(tmp_path):
    img = np.random.default_rng(2).integers(0, 256, (4, 6, 3), dtype=np.uint8)
    path = tmp_path / "a.png"
    path.write_bytes(encode([r.tobytes() for r in img.reshape(4, -1)], 6, 8, 2))
    a = mx.image.imread(str(path))
    assert type(a) is mx.nd.NDArray and a.dtype == np.uint8
    np.testing.assert_array_equal(a.asnumpy(), img)
    np.testing.assert_array_equal(mx.image.imread(str(path), to_rgb=False).asnumpy(),
                                  img[:, :, ::-1])
    grey = mx.image.imread(str(path), flag=0).asnumpy()
    want = np.rint(img.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32))
    assert grey.shape == (4, 6, 1)
    np.testing.assert_array_equal(grey[:, :, 0], want.astype(np.uint8))
    with mx.util.np_array(True), mx.util.np_shape(True):
        assert isinstance(mx.image.imread(str(path)), mx.np.ndarray)


def test_resize_follows_opencv_pixel_centres():
    img = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
    half = mx.image.resize(img, 2, 2)                     # bilinear: 2x2 block means
    np.testing.assert_allclose(half[:, :, 0], [[2.5, 4.5], [10.5, 12.5]])
    double = mx.image.resize(np.array([[[0.0], [10.0]]], np.float32), 1, 4)
    np.testing.assert_allclose(double[0, :, 0], [0, 2.5, 7.5, 10])
    near = mx.image.resize(img, 2, 2, interp=0)
    np.testing.assert_array_equal(near[:, :, 0], [[0, 2], [8, 10]])
    u8 = mx.image.resize(np.full((3, 3, 3), 200, np.uint8), 5, 7)
    assert u8.dtype == np.uint8 and (u8 == 200).all()


def test_center_crop_and_resize_short():
    img = mx.nd.array(np.arange(4 * 6 * 3).reshape(4, 6, 3), dtype="uint8")
    out, (x0, y0, w, h) = mx.image.center_crop(img, (2, 2))
    assert (x0, y0, w, h) == (2, 1, 2, 2)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[1:3, 2:4])
    assert mx.image.resize_short(img, 8).shape == (8, 12, 3)
    big, box = mx.image.center_crop(img, (8, 8))          # smaller image: 4x4 region, up
    assert big.shape == (8, 8, 3) and box == (1, 0, 4, 4)
