"""``mx.nd.image``: the ``_image_<name>`` operators as ``<name>`` (``normalize``)."""
from ..ops import python_level as _python_level
from .functions import _make_function

_python_level.populate_prefixed(globals(), "_image_", _make_function)
