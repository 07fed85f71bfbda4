"""Importing this package registers every operator (see :mod:`.registry`).

One module per concept: :mod:`.params` (parameter parsing, optional inputs), then the
operators: :mod:`.elemwise`, :mod:`.reduce`, :mod:`.linalg`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.join`, :mod:`.creation`, :mod:`.sampling`,
:mod:`.fully_connected`, :mod:`.conv`, :mod:`.pooling`, :mod:`.activation`,
:mod:`.dropout`, :mod:`.rnn`, :mod:`.softmax`, :mod:`.gradient_control`, :mod:`.optim`,
:mod:`.rearrange`, :mod:`.sorting`, :mod:`.unary_math`, :mod:`.normalization`,
:mod:`.embedding`, :mod:`.deconvolution`, :mod:`.distributions`, :mod:`.ctc`.
"""
from . import (activation, conv, creation, ctc, deconvolution, distributions,  # noqa: F401
               dropout, elemwise, embedding, fully_connected, gradient_control, indexing, join, linalg,
               normalization, optim, pooling, rearrange, reduce, rnn, sampling, shape,
               softmax, sorting, unary_math)
from .registry import OpDef, defop, get  # noqa: F401
