"""MobileNet (V1): depthwise-separable convolutions scaled by a width ``multiplier``.

Children are named as in MXNet's model zoo (``features``, ``output``), so an MXNet
``mobilenet1.0`` parameter file loads by structural name.
"""
from ... import nn
from ...block import HybridBlock
from ._pretrained import load_pretrained

__all__ = ["MobileNet", "get_mobilenet", "mobilenet1_0", "mobilenet0_75", "mobilenet0_5",
           "mobilenet0_25"]

# (depthwise input channels, pointwise output channels, stride) of the 13 blocks
_BLOCKS = list(zip([32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024],
                   [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2,
                   [1, 2] * 3 + [1] * 5 + [2, 1]))


def _conv_bn_relu(seq, channels, kernel=1, stride=1, pad=0, groups=1):
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False),
            nn.BatchNorm(scale=True), nn.Activation("relu"))


class MobileNet(HybridBlock):
    """``MobileNet(multiplier=1.0, classes=1000)``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if not multiplier > 0:
            raise ValueError(f"MobileNet: multiplier={multiplier} must be positive")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _conv_bn_relu(self.features, int(32 * multiplier), 3, 2, 1)
                for dw, out, stride in _BLOCKS:
                    dw = int(dw * multiplier)
                    _conv_bn_relu(self.features, dw, 3, stride, 1, groups=dw)
                    _conv_bn_relu(self.features, int(out * multiplier))
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, device=None,
                  **kwargs):
    net = MobileNet(multiplier, **kwargs)
    name = f"mobilenet{multiplier:g}" if multiplier != 1.0 else "mobilenet1.0"
    return load_pretrained(net, name, pretrained, root, device or ctx)


def _constructor(multiplier, name):
    def make(**kwargs):
        return get_mobilenet(multiplier, **kwargs)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"MobileNet with width multiplier {multiplier}."
    return make


mobilenet1_0 = _constructor(1.0, "mobilenet1_0")
mobilenet0_75 = _constructor(0.75, "mobilenet0_75")
mobilenet0_5 = _constructor(0.5, "mobilenet0_5")
mobilenet0_25 = _constructor(0.25, "mobilenet0_25")
