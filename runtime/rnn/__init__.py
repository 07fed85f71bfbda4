"""``mx.rnn``: MXNet 1.x's legacy symbolic recurrent cells (:mod:`.rnn_cell`)."""
from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__  # noqa: F401
