"""Importing this package registers every operator (see :mod:`.registry`).

One module per concept: :mod:`.params` (parameter parsing, optional inputs), then the
operators: :mod:`.elemwise`, :mod:`.unary_math`, :mod:`.reduce`, :mod:`.rearrange`, :mod:`.sorting`, :mod:`.linalg`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.join`, :mod:`.creation`, :mod:`.sampling`,
:mod:`.fully_connected`, :mod:`.conv`, :mod:`.pooling`, :mod:`.activation`,
:mod:`.dropout`, :mod:`.rnn`, :mod:`.softmax`, :mod:`.gradient_control`, :mod:`.optim`.
"""
from . import (activation, conv, creation, dropout, elemwise, fully_connected,  # noqa: F401
               gradient_control, indexing, join, linalg, optim, pooling, rearrange, reduce,
               rnn, sampling, shape, softmax, sorting, unary_math)
from .registry import OpDef, defop, get  # noqa: F401
