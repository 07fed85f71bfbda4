"""``mx.contrib``: MXNet 1.x's older spelling of the contrib operator namespaces,
``mx.contrib.ndarray`` (``mx.contrib.nd``) is ``mx.nd.contrib`` and
``mx.contrib.symbol`` (``mx.contrib.sym``) is ``mx.sym.contrib``: the same modules."""
from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol

nd = ndarray
sym = symbol

__all__ = ["ndarray", "nd", "symbol", "sym"]
