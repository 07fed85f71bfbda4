"""ResNet V1 (post-activation) and V2 (pre-activation), 18 to 152 layers.

The block structure and the children's names follow MXNet's model zoo (``features``,
``output``; stages ``stage1_`` ... with ``body``/``downsample`` children), so the
structural parameter names (``features.4.0.body.0.weight``) are those of a ``.params``
file written by MXNet's own ``resnet18_v1`` and such a file loads here.
"""
from ... import nn
from ...block import HybridBlock
from ._pretrained import load_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet"] + [f"resnet{n}_v{v}" for n in (18, 34, 50, 101, 152)
                                           for v in (1, 2)]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _shortcut(channels, stride, in_channels, with_bn):
    """The 1x1 projection of the residual when the shape changes."""
    conv = nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                     in_channels=in_channels)
    if not with_bn:
        return conv
    seq = nn.HybridSequential(prefix="")
    seq.add(conv, nn.BatchNorm())
    return seq


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions, each followed by BatchNorm; ReLU after the sum."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = _shortcut(channels, stride, in_channels, True) if downsample \
            else None

    def hybrid_forward(self, F, x):
        residual = x if self.downsample is None else self.downsample(x)
        return F.Activation(self.body(x) + residual, act_type="relu")


class BottleneckV1(HybridBlock):
    """1x1 (reduce, strided), 3x3, 1x1 (expand) convolutions with BatchNorm."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        mid = channels // 4
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(mid, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(mid, 1, mid), nn.BatchNorm(),
                      nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                      nn.BatchNorm())
        self.downsample = _shortcut(channels, stride, in_channels, True) if downsample \
            else None

    hybrid_forward = BasicBlockV1.hybrid_forward


class BasicBlockV2(HybridBlock):
    """Pre-activation basic block: BN, ReLU, 3x3 conv, twice; the shortcut is taken
    after the first activation."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = _shortcut(channels, stride, in_channels, False) if downsample \
            else None

    def hybrid_forward(self, F, x):
        return _preact(self, F, x, [(self.bn1, self.conv1), (self.bn2, self.conv2)])


def _preact(block, F, x, stages):
    """``x`` through BN, ReLU and the convolution of each (bn, conv) stage, plus the
    shortcut (projected from the first activation when the block downsamples)."""
    residual = x
    for i, (bn, conv) in enumerate(stages):
        x = F.Activation(bn(x), act_type="relu")
        if i == 0 and block.downsample is not None:
            residual = block.downsample(x)
        x = conv(x)
    return x + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck: BN-ReLU-1x1, BN-ReLU-3x3 (strided), BN-ReLU-1x1."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        mid = channels // 4
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(mid, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(mid, stride, mid)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = _shortcut(channels, stride, in_channels, False) if downsample \
            else None

    def hybrid_forward(self, F, x):
        return _preact(self, F, x, [(self.bn1, self.conv1), (self.bn2, self.conv2),
                                    (self.bn3, self.conv3)])


def _stage(block, layers, channels, stride, index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _stem(features, channels, thumbnail):
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(),
                     nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))


class ResNetV1(HybridBlock):
    """ResNet V1: ``block`` (BasicBlockV1 or BottleneckV1), blocks per stage
    ``layers``, ``channels`` (stem, then one per stage), ``classes`` outputs;
    ``thumbnail=True`` uses a 3x3 stem for small (32x32) images."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNetV1: {len(layers)} stages need {len(layers) + 1} "
                             f"channel counts, got {len(channels)}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            _stem(self.features, channels[0], thumbnail)
            for i, n in enumerate(layers):
                self.features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet V2 (pre-activation): as :class:`ResNetV1`, with BasicBlockV2 or
    BottleneckV2 and a BatchNorm on the input."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNetV2: {len(layers)} stages need {len(layers) + 1} "
                             f"channel counts, got {len(channels)}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            in_channels = channels[0]
            for i, n in enumerate(layers):
                self.features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_SPEC = {18: ("basic", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ("basic", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ("bottleneck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ("bottleneck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ("bottleneck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_NETS = {1: ResNetV1, 2: ResNetV2}
_BLOCKS = {1: {"basic": BasicBlockV1, "bottleneck": BottleneckV1},
           2: {"basic": BasicBlockV2, "bottleneck": BottleneckV2}}


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, device=None,
               **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101 or 152)."""
    if num_layers not in _SPEC:
        raise ValueError(f"resnet: num_layers={num_layers} is not one of "
                         f"{sorted(_SPEC)}")
    if version not in _NETS:
        raise ValueError(f"resnet: version={version} must be 1 or 2")
    kind, layers, channels = _SPEC[num_layers]
    net = _NETS[version](_BLOCKS[version][kind], layers, channels, **kwargs)
    return load_pretrained(net, f"resnet{num_layers}_v{version}", pretrained, root,
                           device or ctx)


def _constructor(version, num_layers):
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = make.__qualname__ = f"resnet{num_layers}_v{version}"
    make.__doc__ = (f"ResNet-{num_layers} V{version}: ``(pretrained=False, ctx=None, "
                    "root=None, classes=1000, thumbnail=False)``.")
    return make


for _n in _SPEC:
    for _v in _NETS:
        globals()[f"resnet{_n}_v{_v}"] = _constructor(_v, _n)
