"""``gluon.nn``: neural-network layers (see :mod:`.basic_layers`, :mod:`.conv_layers`,
:mod:`.norm_layers`)."""
from ..block import Block, HybridBlock, SymbolBlock  # noqa: F401
from .basic_layers import *  # noqa: F401,F403
from .basic_layers import __all__ as _basic_all
from .conv_layers import *  # noqa: F401,F403
from .conv_layers import __all__ as _conv_all
from .norm_layers import *  # noqa: F401,F403
from .norm_layers import __all__ as _norm_all

__all__ = (["Block", "HybridBlock", "SymbolBlock"] + list(_basic_all) + list(_conv_all)
           + list(_norm_all))


def __getattr__(name):
    # MXNet 2 has the pixel shuffles in gluon.nn: the contrib layers of the same names
    if name in ("PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"):
        from ..contrib import nn as _contrib_nn
        try:
            return getattr(_contrib_nn, name)
        except AttributeError:
            pass
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
