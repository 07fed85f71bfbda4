"""Importing this package registers every operator (see :mod:`.registry`)."""
from . import elemwise, matrix, nn, optim, reduce  # noqa: F401
from .registry import OpDef, defop, get  # noqa: F401
