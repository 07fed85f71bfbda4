"""``mx.nd.sparse``: sparse storage (``csr``, ``row_sparse``) is not supported by xprof.

The classes exist so that ``isinstance(x, mx.nd.sparse.CSRNDArray)`` is simply False;
every function raises ``NotImplementedError`` naming what is unsupported. xprof's arrays
are dense (``stype == 'default'``).
"""
from .ndarray import NDArray

__all__ = ["CSRNDArray", "RowSparseNDArray", "BaseSparseNDArray", "unsupported"]


def unsupported(what):
    """The error for a sparse feature: names it and says only dense storage exists."""
    return NotImplementedError(f"{what}: sparse storage (csr, row_sparse) is not supported "
                               "by xprof; only dense arrays (stype 'default')")


class BaseSparseNDArray(NDArray):
    def __new__(cls, *args, **kwargs):
        raise unsupported(cls.__name__)


class CSRNDArray(BaseSparseNDArray):
    pass


class RowSparseNDArray(BaseSparseNDArray):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise unsupported(f"mx.nd.sparse.{name}")
