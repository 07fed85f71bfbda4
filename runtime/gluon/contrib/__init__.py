"""``mx.gluon.contrib``: MXNet 1.x's contributed Gluon layers that run on one CPU device
(``contrib.nn``: ``Concurrent``, ``HybridConcurrent``, ``Identity``, ``SyncBatchNorm``).
Sparse ones (``SparseEmbedding``) refuse with the sparse-storage error."""
from . import nn  # noqa: F401

__all__ = ["nn"]
