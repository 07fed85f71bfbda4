"""``mx.np``: MXNet 2's NumPy interface on xprof's engine.

``mx.np.ndarray`` (:mod:`.multiarray`) is an NDArray with NumPy's rules; the functions
here are thin front doors over registered operators (``ops/np_*.py``: ``_npi_add``,
``_npi_sum``, ``_npx_reshape``... mostly made from the MXNet 1.x operators that compute
the same thing), so every call is pushed to the engine, recorded by the profiler under
MXNet 2's operator name, and differentiable where MXNet's is. ``mx.np.random`` and
``mx.np.linalg`` are the submodules of the same names; ``mx.npx`` is
``xprof.runtime.numpy_extension``.

How other modules make np arrays: see :mod:`.multiarray`'s docstring
(``ndarray.invoke(..., cls=mx.np.ndarray)``, ``ndarray.from_numpy(..., cls=...)``,
``x.as_np_ndarray()``).
"""
import numpy as _onp

from . import _indexing, _operators  # noqa: F401 - complete the class
from . import _internal  # noqa: F401 - mx.np._internal
from . import linalg, random  # noqa: F401
from ._creation import (arange, array, asarray, ascontiguousarray, copy,  # noqa: F401
                        empty, empty_like, eye, full, full_like, identity, linspace, ones,
                        ones_like, zeros, zeros_like, hanning, hamming, blackman)
from ._reductions import (all, amax, amin, any, argmax, argmin, average,  # noqa: F401
                          cumsum, dot, inner, matmul, max, mean, min, outer, prod, std,
                          sum, tensordot, var, vdot)
from ._shape import (append, array_split, atleast_1d, atleast_2d,  # noqa: F401
                     atleast_3d, broadcast_arrays, broadcast_to, clip, column_stack, concat,
                     concatenate, dsplit, dstack, expand_dims, flip, fliplr, flipud, hsplit,
                     hstack, moveaxis, ndim, nonzero, permute_dims, ravel, repeat, reshape,
                     roll, rot90, row_stack, shape, size, split, squeeze, stack, swapaxes,
                     take, tile, transpose, vsplit, vstack, where, sort, argsort, around,
                     round, round_, tril, triu, diagonal, trace, diag)
from ._numeric import (diagflat, diff, ediff1d, einsum, may_share_memory,  # noqa: F401
                       nan_to_num, pad, polyval, shares_memory)
from ._ufuncs import install as _install_ufuncs
from .multiarray import ndarray

_install_ufuncs(globals())

# NumPy's constants and dtypes, as MXNet 2's mx.np has them
pi, e, inf, nan, newaxis, euler_gamma = (_onp.pi, _onp.e, _onp.inf, _onp.nan, None,
                                         _onp.euler_gamma)
PZERO, NZERO, NINF, PINF, NAN = 0.0, -0.0, -_onp.inf, _onp.inf, _onp.nan
(bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32,
 float64, dtype, finfo, iinfo, integer, floating, number, signedinteger,
 unsignedinteger, inexact, generic) = (
    _onp.bool_, _onp.int8, _onp.int16, _onp.int32, _onp.int64, _onp.uint8, _onp.uint16,
    _onp.uint32, _onp.uint64, _onp.float16, _onp.float32, _onp.float64, _onp.dtype,
    _onp.finfo, _onp.iinfo, _onp.integer, _onp.floating, _onp.number,
    _onp.signedinteger, _onp.unsignedinteger, _onp.inexact, _onp.generic)
bool = _onp.bool_      # noqa: A001 - MXNet 2's np.bool
(promote_types, result_type, can_cast, min_scalar_type, issubdtype, set_printoptions) = (
    _onp.promote_types, _onp.result_type, _onp.can_cast, _onp.min_scalar_type,
    _onp.issubdtype, _onp.set_printoptions)

from . import _fallback, fallback  # noqa: E402,F401 - names official NumPy computes
_fallback.install(globals())
from . import _methods, _interop  # noqa: E402,F401 - methods; official NumPy's protocols
_interop.bind(__import__("sys").modules[__name__])
