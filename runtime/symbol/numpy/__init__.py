"""``mx.sym.np``: MXNet's NumPy interface on symbols (``mxnet.symbol.numpy`` of MXNet 1.x).

``mx.sym.var('x').as_np_ndarray()`` is an np symbol, :class:`_Symbol`: composing on it
makes graph nodes of the same registered operators ``mx.np`` pushes (``_npi_add``,
``_npi_sum``, ``_npi_tensordot``, ``_npx_reshape``...), with NumPy's operators and
basic slicing; ``as_nd_ndarray()`` gives the legacy symbol back (the same graph, as in
MXNet), to bind and run with the executor.

A symbol has no shape until it is bound, so these are the functions whose operator
parameters do not depend on the input's shape: ``mx.np``'s front doors for those read
``x.shape`` (``np.split`` into sections, ``np.atleast_2d``...), and there is no
``mx.sym.np`` function of those names. The graph of a hybridized block on np arrays is
recorded from its call instead (``gluon/_trace.py``): every ``mx.np`` function works there.
"""
from ._symbol import _Symbol, apply  # noqa: F401
from ._functions import *  # noqa: F401,F403 - the functions
from ._functions import __all__ as _fn_all
from . import linalg, random  # noqa: F401

__all__ = ["_Symbol", "apply"] + list(_fn_all)
