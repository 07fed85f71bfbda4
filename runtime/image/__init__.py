"""``mx.image``: reading and resizing images (HWC, uint8, RGB), as MXNet's functions of
the same names do with OpenCV.

Decoding: PNG files with xprof's own decoder (:mod:`.png`, zlib and numpy), every other
format through Pillow when it is installed (the ``image`` extra); a file is recognised by
its content, not its name, as OpenCV does. Without Pillow a JPEG is refused with one line
saying so. Resizing is done in numpy with OpenCV's pixel-centre convention (nearest or
bilinear). These run on the calling thread (a DataLoader worker), like MXNet's.
"""
import numpy as np

from . import png as _png

__all__ = ["imdecode", "imread", "imresize", "resize", "resize_short", "scale_down",
           "center_crop", "fixed_crop"]


def _array_class():
    """``mx.np.ndarray`` under ``npx.set_np()``, else NDArray (as MXNet's image functions)."""
    from ..util import is_np_array
    if is_np_array():
        from ..numpy.multiarray import ndarray
        return ndarray
    from ..ndarray.ndarray import NDArray
    return NDArray


def _decode_other(buf):
    try:
        from PIL import Image
    except ImportError:
        raise ValueError("imdecode: only PNG images can be read without Pillow; install "
                         "it (pip install pillow, or xprof[image]) to read other "
                         "formats") from None
    import io
    with Image.open(io.BytesIO(buf)) as im:
        if im.mode not in ("L", "RGB", "RGBA", "LA"):
            im = im.convert("RGB")
        arr = np.asarray(im)
    return arr[:, :, None] if arr.ndim == 2 else arr


def decode_numpy(buf, flag=1):
    """(H, W, 3) uint8 RGB (``flag=1``) or (H, W, 1) greyscale (``flag=0``) numpy
    array of an encoded image."""
    buf = bytes(buf)
    img = _png.decode(buf) if buf.startswith(_png.SIGNATURE) else _decode_other(buf)
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    channels = img.shape[2]
    if channels in (2, 4):            # drop alpha
        img = img[:, :, :channels - 1]
    if flag == 0:
        if img.shape[2] == 3:
            gray = img.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
            img = np.clip(np.rint(gray), 0, 255).astype(np.uint8)[:, :, None]
        return np.ascontiguousarray(img)
    if img.shape[2] == 1:
        img = np.repeat(img, 3, axis=2)
    return np.ascontiguousarray(img)


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """An encoded image's pixels as an (H, W, C) uint8 array (RGB; BGR with
    ``to_rgb=False``, as OpenCV keeps it)."""
    if flag not in (0, 1):
        raise ValueError(f"imdecode: flag={flag!r} is not allowed; use 1 (colour) or 0 "
                         "(greyscale)")
    img = decode_numpy(buf, flag)
    if flag == 1 and not to_rgb:
        img = np.ascontiguousarray(img[:, :, ::-1])
    from ..ndarray import ndarray as _nd
    arr = _nd.from_numpy(img, cls=_array_class())
    if out is not None:
        out[:] = arr
        return out
    return arr


def imread(filename, flag=1, to_rgb=True, out=None):
    """The image in file ``filename`` (see :func:`imdecode`)."""
    with open(filename, "rb") as f:
        buf = f.read()
    try:
        return imdecode(buf, flag, to_rgb, out)
    except ValueError as e:
        raise ValueError(f"{filename}: {e}") from None


# -- geometry (numpy) -------------------------------------------------------------------------
def resize(img, height, width, interp=1):
    """``img`` (H, W, C) or (N, H, W, C) numpy resized to (height, width): nearest
    (``interp=0``, OpenCV's source pixel ``floor(dst * scale)``) or bilinear (any other
    value, OpenCV's pixel centres); integer images are rounded back to their dtype."""
    if height <= 0 or width <= 0:
        raise ValueError(f"resize: the size ({width}, {height}) must be positive")
    h, w = img.shape[-3], img.shape[-2]
    if (h, w) == (height, width):
        return img.copy()

    def coords(n_out, n_in):
        x = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
        return np.clip(x, 0, n_in - 1)

    ys, xs = coords(height, h), coords(width, w)
    if interp == 0:
        # OpenCV's INTER_NEAREST: source pixel floor(dst * scale)
        yi = np.minimum(np.floor(np.arange(height) * h / height), h - 1).astype(int)
        xi = np.minimum(np.floor(np.arange(width) * w / width), w - 1).astype(int)
        return img[..., yi, :, :][..., :, xi, :]
    y0 = np.floor(ys).astype(int)
    x0 = np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy = (ys - y0).astype(np.float32)[:, None, None]
    fx = (xs - x0).astype(np.float32)[None, :, None]
    src = img.astype(np.float32)
    top = src[..., y0, :, :]
    bottom = src[..., y1, :, :]
    rows = top + (bottom - top) * fy
    left = rows[..., :, x0, :]
    right = rows[..., :, x1, :]
    out = left + (right - left) * fx
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(img.dtype)


def _values(src):
    from ..ndarray import ndarray as _nd
    if isinstance(src, _nd.NDArray):
        return src.asnumpy(), src.__class__
    return np.asarray(src), None


def _back(values, cls):
    if cls is None:
        return values
    from ..ndarray import ndarray as _nd
    return _nd.from_numpy(np.ascontiguousarray(values), cls=cls)


def imresize(src, w, h, interp=1, out=None):
    """``src`` (H, W, C) resized to width ``w`` and height ``h``."""
    values, cls = _values(src)
    return _back(resize(values, int(h), int(w), interp), cls or _array_class())


def resize_short(src, size, interp=1):
    """``src`` resized so that its shorter side is ``size`` (ratio kept)."""
    values, cls = _values(src)
    h, w = values.shape[:2]
    if h > w:
        new_w, new_h = size, int(h * size / w)
    else:
        new_w, new_h = int(w * size / h), size
    return _back(resize(values, new_h, new_w, interp), cls or _array_class())


def scale_down(src_size, size):
    """The largest (w, h) of ``size``'s aspect ratio that fits in ``src_size`` (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def fixed_crop(src, x0, y0, w, h, size=None, interp=1):
    """The (w, h) region of ``src`` at (x0, y0), resized to ``size`` (w, h) if given."""
    values, cls = _values(src)
    out = values[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = resize(out, size[1], size[0], interp)
    return _back(out, cls or _array_class())


def center_crop(src, size, interp=1):
    """(cropped image, (x0, y0, w, h)): the centred region of ``size`` (w, h); an image
    smaller than that gives its largest centred region of that aspect, resized up."""
    values, cls = _values(src)
    h, w = values.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = (w - new_w) // 2, (h - new_h) // 2
    out = fixed_crop(values, x0, y0, new_w, new_h, size, interp)
    return _back(out, cls or _array_class()), (x0, y0, new_w, new_h)
