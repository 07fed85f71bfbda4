"""Importing this package registers every operator (see :mod:`.registry`)."""
from . import elemwise, reduce  # noqa: F401
try:  # TEMP while helpers write them
    from . import matrix  # noqa: F401
except ImportError:
    pass
try:
    from . import nn  # noqa: F401
except ImportError:
    pass
from .registry import OpDef, defop, get  # noqa: F401
