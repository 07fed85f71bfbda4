"""VGG 11/13/16/19, with or without BatchNorm after each convolution.

Children are named as in MXNet's model zoo (``features``, ``output``)."""
from .... import initializer as _init
from ... import nn
from ...block import HybridBlock
from ._pretrained import load_pretrained

__all__ = ["VGG", "get_vgg"] + [f"vgg{n}{bn}" for n in (11, 13, 16, 19) for bn in ("", "_bn")]

_SPEC = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
         13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
         16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
         19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    """``VGG(layers, filters, classes=1000, batch_norm=False)``: ``layers[i]`` 3x3
    convolutions of ``filters[i]`` channels, then a 2x2 max pooling, per stage; two
    4096-unit dense layers with dropout; the classifier ``output``."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise ValueError(f"VGG: {len(layers)} stage sizes for {len(filters)} filter "
                             "counts")
        conv_init = _init.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                for n, channels in zip(layers, filters):
                    for _ in range(n):
                        self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                                    weight_initializer=conv_init,
                                                    bias_initializer="zeros"))
                        if batch_norm:
                            self.features.add(nn.BatchNorm())
                        self.features.add(nn.Activation("relu"))
                    self.features.add(nn.MaxPool2D(strides=2))
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu",
                                               weight_initializer="normal",
                                               bias_initializer="zeros"),
                                      nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, device=None, **kwargs):
    """VGG with ``num_layers`` (11, 13, 16 or 19); ``batch_norm=True`` for the _bn ones."""
    if num_layers not in _SPEC:
        raise ValueError(f"vgg: num_layers={num_layers} is not one of {sorted(_SPEC)}")
    net = VGG(*_SPEC[num_layers], **kwargs)
    name = f"vgg{num_layers}" + ("_bn" if kwargs.get("batch_norm") else "")
    return load_pretrained(net, name, pretrained, root, device or ctx)


def _constructor(num_layers, bn):
    def make(**kwargs):
        if bn:
            kwargs["batch_norm"] = True
        return get_vgg(num_layers, **kwargs)
    make.__name__ = make.__qualname__ = f"vgg{num_layers}" + ("_bn" if bn else "")
    make.__doc__ = f"VGG-{num_layers}" + (" with BatchNorm." if bn else ".")
    return make


for _n in _SPEC:
    for _bn in (False, True):
        globals()[f"vgg{_n}" + ("_bn" if _bn else "")] = _constructor(_n, _bn)
