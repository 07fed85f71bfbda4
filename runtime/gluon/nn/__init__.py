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

