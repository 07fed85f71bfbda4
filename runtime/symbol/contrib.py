"""``mx.sym.contrib``: the ``_contrib_<name>`` operators as ``<name>`` and MXNet's
Python-level contrib functions, as ``mx.nd.contrib`` has them."""
from ..ops import python_level as _python_level
from .functions import _FRONTEND
from .symbol import make_function as _make_function

# the Python-level functions first: boolean_mask is one over its operator
_python_level.install(globals(), _FRONTEND, _python_level.CONTRIB_HELPERS)
_python_level.populate_prefixed(globals(), "_contrib_", _make_function)
