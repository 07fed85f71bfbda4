"""``mx.contrib.amp``: automatic mixed precision (refused: see :mod:`.amp`)."""
from .amp import *  # noqa: F401,F403
from .amp import __all__  # noqa: F401
