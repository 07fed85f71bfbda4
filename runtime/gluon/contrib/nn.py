"""``mx.gluon.contrib.nn``: containers that run every child on the same input and
concatenate the results (``Concurrent``, ``HybridConcurrent``), ``Identity``, and
``SyncBatchNorm``, which on one CPU device is ``BatchNorm`` over the whole batch (its
statistics already are those of every sample; several devices are refused)."""
from ...ndarray.sparse import unsupported
from ..block import HybridBlock
from ..nn import BatchNorm, HybridSequential, Identity, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm", "SparseEmbedding"]


class Concurrent(Sequential):
    """Runs each child on the input; concatenates their outputs along ``axis``
    (operator ``concat``)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from ... import ndarray
        return ndarray.concat(*[block(x) for block in self._children.values()],
                              dim=self.axis)


class HybridConcurrent(HybridSequential):
    """``Concurrent`` for HybridBlocks: hybridizes as one graph."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class SyncBatchNorm(BatchNorm):
    """``SyncBatchNorm(in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
    center=True, scale=True, use_global_stats=False, ...)``: cross-device batch
    normalization. xprof runs on one CPU device, where it is ``BatchNorm`` (operator
    ``BatchNorm``); ``num_devices`` above 1 is refused."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        if num_devices is not None and int(num_devices) != 1:
            raise ValueError(f"SyncBatchNorm: num_devices={num_devices} is not supported; "
                             "xprof runs on one CPU device (num_devices=1 or None)")
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)

    def _alias(self):
        return "syncbatchnorm"


class SparseEmbedding(HybridBlock):
    """An embedding with a row_sparse gradient: refused (sparse storage)."""

    def __init__(self, *args, **kwargs):
        raise unsupported("gluon.contrib.nn.SparseEmbedding")
