"""``gluon.rnn``: recurrent layers over the fused ``RNN`` operator (:mod:`.rnn_layer`)
and step-by-step cells with ``unroll`` (:mod:`.rnn_cell`), as in MXNet 1.x."""
from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__ as _cell_all
from .rnn_layer import *  # noqa: F401,F403
from .rnn_layer import __all__ as _layer_all

__all__ = list(_cell_all) + list(_layer_all)
