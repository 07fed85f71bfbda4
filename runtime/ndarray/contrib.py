"""``mx.nd.contrib``: the ``_contrib_<name>`` operators as ``<name>`` (``index_copy``,
``AdaptiveAvgPooling2D``...) and MXNet's Python-level contrib functions (``isinf``,
``isfinite``, ``isnan``, ``boolean_mask``): see :mod:`..ops.python_level`."""
from ..ops import python_level as _python_level
from .functions import _FRONTEND, _make_function

# the Python-level functions first: boolean_mask is one over its operator
_python_level.install(globals(), _FRONTEND, _python_level.CONTRIB_HELPERS)
_python_level.populate_prefixed(globals(), "_contrib_", _make_function)
