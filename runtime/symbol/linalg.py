"""``mx.sym.linalg``: the ``_linalg_<name>`` operators as ``<name>``, as ``mx.nd.linalg``."""
from ..ops import python_level as _python_level
from .symbol import make_function as _make_function

_python_level.populate_prefixed(globals(), "_linalg_", _make_function)
