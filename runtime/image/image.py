"""MXNet 1.x's image functions (``mx.image.imdecode``, ``imresize``, the crops): front
doors to MXNet's operators (``ops/cvimage.py``) and slices; see the package docstring."""
import random as _random

import numpy as np

from ..ops import cvimage as _cv

__all__ = ["imdecode", "imread", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop"]


def _array_class():
    """``mx.np.ndarray`` under ``npx.set_np()``, else NDArray (as MXNet's image functions)."""
    from ..util import is_np_array
    if is_np_array():
        from ..numpy.multiarray import ndarray
        return ndarray
    from ..ndarray.ndarray import NDArray
    return NDArray


def _invoke(name, inputs, params, out=None, cls=None):
    from ..ndarray.ndarray import invoke
    return invoke(name, inputs, params, out=out, cls=cls or _array_class())


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """The pixels of an encoded image (bytes, bytearray, a uint8 numpy array or NDArray)
    as an (H, W, 3) uint8 array (RGB, BGR with ``to_rgb=False``), or (H, W, 1) with
    ``flag=0``: the ``Imdecode`` operator."""
    from ..ndarray.ndarray import NDArray, from_numpy
    if isinstance(buf, NDArray):
        data, nd_buf = buf.asnumpy().astype(np.uint8, copy=False).tobytes(), buf
    elif isinstance(buf, (bytes, bytearray, np.ndarray)):
        data = bytes(buf) if not isinstance(buf, np.ndarray) else buf.astype(
            np.uint8, copy=False).tobytes()
        nd_buf = from_numpy(np.frombuffer(data, np.uint8), cls=_array_class())
    else:
        raise ValueError("imdecode: buf must be bytes, bytearray or numpy.ndarray, got "
                         f"{type(buf).__name__} (encode a str to bytes first)")
    shape = _cv.header_shape(data, flag)
    return _invoke("Imdecode", (nd_buf,), {"flag": flag, "to_rgb": bool(to_rgb),
                                           "_shape": shape}, out, nd_buf.__class__)


def imread(filename, flag=1, to_rgb=True, out=None):
    """The image in file ``filename`` (see :func:`imdecode`): the ``Imread`` operator."""
    try:
        with open(filename, "rb") as f:
            head = f.read()
        shape = _cv.header_shape(head, flag)
    except ValueError as e:
        raise ValueError(f"{filename}: {e}") from None
    return _invoke("Imread", (), {"filename": str(filename), "flag": flag,
                                  "to_rgb": bool(to_rgb), "_shape": shape}, out)


def imresize(src, w, h, interp=1, out=None):
    """``src`` (H, W, C) resized to width ``w`` and height ``h`` (``_cvimresize``;
    ``interp`` as OpenCV: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos)."""
    return _invoke("_cvimresize", (src,), {"w": int(w), "h": int(h), "interp": int(interp)},
                   out, src.__class__)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):
    """``src`` with a border (``_cvcopyMakeBorder``; ``type`` as OpenCV's: 0 constant,
    1 replicate, 2 reflect, 3 wrap, 4 reflect 101: OpenCV's numbering)."""
    return _invoke("_cvcopyMakeBorder", (src,), {
        "top": int(top), "bot": int(bot), "left": int(left), "right": int(right),
        "type": int(type), "value": float(value), "values": tuple(values)}, out,
        src.__class__)


def scale_down(src_size, size):
    """The crop ``size`` (w, h) shrunk, keeping its aspect, to fit ``src_size`` (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def _get_interp_method(interp, sizes=()):
    """Method 0-4 for ``interp``: 9 picks cubic to enlarge, area to shrink, bilinear
    otherwise (``sizes`` = (old h, old w, new h, new w)); 10 picks one at random."""
    if interp == 9:
        if sizes:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return _random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"Unknown interp method {interp}")
    return interp


def resize_short(src, size, interp=2):
    """``src`` resized so that its shorter edge is ``size`` (aspect kept)."""
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The (w, h) region of ``src`` at (x0, y0), resized to ``size`` (w, h) if given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """(crop, (x0, y0, w, h)): a random region of ``size`` (w, h), upsampled when the
    image is smaller."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = _random.randint(0, w - new_w)
    y0 = _random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """(crop, (x0, y0, w, h)): the centred region of ``size`` (w, h), upsampled when the
    image is smaller."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std``, in place as MXNet's."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """(crop, (x0, y0, w, h)): a region of random area (fraction ``area``: (min, max) or
    min) and aspect ratio (``ratio``: (min, max), log-uniform), resized to ``size``;
    a centre crop after 10 draws that do not fit."""
    h, w = src.shape[0], src.shape[1]
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"random_size_crop: unexpected keyword arguments {sorted(kwargs)}")
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    for _ in range(10):
        target = _random.uniform(area[0], area[1]) * h * w
        new_ratio = np.exp(_random.uniform(np.log(ratio[0]), np.log(ratio[1])))
        new_w = int(round(np.sqrt(target * new_ratio)))
        new_h = int(round(np.sqrt(target / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = _random.randint(0, w - new_w)
            y0 = _random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)

