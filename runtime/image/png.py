"""A PNG decoder on zlib and numpy: the image format xprof reads with no extra package.

Every standard PNG except interlaced ones (Adam7): bit depths 1-16, greyscale, RGB,
palette, with or without alpha, the five row filters. Returns (H, W, C) arrays: uint8
(uint16 for 16-bit images), C = 1, 2, 3 or 4 as stored (palette images as RGB/RGBA).
"""
import struct
import zlib

import numpy as np

__all__ = ["SIGNATURE", "decode"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _chunks(data):
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise ValueError("PNG: truncated chunk")
        yield kind, body
        pos += 12 + length
        if kind == b"IEND":
            return
    raise ValueError("PNG: no IEND chunk (truncated file)")


def _unfilter(raw, height, stride, bpp):
    """The image bytes (height, stride) from the filtered scanlines."""
    rows = np.frombuffer(raw, np.uint8)
    if rows.size != height * (stride + 1):
        raise ValueError(f"PNG: {rows.size} bytes of image data, expected "
                         f"{height * (stride + 1)}")
    rows = rows.reshape(height, stride + 1)
    filters, data = rows[:, 0], rows[:, 1:].astype(np.int32)
    out = np.zeros((height, stride), np.int32)
    prior = np.zeros(stride, np.int32)
    for y in range(height):
        f, line = filters[y], data[y]
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prior) & 0xFF
        elif f == 1:     # Sub: each byte adds the one bpp before: cumulative sums per lane
            lanes = np.zeros(((stride + bpp - 1) // bpp) * bpp, np.int32)
            lanes[:stride] = line
            cur = (np.cumsum(lanes.reshape(-1, bpp), axis=0).reshape(-1)[:stride]) & 0xFF
        elif f in (3, 4):
            cur = np.zeros(stride, np.int32)
            for i in range(0, stride, bpp):     # sequential: a pixel reads the previous
                j = slice(i, min(i + bpp, stride))
                n = j.stop - j.start
                left = cur[i - bpp:i - bpp + n] if i >= bpp else np.zeros(n, np.int32)
                up = prior[j]
                if f == 3:
                    pred = (left + up) >> 1
                else:
                    upleft = prior[i - bpp:i - bpp + n] if i >= bpp else np.zeros(n, np.int32)
                    p = left + up - upleft
                    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
                    pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
                cur[j] = (line[j] + pred) & 0xFF
        else:
            raise ValueError(f"PNG: unknown row filter {int(f)}")
        out[y] = cur
        prior = cur
    return out.astype(np.uint8)


def decode(data):
    """(H, W, C) array of a PNG file's bytes."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    header, idat, palette, trns = None, [], None, None
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
    if header is None:
        raise ValueError("PNG: no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    if color not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise ValueError(f"PNG: colour type {color} with bit depth {depth} is not valid")
    if interlace:
        raise ValueError("PNG: interlaced images are not supported without Pillow "
                         "(pip install pillow)")
    channels = _CHANNELS[color]
    bits = depth * channels
    stride = (width * bits + 7) // 8
    raw = _unfilter(zlib.decompress(b"".join(idat)), height, stride, max(1, bits // 8))
    if depth == 16:
        img = raw.view(">u2").reshape(height, width, channels).astype(np.uint16)
    elif depth == 8:
        img = raw.reshape(height, width, channels)
    else:                              # 1, 2, 4 bits: unpack, greyscale scaled to 0..255
        bitsarr = np.unpackbits(raw, axis=1)[:, :width * depth]
        weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
        img = (bitsarr.reshape(height, width, depth) * weights).sum(axis=2).astype(np.uint8)
        if color == 0:
            img = img * np.uint8(255 // ((1 << depth) - 1))
        img = img[:, :, None]
    if color == 3:
        if palette is None:
            raise ValueError("PNG: palette image without a PLTE chunk")
        index = img[:, :, 0]
        if trns is not None:
            alpha = np.full(len(palette), 255, np.uint8)
            alpha[:len(trns)] = np.frombuffer(trns, np.uint8)[:len(palette)]
            palette = np.concatenate([palette, alpha[:, None]], axis=1)
        img = palette[index]
    return img
