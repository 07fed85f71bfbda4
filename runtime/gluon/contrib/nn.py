"""``mx.gluon.contrib.nn``: containers that run every child on the same input and
concatenate the results (``Concurrent``, ``HybridConcurrent``), ``Identity``, and
``SyncBatchNorm``, which on one CPU device is ``BatchNorm`` over the whole batch (its
statistics already are those of every sample; several devices are refused), and the
sub-pixel upsampling layers ``PixelShuffle1D/2D/3D`` (channel groups rearranged into
blocks of pixels with ``reshape``/``transpose``/``swapaxes``, the operators MXNet's
layers use)."""
from ..block import HybridBlock
from ..nn import BatchNorm, Embedding, HybridSequential, Identity, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm", "SparseEmbedding",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


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


class SparseEmbedding(Embedding):
    """An embedding whose weight gradient is row_sparse (values kept dense)."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 **kwargs):
        super().__init__(input_dim, output_dim, dtype, weight_initializer, sparse_grad=True,
                         **kwargs)


def _factors(factor, n, who):
    try:
        return (int(factor),) * n
    except TypeError:
        factors = tuple(int(f) for f in factor)
        if len(factors) != n:
            raise ValueError(f"{who}: factor needs {n} values, got {len(factors)}") from None
        return factors


class PixelShuffle1D(HybridBlock):
    """(N, f*C, W) -> (N, C, W*f): each group of ``factor`` channels becomes ``factor``
    neighbouring pixels."""

    def __init__(self, factor):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))          # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))             # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))              # (N, C, W*f)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._factor})"


class PixelShuffle2D(HybridBlock):
    """(N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2): each group of f1*f2 channels becomes an
    f1 x f2 block of pixels (``factor``: an int or (f1, f2))."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2, "PixelShuffle2D")

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))     # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))       # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))           # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))              # (N, C, H*f1, W*f2)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._factors})"


class PixelShuffle3D(HybridBlock):
    """(N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3) (``factor``: an int or
    (f1, f2, f3)); done with axis swaps, as MXNet's (its transpose stops at 6 axes)."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3, "PixelShuffle3D")

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))   # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                                 # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))      # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                   # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                                 # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))           # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                   # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                                 # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))                   # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._factors})"
