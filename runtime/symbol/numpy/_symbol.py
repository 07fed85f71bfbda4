"""The np symbol (``_Symbol``) and :func:`apply`, the composition every ``mx.sym.np``
function goes through (see the package docstring)."""
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
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        return apply("_npx_reshape", (self,), {"newshape": tuple(int(n) for n in shape),
                                               "reverse": bool(reverse)})

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = axes[0] or ()
        return apply("_npi_transpose", (self,), {"axes": tuple(axes or ())})

    @property
    def T(self):
        return apply("_npi_transpose", (self,), {"axes": ()})

    def flatten(self, order="C"):
        return self.reshape(-1)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        import numpy as _onp
        return apply("Cast", (self,), {"dtype": _onp.dtype(dtype).name})

    def dot(self, b):
        return apply("_npi_dot", (self, b))

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
