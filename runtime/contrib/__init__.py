"""``mx.contrib``: MXNet 1.x's experimental namespace, as far as xprof has it.

``mx.contrib.ndarray`` (``mx.contrib.nd``) is ``mx.nd.contrib`` and ``mx.contrib.symbol``
(``mx.contrib.sym``) is ``mx.sym.contrib``: the same modules (MXNet 1.x's older
spelling). ``mx.contrib.amp`` exists so that code importing it loads; automatic mixed
precision itself is refused (see :mod:`.amp`). ``mx.contrib.io.DataLoaderIter`` wraps a
Gluon DataLoader as a DataIter.
"""
from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import io  # noqa: E402,F401 - mx.contrib.io.DataLoaderIter

nd = ndarray
sym = symbol

__all__ = ["ndarray", "nd", "symbol", "sym", "io"]
