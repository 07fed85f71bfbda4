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
import numbers

from ...ops import registry as _registry
from ..symbol import Symbol, _compose

__all__ = ["_Symbol", "apply"]


def apply(opname, inputs=(), params=None, name=None):
    """An np symbol: a node of registered operator ``opname`` on ``inputs``."""
    inputs = tuple(_as_np(x) for x in inputs)
    s = _compose(_registry.get(opname), inputs, dict(params or {}), name, None, opname)
    return _Symbol(s._outputs)


def _as_np(x):
    if not isinstance(x, Symbol):
        raise TypeError(f"mx.sym.np: an input is a {type(x).__name__}, not a Symbol")
    return x


def _index_tuple(key):
    return key if isinstance(key, tuple) else (key,)


class _Symbol(Symbol):
    """A symbol with NumPy's rules (MXNet's ``mx.sym.np._Symbol``)."""

    __slots__ = ()
    __hash__ = Symbol.__hash__

    def as_nd_ndarray(self):
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        return self

    def __repr__(self):
        return "<_Symbol " + (self.name or "group") + ">"

    # -- basic slicing ---------------------------------------------------------------
    def __getitem__(self, key):
        if len(self._outputs) > 1:      # a group: pick an output, as MXNet
            return _Symbol(Symbol.__getitem__(self, key)._outputs)
        key = _index_tuple(key)
        begin, end, step, squeeze, new = [], [], [], [], []
        dim, out_dim = 0, 0
        for k in key:
            if k is None:
                new.append(out_dim)
                out_dim += 1
            elif isinstance(k, numbers.Integral) and not isinstance(k, bool):
                k = int(k)
                begin.append(k)
                end.append(k + 1 if k != -1 else None)
                step.append(1)
                squeeze.append(dim)
                dim += 1
            elif isinstance(k, slice):
                begin.append(k.start)
                end.append(k.stop)
                step.append(k.step)
                dim += 1
                out_dim += 1
            else:
                raise TypeError(f"mx.sym.np: index {k!r} is not supported on a symbol "
                                "(ints, slices and None are; index arrays need the "
                                "block's arrays)")
        out = self
        if begin:
            out = apply("slice", (out,), {"begin": tuple(begin), "end": tuple(end),
                                          "step": tuple(step)})
        if squeeze:
            out = apply("_npi_squeeze", (out,), {"axis": tuple(squeeze)})
        for axis in new:
            out = apply("expand_dims", (out,), {"axis": axis})
        return out

    # -- methods ---------------------------------------------------------------------
    def reshape(self, *shape, reverse=False, **kwargs):
        shape = kwargs.pop("newshape", kwargs.pop("shape", shape))
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        return reshape(self, shape, reverse=reverse)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = axes[0] or ()
        return transpose(self, axes)

    @property
    def T(self):
        return transpose(self)

    def flatten(self, order="C"):
        return reshape(self, (-1,))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        import numpy as _onp
        return apply("Cast", (self,), {"dtype": _onp.dtype(dtype).name})

    def dot(self, b):
        return dot(self, b)

    def copy(self):
        return apply("_npi_copy", (self,))

    def __neg__(self):
        return apply("_npi_negative", (self,))

    def __abs__(self):
        return apply("_npi_absolute", (self,))

    def __matmul__(self, other):
        return apply("_npi_matmul", (self, other))

    def __rmatmul__(self, other):
        return apply("_npi_matmul", (other, self))


def _binary_method(array_op, scalar_op, rscalar_op):
    def left(self, other):
        if isinstance(other, Symbol):
            return apply(array_op, (self, other))
        if isinstance(other, numbers.Number):
            return apply(scalar_op, (self,), {"scalar": other})
        return NotImplemented

    def right(self, other):
        if isinstance(other, numbers.Number):
            return apply(rscalar_op, (self,), {"scalar": other})
        return NotImplemented
    return left, right


def _attach_operators():
    from ...numpy._operators import OPERATORS
    for op, (array_op, scalar_op, rscalar_op, _) in OPERATORS.items():
        left, right = _binary_method(array_op, scalar_op, rscalar_op)
        setattr(_Symbol, f"__{op}__", left)
        if rscalar_op is not None:
            setattr(_Symbol, f"__r{op}__", right)
    _Symbol.__div__, _Symbol.__rdiv__ = _Symbol.__truediv__, _Symbol.__rtruediv__


_attach_operators()


# -- the legacy symbol's conversions ---------------------------------------------------------
def _as_np_ndarray(self):
    """The same graph as an np symbol (no node added, as in MXNet)."""
    return _Symbol(self._outputs)


def _as_nd_ndarray(self):
    return self


Symbol.as_np_ndarray = _as_np_ndarray
Symbol.as_nd_ndarray = _as_nd_ndarray

from ._functions import *  # noqa: E402,F401,F403 - the functions
from ._functions import __all__ as _fn_all  # noqa: E402
from . import linalg, random  # noqa: E402,F401

__all__ += _fn_all
