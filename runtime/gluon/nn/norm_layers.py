"""Normalization layers: ``BatchNorm``, ``LayerNorm``, ``InstanceNorm``, ``GroupNorm``.

Each is one operator of :mod:`xprof.runtime.ops.normalization` with learned ``gamma``
(scale) and ``beta`` (center) parameters; ``scale=False``/``center=False`` keep them at
their initial values (``grad_req='null'``). BatchNorm also holds ``running_mean`` and
``running_var``, the operator's auxiliary states: updated by each forward in training
(``autograd.record()``, or ``autograd.train_mode()``), used as they are in predict mode
or with ``use_global_stats=True``. Channel counts of 0 are inferred at the first
forward.
"""
from ..block import HybridBlock

__all__ = ["BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm"]


def _affine_params(block, shape, center, scale, beta_initializer, gamma_initializer):
    block.gamma = block.params.get("gamma", grad_req="write" if scale else "null",
                                   shape=shape, init=gamma_initializer,
                                   allow_deferred_init=True, differentiable=scale)
    block.beta = block.params.get("beta", grad_req="write" if center else "null",
                                  shape=shape, init=beta_initializer,
                                  allow_deferred_init=True, differentiable=center)


def _content(kwargs):
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _channel_axis(x, axis, layer):
    n = len(x.shape)
    if not -n <= axis < n:
        raise ValueError(f"{layer}: axis={axis} is out of range for input of shape {x.shape}")
    return x.shape[axis]


class BatchNorm(HybridBlock):
    """Batch normalization (operator ``BatchNorm``) over every axis but ``axis``.

    ``BatchNorm(axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
    use_global_stats=False, beta_initializer='zeros', gamma_initializer='ones',
    running_mean_initializer='zeros', running_variance_initializer='ones',
    in_channels=0)``."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._axis = int(axis)
        self._kwargs = {"axis": self._axis, "eps": float(epsilon),
                        "momentum": float(momentum), "fix_gamma": not scale,
                        "use_global_stats": bool(use_global_stats)}
        shape = (int(in_channels),)
        with self.name_scope():
            _affine_params(self, shape, center, scale, beta_initializer, gamma_initializer)
            self.running_mean = self.params.get(
                "running_mean", grad_req="null", shape=shape, init=running_mean_initializer,
                allow_deferred_init=True, differentiable=False)
            self.running_var = self.params.get(
                "running_var", grad_req="null", shape=shape,
                init=running_variance_initializer, allow_deferred_init=True,
                differentiable=False)

    def _alias(self):
        return "batchnorm"

    def infer_shape(self, x, *args):
        c = _channel_axis(x, self._axis, self.name)
        for p in (self.gamma, self.beta, self.running_mean, self.running_var):
            p.shape = (c,)

    def cast(self, dtype):
        import numpy as np
        if np.dtype(dtype).name == "float16":   # statistics stay float32, as in MXNet
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd",
                           **self._kwargs)

    def __repr__(self):
        c = self.gamma.shape[0]
        return f"BatchNorm({_content(self._kwargs)}, in_channels={c if c else None})"


class _ChannelNorm(HybridBlock):
    """What LayerNorm and InstanceNorm share: ``gamma``/``beta`` of one value per
    channel of ``axis`` (inferred at the first forward when ``in_channels=0``)."""

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                 in_channels, **kwargs):
        super().__init__(**kwargs)
        self._axis, self._epsilon = int(axis), float(epsilon)
        self._kwargs = {"eps": self._epsilon, "axis": self._axis, "center": center,
                        "scale": scale}
        with self.name_scope():
            _affine_params(self, (int(in_channels),), center, scale, beta_initializer,
                           gamma_initializer)

    def infer_shape(self, x, *args):
        c = _channel_axis(x, self._axis, self.name)
        self.gamma.shape = self.beta.shape = (c,)

    def __repr__(self):
        return (f"{type(self).__name__}({_content(self._kwargs)}, "
                f"in_channels={self.gamma.shape[0]})")


class LayerNorm(_ChannelNorm):
    """Layer normalization (operator ``LayerNorm``) over ``axis`` (default the last)."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0,
                 prefix=None, params=None):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         in_channels, prefix=prefix, params=params)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class InstanceNorm(_ChannelNorm):
    """Instance normalization (operator ``InstanceNorm``): each sample's channel over
    its spatial axes (channels on axis 1)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0,
                 **kwargs):
        if int(axis) != 1:
            raise ValueError(f"InstanceNorm: axis={axis} is not supported; the channel "
                             "axis must be 1 (N, C, spatial...)")
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         in_channels, **kwargs)

    def hybrid_forward(self, F, x, gamma, beta):
        return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)


class GroupNorm(HybridBlock):
    """Group normalization (operator ``GroupNorm``): the channels of each sample in
    ``num_groups`` groups, each normalized over its channels and spatial axes; one
    ``gamma``/``beta`` value per group, as in MXNet 1.x."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_groups, self._epsilon = int(num_groups), float(epsilon)
        if self._num_groups < 1:
            raise ValueError(f"GroupNorm: num_groups={num_groups} must be positive")
        self._kwargs = {"eps": self._epsilon, "num_groups": self._num_groups,
                        "center": center, "scale": scale}
        with self.name_scope():
            _affine_params(self, (self._num_groups,), center, scale, beta_initializer,
                           gamma_initializer)

    def infer_shape(self, *args):
        pass     # gamma and beta have num_groups values whatever the input

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return f"GroupNorm({_content(self._kwargs)})"
