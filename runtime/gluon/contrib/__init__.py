"""``mx.gluon.contrib``: MXNet 1.x's contributed Gluon layers that run on one CPU device
(``contrib.nn``: ``Concurrent``, ``HybridConcurrent``, ``Identity``, ``SyncBatchNorm``;
``contrib.rnn``: ``VariationalDropoutCell``). Sparse ones (``SparseEmbedding``) refuse
with the sparse-storage error."""
from . import nn, rnn  # noqa: F401

__all__ = ["nn", "rnn"]
