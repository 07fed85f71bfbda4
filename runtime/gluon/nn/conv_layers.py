"""Convolution and pooling layers.

The operators take channels-first data (NCW, NCHW, NCDHW). A layer built with a
channels-last layout (NWC, NHWC, NDHWC, as MXNet allows) transposes its input to
channels first, runs the same operator, and transposes the result back: each step is
the ``transpose``/``Convolution``/``Pooling`` op it is, in profiles too. Its weight has
MXNet's channels-last shape ``(channels, *kernel, in_channels // groups)``, transposed
likewise at each call.
"""
from ..block import HybridBlock
from .basic_layers import weight_bias_act

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D",
           "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
           "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "ReflectionPad2D"]

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _tuple(value, n, name, layer, minimum=1):
    if isinstance(value, int):
        value = (value,) * n
    try:
        value = tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{layer}: {name}={value!r} is not an int or a tuple of ints") \
            from None
    if len(value) != n:
        raise ValueError(f"{layer}: {name}={value} needs {n} values")
    if any(v < minimum for v in value):
        raise ValueError(f"{layer}: {name}={value} must have values >= {minimum}")
    return value


def _channels_last(layout, n, layer):
    """Whether ``layout`` (None: channels first) puts the channels last."""
    if layout in (None, _LAYOUTS[n]):
        return False
    if layout == _LAST[n]:
        return True
    raise ValueError(f"{layer}: layout={layout!r} is not supported; use "
                     f"{_LAYOUTS[n]!r} or {_LAST[n]!r}")


def _to_first(n):
    return (0, n + 1) + tuple(range(1, n + 1))


def _to_last(n):
    return (0,) + tuple(range(2, n + 2)) + (1,)


class _Conv(HybridBlock):
    """N-d convolution: ``Convolution`` op, optional bias, optional activation."""

    _ndim = 2
    _op = "Convolution"

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout=None, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        n, layer = self._ndim, type(self).__name__
        self._last = _channels_last(layout, n, layer)
        if int(channels) < 1:
            raise ValueError(f"{layer}: channels={channels} must be positive")
        self._channels = int(channels)
        self._in_channels = int(in_channels)
        self._groups = int(groups)
        if self._groups < 1 or self._channels % self._groups:
            raise ValueError(f"{layer}: groups={groups} must be positive and divide "
                             f"channels={channels}")
        if self._in_channels and self._in_channels % self._groups:
            raise ValueError(f"{layer}: groups={groups} must divide "
                             f"in_channels={in_channels}")
        self._kernel = _tuple(kernel_size, n, "kernel_size", layer)
        self._strides = _tuple(strides, n, "strides", layer)
        self._padding = _tuple(padding, n, "padding", layer, minimum=0)
        self._dilation = _tuple(dilation, n, "dilation", layer)
        self._kwargs = {"kernel": self._kernel, "stride": self._strides,
                        "dilate": self._dilation, "pad": self._padding,
                        "num_filter": self._channels, "num_group": self._groups,
                        "no_bias": not use_bias, "layout": _LAYOUTS[n]}
        wshape = self._weight_shape(self._in_channels)
        with self.name_scope():
            weight_bias_act(self, wshape, self._channels, use_bias, activation,
                            weight_initializer, bias_initializer)

    def _alias(self):
        return "conv"

    def _weight_shape(self, in_channels):
        if self._last:
            return (self._channels,) + self._kernel + (in_channels // self._groups,)
        return (self._channels, in_channels // self._groups) + self._kernel

    def infer_shape(self, x, *args):
        if len(x.shape) != self._ndim + 2:
            layout = (_LAST if self._last else _LAYOUTS)[self._ndim]
            raise ValueError(f"{self.name}: input must have {self._ndim + 2} dimensions "
                             f"({layout}), got shape {x.shape}")
        c = x.shape[-1] if self._last else x.shape[1]
        if c % self._groups:
            raise ValueError(f"{self.name}: input has {c} channels, not divisible by "
                             f"groups={self._groups}")
        self.weight.shape = self._weight_shape(c)

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op)
        if self._last:
            x = F.transpose(x, axes=_to_first(self._ndim))
            weight = F.transpose(weight, axes=_to_first(self._ndim))
        if bias is None:
            out = op(x, weight, name="fwd", **self._kwargs)
        else:
            out = op(x, weight, bias, name="fwd", **self._kwargs)
        if self._last:
            out = F.transpose(out, axes=_to_last(self._ndim))
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        c_in = self._in_channels_now()
        s = (f"{type(self).__name__}({c_in} -> {self._channels}, "
             f"kernel_size={self._kernel}, stride={self._strides}")
        if any(self._padding):
            s += f", padding={self._padding}"
        if any(d != 1 for d in self._dilation):
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act!r}"
        return s + ")"


    def _in_channels_now(self):
        c = self.weight._shape[-1 if self._last else 1]
        return c * self._groups if c else None


class Conv1D(_Conv):
    _ndim = 1


class Conv2D(_Conv):
    """2-D convolution over (batch, channels, height, width) inputs.

    ``Conv2D(channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
    activation=None, use_bias=True, in_channels=0)``; ``in_channels=0`` infers the
    input channels at the first forward."""

    _ndim = 2


class Conv3D(_Conv):
    _ndim = 3


class _ConvTranspose(_Conv):
    """N-d transposed convolution (operator ``Deconvolution``): the weight is
    ``(in_channels, channels // groups, *kernel_size)``; ``output_padding`` (MXNet's
    ``adj``) adds that many rows/columns at the end of the output."""

    _op = "Deconvolution"

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout=None, activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)
        self._kwargs["adj"] = _tuple(output_padding, self._ndim, "output_padding",
                                     type(self).__name__, minimum=0)

    def _weight_shape(self, in_channels):
        if self._last:
            return (in_channels,) + self._kernel + (self._channels // self._groups,)
        return (in_channels, self._channels // self._groups) + self._kernel

    def _in_channels_now(self):
        return self.weight._shape[0] or None


class Conv1DTranspose(_ConvTranspose):
    _ndim = 1


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution: ``Conv2DTranspose(channels, kernel_size, strides=1,
    padding=0, output_padding=0, dilation=1, groups=1, activation=None, use_bias=True,
    in_channels=0)``."""

    _ndim = 2


class Conv3DTranspose(_ConvTranspose):
    _ndim = 3


class _Pool(HybridBlock):
    _ndim = 2
    _type = "max"
    _global = False

    def __init__(self, pool_size=2, strides=None, padding=0, layout=None, ceil_mode=False,
                 count_include_pad=True, **kwargs):
        super().__init__(**kwargs)
        n, layer = self._ndim, type(self).__name__
        self._last = _channels_last(layout, n, layer)
        if self._global:
            self._kwargs = {"kernel": (1,) * n, "pool_type": self._type, "global_pool": True,
                            "layout": _LAYOUTS[n]}
            return
        pool = _tuple(pool_size, n, "pool_size", layer)
        strides = pool if strides is None else _tuple(strides, n, "strides", layer)
        padding = _tuple(padding, n, "padding", layer, minimum=0)
        self._kwargs = {"kernel": pool, "stride": strides, "pad": padding,
                        "pool_type": self._type, "global_pool": False,
                        "pooling_convention": "full" if ceil_mode else "valid",
                        "layout": _LAYOUTS[n]}
        if self._type == "avg":
            self._kwargs["count_include_pad"] = bool(count_include_pad)

    def _alias(self):
        return "pool"

    def infer_shape(self, *args):
        pass

    def hybrid_forward(self, F, x):
        if not self._last:
            return F.Pooling(x, name="fwd", **self._kwargs)
        x = F.transpose(x, axes=_to_first(self._ndim))
        return F.transpose(F.Pooling(x, name="fwd", **self._kwargs),
                           axes=_to_last(self._ndim))

    def __repr__(self):
        k = self._kwargs
        if self._global:
            return f"{type(self).__name__}()"
        return (f"{type(self).__name__}(size={k['kernel']}, stride={k['stride']}, "
                f"padding={k['pad']}, ceil_mode={k['pooling_convention'] == 'full'})")


def _pool_class(name, ndim, kind, glob=False, doc=None):
    cls = type(name, (_Pool,), {"_ndim": ndim, "_type": kind, "_global": glob,
                                "__doc__": doc or f"{ndim}-D {kind} pooling."})
    cls.__module__ = __name__
    return cls


MaxPool1D = _pool_class("MaxPool1D", 1, "max")
MaxPool2D = _pool_class(
    "MaxPool2D", 2, "max",
    doc="2-D max pooling: ``MaxPool2D(pool_size=2, strides=None, padding=0)``; "
        "strides default to pool_size.")
MaxPool3D = _pool_class("MaxPool3D", 3, "max")
AvgPool1D = _pool_class("AvgPool1D", 1, "avg")
AvgPool2D = _pool_class(
    "AvgPool2D", 2, "avg",
    doc="2-D average pooling: ``AvgPool2D(pool_size=2, strides=None, padding=0, "
        "ceil_mode=False, count_include_pad=True)``.")
AvgPool3D = _pool_class("AvgPool3D", 3, "avg")
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "max", True)
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "max", True)
GlobalMaxPool3D = _pool_class("GlobalMaxPool3D", 3, "max", True)
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "avg", True)
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "avg", True)
GlobalAvgPool3D = _pool_class("GlobalAvgPool3D", 3, "avg", True)


class ReflectionPad2D(HybridBlock):
    """Pads the last two axes of (N, C, H, W) input by reflection (operator ``Pad``,
    mode 'reflect'): ``padding`` is an int (every side) or MXNet's 8-tuple
    ``pad_width``."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        padding = _tuple(padding, 8, "padding", "ReflectionPad2D", minimum=0)
        if any(padding[:4]):
            raise ValueError(f"ReflectionPad2D: padding={padding} pads the batch or "
                             "channel axis; only the last two axes are padded")
        self._padding = padding

    def _alias(self):
        return "reflectionpad2d"

    def infer_shape(self, *args):
        pass

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
