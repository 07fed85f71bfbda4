"""Importing this package registers every operator (see :mod:`.registry`).

One module per concept: :mod:`.params` (parameter parsing, optional inputs), then the
operators: :mod:`.elemwise`, :mod:`.reduce`, :mod:`.linalg`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.join`, :mod:`.creation`, :mod:`.sampling`,
:mod:`.fully_connected`, :mod:`.conv`, :mod:`.pooling`, :mod:`.activation`,
:mod:`.dropout`, :mod:`.rnn`, :mod:`.softmax`, :mod:`.gradient_control`, :mod:`.optim`,
:mod:`.rearrange`, :mod:`.sorting`, :mod:`.unary_math`, :mod:`.normalization`,
:mod:`.embedding`, :mod:`.deconvolution`, :mod:`.sequence`, :mod:`.output_heads`,
:mod:`.la` (``linalg``), :mod:`.contrib`, :mod:`.upsampling`, :mod:`.gather`,
:mod:`.statistics`, :mod:`.im2col`, :mod:`.l2_normalization`, :mod:`.lrn`, :mod:`.ctc`,
:mod:`.spatial_transformer`, :mod:`.correlation`, :mod:`.amp`,
:mod:`.roi_pooling`, :mod:`.image`,
:mod:`.attention`, :mod:`.distributions`;
:mod:`.np_elemwise`, :mod:`.np_reduce`, :mod:`.np_indexing`, :mod:`.np_creation`: MXNet 2's
NumPy operators (``_npi_*``, ``_npx_*``), most made from the 1.x operators above;
:mod:`.python_level` holds the functions MXNet writes in Python over these.
"""
from . import (activation, amp, attention, contrib, conv, correlation,  # noqa: F401
               creation, ctc, deconvolution, distributions, dropout, elemwise, embedding, fully_connected, gather,
               gradient_control, im2col, image, indexing, join, l2_normalization, la, lrn,
               linalg, normalization, optim, output_heads, pooling, rearrange, reduce,
               rnn, roi_pooling, sampling, sequence, shape, softmax, sorting,
               spatial_transformer, statistics, unary_math, upsampling)
from . import cvimage  # noqa: F401,E402 - MXNet's OpenCV image operators (Imdecode...)
from . import optim_multi  # noqa: F401,E402 - multi_sgd_update... (aggregated updates)
from . import sparse_ops  # noqa: F401,E402 - cast_storage, _sparse_retain, _square_sum
from . import np_elemwise, np_reduce, np_indexing, np_creation, np_fallback, np_matrix  # noqa: F401,E402
from . import np_linalg, np_numeric, npx_ops  # noqa: F401,E402
from .registry import OpDef, defop, get  # noqa: F401
