"""Importing this package registers every operator (see :mod:`.registry`).

One module per concept: :mod:`.params` (parameter parsing, optional inputs), then the
operators: :mod:`.elemwise`, :mod:`.reduce`, :mod:`.linalg`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.join`, :mod:`.creation`, :mod:`.sampling`,
:mod:`.fully_connected`, :mod:`.conv`, :mod:`.pooling`, :mod:`.activation`,
:mod:`.dropout`, :mod:`.rnn`, :mod:`.softmax`, :mod:`.gradient_control`, :mod:`.optim`,
:mod:`.rearrange`, :mod:`.sorting`, :mod:`.unary_math`, :mod:`.normalization`,
:mod:`.embedding`, :mod:`.deconvolution`, :mod:`.sequence`, :mod:`.output_heads`;
:mod:`.python_level` holds the functions MXNet writes in Python over these.
"""
from . import (activation, contrib, conv, creation, deconvolution, dropout, elemwise,  # noqa: F401
               embedding, fully_connected, gradient_control, indexing, join, la, linalg,
               normalization, optim, output_heads, pooling, rearrange, reduce, rnn,
               sampling, sequence, shape, softmax, sorting, unary_math)
from .registry import OpDef, defop, get  # noqa: F401
