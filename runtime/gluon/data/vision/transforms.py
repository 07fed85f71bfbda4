"""Image transforms: ``ToTensor``, ``Normalize``, ``Cast``, ``Compose``; ``Resize``,
``CenterCrop``, ``RandomFlipLeftRight``/``TopBottom``, ``RandomBrightness``/
``Contrast``/``Saturation``/``Hue`` and ``RandomColorJitter``.

Each takes one image (HWC before ``ToTensor``, CHW after it) or, for the deterministic
ones, a batch (NHWC / NCHW) and returns the same kind of object it got: an array of the
class it was given (NDArray, ``mx.np.ndarray``), a numpy array for a numpy array. A
DataLoader over ``dataset.transform_first(t)`` applies a deterministic transform to a
whole batch at once (same values as one sample at a time); the random ones draw per
image. They compute in numpy on the calling thread (a DataLoader worker), with
OpenCV's conventions for resizing (``ops/cvimage.py``) and MXNet's formulas for the
colour jitters; their draws come from numpy's global generator.
"""
import numpy as np

from .... import image as _image
from ....ops import cvimage as _cv
from ....ndarray import ndarray as _nd
from ...block import Block
from ...nn.basic_layers import Sequential

__all__ = ["ToTensor", "Normalize", "Cast", "Compose", "Resize", "CenterCrop",
           "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter"]


def _unwrap(x):
    """(numpy values, the array class to give back or None for numpy)."""
    if isinstance(x, _nd.NDArray):
        return x.asnumpy(), x.__class__
    return np.asarray(x), None


def _wrap(values, cls):
    return _nd.from_numpy(values, cls=cls) if cls is not None else values


class ToTensor(Block):
    """HWC (or NHWC) uint8 in [0, 255] -> CHW (NCHW) float32 in [0, 1]."""

    _batchable = True

    def __init__(self):
        super().__init__()

    def forward(self, x):
        v, was_nd = _unwrap(x)
        if v.ndim == 3:
            out = v.transpose(2, 0, 1)
        elif v.ndim == 4:
            out = v.transpose(0, 3, 1, 2)
        elif v.ndim == 2:       # a single-channel image without its channel axis
            out = v[None]
        else:
            raise ValueError(f"ToTensor: expected an HWC image or an NHWC batch, got shape "
                             f"{v.shape}")
        out = out.astype(np.float32)
        out *= np.float32(1.0 / 255.0)
        return _wrap(np.ascontiguousarray(out), was_nd)


class Normalize(Block):
    """``(x - mean) / std`` per channel of a CHW image (or NCHW batch)."""

    _batchable = True

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = np.asarray(mean, dtype=np.float32).reshape(-1)
        self._std = np.asarray(std, dtype=np.float32).reshape(-1)
        if np.any(self._std == 0):
            raise ValueError("Normalize: std must not contain 0")

    def forward(self, x):
        v, was_nd = _unwrap(x)
        if v.ndim not in (3, 4):
            raise ValueError(f"Normalize: expected CHW or NCHW input, got shape {v.shape}")
        c = v.shape[-3]
        for name, arr in (("mean", self._mean), ("std", self._std)):
            if arr.size not in (1, c):
                raise ValueError(f"Normalize: {name} has {arr.size} values for {c} "
                                 "channels")
        shape = (-1, 1, 1)
        out = (v - self._mean.reshape(shape)) / self._std.reshape(shape)
        return _wrap(out.astype(v.dtype if v.dtype.kind == "f" else np.float32), was_nd)


class Cast(Block):
    """Convert to ``dtype``."""

    _batchable = True

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = np.dtype(dtype)

    def forward(self, x):
        if isinstance(x, _nd.NDArray):
            return x.astype(self._dtype)
        return np.asarray(x).astype(self._dtype)


class Compose(Sequential):
    """Apply ``transforms`` in order."""

    def __init__(self, transforms):
        super().__init__()
        transforms = list(transforms)
        for t in transforms:
            if isinstance(t, Block):
                self.add(t)
            elif callable(t):
                self.add(_FnBlock(t))
            else:
                raise ValueError(f"Compose: {t!r} is not callable")
        self._batchable = all(getattr(t, "_batchable", False)
                              for t in self._children.values())


class _FnBlock(Block):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x):
        return self._fn(x)


# -- geometry ---------------------------------------------------------------------------------
def _size_pair(size, who):
    """(w, h) of an int or a (w, h) pair."""
    if isinstance(size, (int, np.integer)):
        size = (int(size), int(size))
    try:
        w, h = (int(s) for s in size)
    except (TypeError, ValueError):
        raise ValueError(f"{who}: size={size!r} is not an int or a (width, height) "
                         "pair") from None
    if w <= 0 or h <= 0:
        raise ValueError(f"{who}: size={size!r} must be positive")
    return w, h


def _hw(v, who):
    if v.ndim not in (3, 4):
        raise ValueError(f"{who}: expected an HWC image or an NHWC batch, got shape "
                         f"{v.shape}")
    return v.shape[-3], v.shape[-2]


class Resize(Block):
    """Resize an HWC image (or NHWC batch) to ``size``: (w, h), or an int for a square,
    or with ``keep_ratio=True`` an int for the shorter side (the other scaled to keep
    the aspect ratio). ``interpolation``: OpenCV's 0-4 (nearest, bilinear, bicubic, area,
    Lanczos)."""

    _batchable = True

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = bool(keep_ratio)
        if self._keep and isinstance(size, (int, np.integer)):
            self._short = int(size)
            if self._short <= 0:
                raise ValueError(f"Resize: size={size!r} must be positive")
        else:
            self._short = None
            self._size = _size_pair(size, "Resize")
        self._interp = interpolation

    def forward(self, x):
        v, cls = _unwrap(x)
        h, w = _hw(v, "Resize")
        if self._short is not None:
            s = self._short
            new_w, new_h = (s, int(h * s / w)) if h > w else (int(w * s / h), s)
        else:
            new_w, new_h = self._size
        return _wrap(_cv.resize(v, new_h, new_w, self._interp), cls)


class CenterCrop(Block):
    """The centred (w, h) region of an HWC image or NHWC batch (``size`` an int for a
    square); an image smaller than that gives its largest centred region of that
    aspect ratio, resized to ``size`` (MXNet's ``center_crop``)."""

    _batchable = True

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size = _size_pair(size, "CenterCrop")
        self._interp = interpolation

    def forward(self, x):
        v, cls = _unwrap(x)
        h, w = _hw(v, "CenterCrop")
        new_w, new_h = _image.scale_down((w, h), self._size)
        x0, y0 = (w - new_w) // 2, (h - new_h) // 2
        out = v[..., y0:y0 + new_h, x0:x0 + new_w, :]
        if (new_w, new_h) != self._size:
            out = _cv.resize(out, self._size[1], self._size[0], self._interp)
        return _wrap(np.ascontiguousarray(out), cls)


class _RandomFlip(Block):
    _axis = None

    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p={p!r} must be in [0, 1]")
        self._p = p

    def forward(self, x):
        v, cls = _unwrap(x)
        _hw(v, type(self).__name__)
        if np.random.random_sample() < self._p:
            v = np.ascontiguousarray(np.flip(v, axis=v.ndim + self._axis))
        return _wrap(v, cls)


class RandomFlipLeftRight(_RandomFlip):
    """Flip an HWC image left to right with probability ``p``."""
    _axis = -2


class RandomFlipTopBottom(_RandomFlip):
    """Flip an HWC image top to bottom with probability ``p``."""
    _axis = -3


# -- colour (MXNet's formulas, on HWC RGB images) ---------------------------------------------
_GRAY = np.array([0.299, 0.587, 0.114], np.float32)


def _factor(amount, who):
    if amount < 0:
        raise ValueError(f"{who}: {amount!r} must be non-negative")
    return 1.0 + np.random.uniform(-amount, amount)


def _brightness(v, amount):
    return v * np.float32(_factor(amount, "RandomBrightness"))


def _contrast(v, amount):
    alpha = np.float32(_factor(amount, "RandomContrast"))
    gray = np.float32((v @ _GRAY).mean() * (1 - alpha))
    return v * alpha + gray


def _saturation(v, amount):
    alpha = np.float32(_factor(amount, "RandomSaturation"))
    gray = (v @ _GRAY)[..., None] * (1 - alpha)
    return v * alpha + gray


_TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                  [0.211, -0.523, 0.311]], np.float32)
_ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647],
                   [1.0, -1.107, 1.705]], np.float32)


def _hue(v, amount):
    if amount < 0:
        raise ValueError(f"RandomHue: {amount!r} must be non-negative")
    alpha = np.random.uniform(-amount, amount)
    u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
    bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]], np.float32)
    t = (_ITYIQ @ bt @ _TYIQ).T
    return v @ t


def _colour(x, steps):
    """Apply ``steps`` [(fn, amount)] to an HWC RGB image; the input's dtype back
    (integers rounded and clipped)."""
    v, cls = _unwrap(x)
    if v.ndim != 3 or v.shape[-1] != 3:
        raise ValueError(f"colour jitter: expected an HWC RGB image, got shape {v.shape}")
    out = v.astype(np.float32)
    for fn, amount in steps:
        out = fn(out, amount)
    if np.issubdtype(v.dtype, np.integer):
        info = np.iinfo(v.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return _wrap(out.astype(v.dtype), cls)


class _RandomColour(Block):
    _fn = None

    def __init__(self, amount):
        super().__init__()
        if amount < 0:
            raise ValueError(f"{type(self).__name__}: {amount!r} must be non-negative")
        self._amount = amount

    def forward(self, x):
        return _colour(x, [(type(self)._fn, self._amount)])


class RandomBrightness(_RandomColour):
    """Multiply by 1 + U(-brightness, brightness)."""
    _fn = staticmethod(_brightness)


class RandomContrast(_RandomColour):
    """Blend with the image's mean grey level by 1 + U(-contrast, contrast)."""
    _fn = staticmethod(_contrast)


class RandomSaturation(_RandomColour):
    """Blend with each pixel's grey level by 1 + U(-saturation, saturation)."""
    _fn = staticmethod(_saturation)


class RandomHue(_RandomColour):
    """Rotate the hue (in YIQ space) by U(-hue, hue) half turns."""
    _fn = staticmethod(_hue)


class RandomColorJitter(Block):
    """Brightness, contrast, saturation and hue jitter (those given non-zero), applied
    in a random order per image, as MXNet does."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        steps = ((_brightness, brightness), (_contrast, contrast),
                 (_saturation, saturation), (_hue, hue))
        for name, (_, amount) in zip(("brightness", "contrast", "saturation", "hue"), steps):
            if amount < 0:
                raise ValueError(f"RandomColorJitter: {name}={amount!r} must be "
                                 "non-negative")
        self._steps = [s for s in steps if s[1] > 0]

    def forward(self, x):
        order = np.random.permutation(len(self._steps))
        return _colour(x, [self._steps[i] for i in order])
