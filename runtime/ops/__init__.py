"""Importing this package registers every operator (see :mod:`.registry`).

One module per concept: :mod:`.params` (parameter parsing, optional inputs), then the
operators: :mod:`.elemwise`, :mod:`.reduce`, :mod:`.linalg`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.join`, :mod:`.creation`, :mod:`.sampling`,
:mod:`.fully_connected`, :mod:`.conv`, :mod:`.pooling`, :mod:`.activation`,
:mod:`.dropout`, :mod:`.softmax`, :mod:`.gradient_control`, :mod:`.optim`,
:mod:`.normalization`, :mod:`.embedding`, :mod:`.deconvolution`.
"""
from . import (activation, conv, creation, dropout, elemwise, fully_connected,  # noqa: F401
               gradient_control, indexing, join, linalg, optim, pooling, reduce, sampling,
               shape, softmax)
from . import deconvolution, embedding, normalization  # noqa: F401,E402
from .registry import OpDef, defop, get  # noqa: F401
