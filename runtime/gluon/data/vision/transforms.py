"""Image transforms: ``ToTensor``, ``Normalize``, ``Cast``, ``Compose``.

Each takes one image (HWC for ``ToTensor``, CHW after it) or a batch (NHWC / NCHW) and
returns the same kind of object it got: an NDArray for an NDArray, a numpy array for a
numpy array. A DataLoader over ``dataset.transform_first(t)`` applies such a transform
to a whole batch at once (same values as one sample at a time).
"""
import numpy as np

from ....ndarray import ndarray as _nd
from ...block import Block
from ...nn.basic_layers import Sequential

__all__ = ["ToTensor", "Normalize", "Cast", "Compose"]


def _unwrap(x):
    if isinstance(x, _nd.NDArray):
        return x.asnumpy(), True
    return np.asarray(x), False


def _wrap(values, was_nd):
    return _nd.from_numpy(values) if was_nd else values


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
