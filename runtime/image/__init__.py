"""``mx.image`` (also ``mx.img``): MXNet 1.x's image functions, augmenters and
``ImageIter``.

The functions are front doors to MXNet's operators (``ops/cvimage.py``): ``imdecode``
pushes ``Imdecode``, ``imread`` ``Imread``, ``imresize`` ``_cvimresize``,
``copyMakeBorder`` ``_cvcopyMakeBorder``; crops are slices of the array, as in MXNet,
so a profile shows the operators MXNet's does. Images are (H, W, C) uint8 arrays, RGB
unless ``to_rgb=False``; decoding needs Pillow (the ``image`` extra). Under
``npx.set_np()`` results are ``mx.np`` arrays, as MXNet 2's.
"""
from .image import (_get_interp_method, center_crop, color_normalize,  # noqa: F401
                    copyMakeBorder, fixed_crop, imdecode, imread, imresize, random_crop,
                    random_size_crop, resize_short, scale_down)
from .augment import (Augmenter, BrightnessJitterAug, CastAug, CenterCropAug,  # noqa: F401
                      ColorJitterAug, ColorNormalizeAug, ContrastJitterAug,
                      CreateAugmenter, ForceResizeAug, HorizontalFlipAug, HueJitterAug,
                      LightingAug, RandomCropAug, RandomGrayAug, RandomOrderAug,
                      RandomSizedCropAug, ResizeAug, SaturationJitterAug, SequentialAug)
from .iterator import ImageIter  # noqa: F401

__all__ = ["imdecode", "imread", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug",
           "CastAug", "CreateAugmenter", "ImageIter"]
