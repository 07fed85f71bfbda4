"""MXNet 1.x's image augmenters (``mx.image.*Aug``) and ``CreateAugmenter``.

Each augmenter is a callable on one (H, W, C) image array, computing with array
operators (``_mul_scalar``, ``sum``, ``dot``, ``flip``, ``Cast``...) as MXNet's do, so a
profiled pipeline shows MXNet's operators. Random draws come from Python's ``random``
(NumPy's for ``LightingAug``), as in MXNet, so ``random.seed`` makes a run repeatable.
``dumps()`` gives MXNet's JSON description.
"""
import json
import random
import warnings

import numpy as np

from . import image as _image

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug",
           "CastAug", "CreateAugmenter"]


def _nd():
    from .. import ndarray
    return ndarray


def _img():
    return _image


def _const(values, like=None):
    """A constant array of the image's class (``mx.np`` under set_np)."""
    from ..ndarray.ndarray import from_numpy
    cls = like.__class__ if like is not None else _image._array_class()
    return from_numpy(np.asarray(values, np.float32), cls=cls)


class Augmenter:
    """An image augmenter: ``aug(src)`` returns the augmented image."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for k, v in self._kwargs.items():
            if hasattr(v, "asnumpy"):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                self._kwargs[k] = v.tolist()

    def dumps(self):
        """``[class name in lower case, its arguments]`` as JSON."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError("Must override implementation.")


class SequentialAug(Augmenter):
    """The augmenters ``ts``, one after another."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Shorter edge to ``size``."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img().resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """To ``size`` (w, h), aspect ignored."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        img = _img()
        return img.imresize(src, *self.size, interp=img._get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """A random crop of ``size`` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img().random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area and aspect ratio, resized to ``size`` (w, h)."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                          DeprecationWarning, stacklevel=2)
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError(f"RandomSizedCropAug: unexpected keyword arguments {sorted(kwargs)}")
        self.area, self.ratio, self.interp = area, ratio, interp

    def __call__(self, src):
        return _img().random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The centred crop of ``size`` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img().center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(Augmenter):
    """The augmenters ``ts`` in a random order."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        random.shuffle(self.ts)
        for t in self.ts:
            src = t(src)
        return src


class BrightnessJitterAug(Augmenter):
    """Pixels times 1 + U(-brightness, brightness) (in place)."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


_LUMA = [[[0.299, 0.587, 0.114]]]


class ContrastJitterAug(Augmenter):
    """Pixels moved towards (or away from) the image's mean grey level."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = _const(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * self.coef
        gray = (3.0 * (1.0 - alpha) / gray.size) * _nd().sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Pixels moved towards (or away from) their own grey level."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = _const(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = src * self.coef
        gray = _nd().sum(gray, axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Hue rotated by U(-hue, hue) half-turns in YIQ space."""

    _TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                      [0.211, -0.523, 0.311]])
    _ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq, self.ityiq = self._TYIQ, self._ITYIQ

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = np.dot(np.dot(self.ityiq, bt), self.tyiq).T
        return _nd().dot(src, _const(t, src))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitters in a random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise (``alphastd``, the eigenvalues and eigenvectors)."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += _const(rgb, src)
        return src


class ColorNormalizeAug(Augmenter):
    """``(src - mean) / std``."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or hasattr(mean, "asnumpy") else _const(mean)
        self.std = std if std is None or hasattr(std, "asnumpy") else _const(std)

    def __call__(self, src):
        return _img().color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, every channel the pixel's grey level."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = _const([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = _nd().dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """Mirrored left-right with probability ``p``."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = _nd().flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """To dtype ``typ``."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False,  # noqa: N802
                    rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                    saturation=0, hue=0, pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's standard augmenter list for images of ``data_shape`` (C, H, W): resize,
    crop (random sized, random or centre), mirror, cast to float32, colour jitters,
    lighting noise, grey, normalisation (``mean``/``std`` True: ImageNet's)."""
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize needs rand_crop")
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0),
                                          inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = _const([123.68, 116.28, 103.53])
    elif mean is not None and not (hasattr(mean, "shape") and mean.shape[0] in (1, 3)):
        raise ValueError("CreateAugmenter: mean must be True or an array of 1 or 3 values")
    if std is True:
        std = _const([58.395, 57.12, 57.375])
    elif std is not None and not (hasattr(std, "shape") and std.shape[0] in (1, 3)):
        raise ValueError("CreateAugmenter: std must be True or an array of 1 or 3 values")
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist
