"""MXNet 1.x's OpenCV image operators (``src/io/image_io.cc``), with Pillow decoding and
numpy resampling: ``Imdecode``/``Imread`` (MXNet's engine names for ``_cvimdecode``/
``_cvimread``), ``_cvimresize``, ``_cvcopyMakeBorder``.

Decoding goes through Pillow (the ``image`` extra): every format it reads, recognised
by content as OpenCV does; a JPEG read in greyscale is decoded from its luma plane
(Pillow's ``draft('L')``), as libjpeg does for OpenCV. The decoded size is read from the
file's header before the op is pushed (:func:`header_shape`): MXNet's front end does the
same, so the output array exists before the decode runs on an engine worker.

Resizing follows OpenCV's pixel-centre conventions with one separable resampler: each
method is a (n_out, n_in) weight matrix per axis (:func:`weights`), applied to the rows
then the columns; methods 0-4 as OpenCV's ``INTER_NEAREST``, ``LINEAR``, ``CUBIC``
(a = -0.75), ``AREA``, ``LANCZOS4`` (border pixels replicated). Integer images are
rounded and saturated back to their dtype.
"""
import io

import numpy as np

from .registry import defop

__all__ = ["decode", "header_shape", "resize", "weights", "border"]


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ValueError("decoding images needs Pillow: pip install pillow (or "
                         "xprof-mx[image])") from None
    return Image


def _check_flag(flag):
    if flag not in (0, 1):
        raise ValueError(f"imdecode: flag={flag!r} is not allowed; use 1 (colour) or 0 "
                         "(greyscale)")


def header_shape(buf, flag=1):
    """(H, W, C) of the encoded image ``buf`` from its header alone (nothing decoded)."""
    _check_flag(flag)
    try:
        with _pil().open(io.BytesIO(bytes(buf))) as im:
            w, h = im.size
    except (OSError, SyntaxError) as e:     # Pillow's UnidentifiedImageError is an OSError
        raise ValueError(f"imdecode: not an image this build can decode ({e})") from None
    return (h, w, 3 if flag else 1)


def decode(buf, flag=1, to_rgb=True):
    """(H, W, 3) uint8 RGB (BGR with ``to_rgb=False``) or (H, W, 1) grey pixels of ``buf``."""
    _check_flag(flag)
    with _pil().open(io.BytesIO(bytes(buf))) as im:
        if flag == 0:
            if im.format == "JPEG":
                im.draft("L", im.size)            # libjpeg's grey output: the Y plane
            arr = np.asarray(im if im.mode == "L" else im.convert("L"))
            return np.ascontiguousarray(arr[:, :, None])
        if im.mode in ("I;16", "I;16B", "I"):     # 16-bit grey: OpenCV keeps the top byte
            arr = (np.asarray(im).astype(np.uint32) >> 8).astype(np.uint8)
            arr = np.repeat(arr[:, :, None], 3, axis=2)
        else:
            arr = np.asarray(im if im.mode == "RGB" else im.convert("RGB"))
    if not to_rgb:
        arr = arr[:, :, ::-1]
    return np.ascontiguousarray(arr)


def _decode_kernel(buf, flag=1, to_rgb=True, _shape=None):
    out = decode(buf.tobytes(), flag, to_rgb)
    if _shape is not None and out.shape != tuple(_shape):
        raise ValueError(f"imdecode: decoded {out.shape}, the header said {tuple(_shape)}")
    return out


def _header_infer(in_shapes, in_dtypes, _shape=None, **_):
    if _shape is None:
        raise ValueError("Imdecode/Imread: the output shape comes from the image's header; "
                         "call mx.image.imdecode / mx.image.imread")
    return [tuple(_shape)], [np.dtype(np.uint8)]


def _read_kernel(filename="", flag=1, to_rgb=True, _shape=None):
    with open(filename, "rb") as f:
        return _decode_kernel(np.frombuffer(f.read(), np.uint8), flag, to_rgb, _shape)


defop("Imdecode", _decode_kernel, aliases=("_cvimdecode",), arg_names=("buf",),
      infer=_header_infer, params={"flag": 1, "to_rgb": True, "_shape": None})
defop("Imread", _read_kernel, aliases=("_cvimread",), arg_names=(), infer=_header_infer,
      params={"filename": "", "flag": 1, "to_rgb": True, "_shape": None})


# -- resampling -----------------------------------------------------------------------------
def _cubic(x, a=-0.75):
    """OpenCV's four cubic coefficients for fraction ``x`` (array)."""
    w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + 1
    w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return np.stack([w0, w1, w2, 1 - w0 - w1 - w2], axis=1)


def _lanczos4(x):
    d = np.arange(8)[None, :] - 3 - x[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.sin(np.pi * d / 4) * np.sin(np.pi * d) / (np.pi ** 2 * d * d / 4)
    w = np.where(np.abs(d) < 1e-9, 1.0, w)
    return w / w.sum(axis=1, keepdims=True)


def _area_down(n_in, n_out):
    """Each output pixel the mean of the source pixels its interval covers (by overlap)."""
    scale = n_in / n_out
    lo = np.arange(n_out) * scale
    hi = lo + scale
    src = np.arange(n_in)
    overlap = np.clip(np.minimum(hi[:, None], src[None, :] + 1)
                      - np.maximum(lo[:, None], src[None, :]), 0, None)
    return overlap / scale


def weights(n_in, n_out, method, both_down=False):
    """The (n_out, n_in) matrix of one axis's resampling with OpenCV method 0-4
    (``both_down``: the image shrinks along both axes, where ``INTER_AREA`` averages)."""
    m = np.zeros((n_out, n_in), np.float64)
    rows = np.arange(n_out)
    scale = n_in / n_out
    if method == 0:
        m[rows, np.minimum(np.floor(rows * scale).astype(int), n_in - 1)] = 1.0
        return m
    if method == 3 and both_down:
        return _area_down(n_in, n_out)
    if method == 3:           # OpenCV's INTER_AREA when enlarging: sharp linear steps
        sx = np.floor(rows * scale).astype(int)
        fx = (rows + 1) - (sx + 1) / scale
        fx = np.where(fx <= 0, 0.0, fx - np.floor(fx))
        taps, coef = sx[:, None] + np.arange(2), np.stack([1 - fx, fx], axis=1)
    else:
        pos = (rows + 0.5) * scale - 0.5
        sx = np.floor(pos).astype(int)
        fx = pos - sx
        if method == 1:
            low, high = sx < 0, sx >= n_in - 1
            fx = np.where(low | high, 0.0, fx)
            sx = np.where(low, 0, np.where(high, n_in - 1, sx))
            taps, coef = sx[:, None] + np.arange(2), np.stack([1 - fx, fx], axis=1)
        elif method == 2:
            taps, coef = sx[:, None] + np.arange(-1, 3), _cubic(fx)
        elif method == 4:
            taps, coef = sx[:, None] + np.arange(-3, 5), _lanczos4(fx)
        else:
            raise ValueError(f"imresize: interp={method!r} is not allowed; use 0 (nearest), "
                             "1 (bilinear), 2 (bicubic), 3 (area), 4 (Lanczos), 9 (auto) "
                             "or 10 (random)")
    np.add.at(m, (np.repeat(rows, taps.shape[1]), np.clip(taps, 0, n_in - 1).ravel()),
              coef.ravel())
    return m


def resize(img, height, width, interp=1):
    """``img`` (H, W[, C]) or (N, H, W, C) resized to (height, width) as OpenCV does."""
    if height <= 0 or width <= 0:
        raise ValueError(f"imresize: the size (w={width}, h={height}) must be positive")
    ax = img.ndim - 3 if img.ndim >= 3 else 0
    h, w = img.shape[ax], img.shape[ax + 1]
    if (h, w) == (height, width):
        return img.copy()
    if interp == 0:
        yi = np.minimum(np.floor(np.arange(height) * h / height), h - 1).astype(int)
        xi = np.minimum(np.floor(np.arange(width) * w / width), w - 1).astype(int)
        return np.take(np.take(img, yi, axis=ax), xi, axis=ax + 1)
    both_down = height < h and width < w
    wy = weights(h, height, interp, both_down).astype(np.float32)
    wx = weights(w, width, interp, both_down).astype(np.float32)
    src = np.moveaxis(img.astype(np.float32, copy=False), (ax, ax + 1), (0, 1))
    out = np.tensordot(wy, src, axes=(1, 0))                     # (height, w, ...)
    out = np.moveaxis(np.tensordot(wx, out, axes=(1, 1)), 0, 1)   # (height, width, ...)
    out = np.moveaxis(out, (0, 1), (ax, ax + 1))
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return np.ascontiguousarray(out.astype(img.dtype, copy=False))


def _resize_kernel(src, w=0, h=0, interp=1):
    return resize(src, int(h), int(w), int(interp))


def _resize_infer(in_shapes, in_dtypes, w=0, h=0, interp=1, **_):
    shape = tuple(in_shapes[0])
    if len(shape) not in (2, 3, 4):
        raise ValueError(f"imresize: src must be (H, W), (H, W, C) or (N, H, W, C), got "
                         f"{shape}")
    if int(w) <= 0 or int(h) <= 0:
        raise ValueError(f"imresize: w={w} and h={h} must be positive")
    ax = len(shape) - 3 if len(shape) >= 3 else 0
    out = shape[:ax] + (int(h), int(w)) + shape[ax + 2:]
    return [out], [in_dtypes[0]]


defop("_cvimresize", _resize_kernel, arg_names=("src",), infer=_resize_infer,
      params={"w": 0, "h": 0, "interp": 1},
      cost=lambda shapes, w=0, h=0, **_: 8 * int(w) * int(h) * (shapes[0][-1] if
                                                                len(shapes[0]) == 3 else 1))


# -- borders --------------------------------------------------------------------------------
_BORDER_MODES = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def border(src, top, bot, left, right, type=0, value=0.0, values=()):
    """``src`` (H, W[, C]) padded as OpenCV's ``copyMakeBorder``: 0 constant (``values``
    per channel, else ``value``), 1 replicate, 2 reflect, 3 wrap, 4 reflect-101 (OpenCV's
    numbering)."""
    pads = [(int(top), int(bot)), (int(left), int(right))] + [(0, 0)] * (src.ndim - 2)
    if type == 0:
        out = np.pad(src, pads, mode="constant")
        fill = np.asarray(values if len(values) else [value], np.float64)
        if src.ndim == 3 and fill.size not in (1, src.shape[2]):
            raise ValueError(f"copyMakeBorder: {fill.size} values for {src.shape[2]} "
                             "channels")
        mask = np.ones(out.shape[:2], bool)
        mask[pads[0][0]:pads[0][0] + src.shape[0], pads[1][0]:pads[1][0] + src.shape[1]] = False
        out[mask] = fill.astype(src.dtype) if fill.size > 1 else fill[0]
        return out
    if type not in _BORDER_MODES:
        raise ValueError(f"copyMakeBorder: type={type!r} is not allowed; use 0 (constant), "
                         "1 (replicate), 2 (reflect), 3 (wrap) or 4 (reflect 101)")
    return np.pad(src, pads, mode=_BORDER_MODES[type])


def _border_infer(in_shapes, in_dtypes, top=0, bot=0, left=0, right=0, **_):
    shape = tuple(in_shapes[0])
    if len(shape) not in (2, 3):
        raise ValueError(f"copyMakeBorder: src must be (H, W) or (H, W, C), got {shape}")
    out = (shape[0] + int(top) + int(bot), shape[1] + int(left) + int(right)) + shape[2:]
    return [out], [in_dtypes[0]]


defop("_cvcopyMakeBorder", border, arg_names=("src",), infer=_border_infer,
      params={"top": 0, "bot": 0, "left": 0, "right": 0, "type": 0, "value": 0.0,
              "values": ()})
