"""``mx.rnn``: MXNet 1.x's legacy symbolic recurrent cells (:mod:`.rnn_cell`) and the
bucketing sentence iterator (:mod:`.io`)."""
from .io import BucketSentenceIter, encode_sentences  # noqa: F401
from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__ as _cells

__all__ = list(_cells) + ["BucketSentenceIter", "encode_sentences"]
