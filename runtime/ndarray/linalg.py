"""``mx.nd.linalg``: the ``_linalg_<name>`` operators as ``<name>`` (``gemm``, ``potrf``,
``syevd``...; :mod:`..ops.la`)."""
from ..ops import python_level as _python_level
from .functions import _make_function

_python_level.populate_prefixed(globals(), "_linalg_", _make_function)
