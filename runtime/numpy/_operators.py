"""The Python operators of ``mx.np.ndarray`` (``x + 1``, ``x / y``, ``x > 0``, ``x += y``):
NumPy's rules, MXNet 2's operator names.

``x <op> number`` where the number keeps the array's dtype (an int or float on a float
array, an int on an int array) goes straight to the NDArray layer's fast path
(``ndarray._scalar_op``: one allocation, one push), so ``x + 1`` costs on an np array
what it costs on an nd array; any other case is one ``invoke`` of the array-array or
array-scalar operator. The front-door functions (``mx.np.add``...) use :func:`binary`
too.
"""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, _scalar_op, invoke
from ..ops.elemwise import SCALAR_FNS
from .multiarray import ndarray, to_np

__all__ = ["OPERATORS", "binary", "reflected"]

# Python operator -> (array op, op with a scalar on the right, op with a scalar on the
# left (None: Python reflects the comparison itself), dtype kinds whose arrays keep their
# dtype with an int scalar (the fast path's))
OPERATORS = {
    "add": ("_npi_add", "_npi_add_scalar", "_npi_add_scalar", "fiu"),
    "sub": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar", "fiu"),
    "mul": ("_npi_multiply", "_npi_multiply_scalar", "_npi_multiply_scalar", "fiu"),
    "truediv": ("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar",
                "f"),
    "floordiv": ("_npi_floor_divide", "_npi_floor_divide_scalar",
                 "_npi_rfloor_divide_scalar", "fiu"),
    "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar", "fiu"),
    "pow": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar", "fiu"),
    "and": ("_npi_bitwise_and", "_npi_bitwise_and_scalar", "_npi_bitwise_and_scalar", ""),
    "or": ("_npi_bitwise_or", "_npi_bitwise_or_scalar", "_npi_bitwise_or_scalar", ""),
    "xor": ("_npi_bitwise_xor", "_npi_bitwise_xor_scalar", "_npi_bitwise_xor_scalar", ""),
    "lshift": ("_npi_left_shift", "_npi_left_shift_scalar", "_npi_rleft_shift_scalar", ""),
    "rshift": ("_npi_right_shift", "_npi_right_shift_scalar", "_npi_rright_shift_scalar",
               ""),
    "eq": ("_npi_equal", "_npi_equal_scalar", None, ""),
    "ne": ("_npi_not_equal", "_npi_not_equal_scalar", None, ""),
    "gt": ("_npi_greater", "_npi_greater_scalar", None, ""),
    "ge": ("_npi_greater_equal", "_npi_greater_equal_scalar", None, ""),
    "lt": ("_npi_less", "_npi_less_scalar", None, ""),
    "le": ("_npi_less_equal", "_npi_less_equal_scalar", None, ""),
}
_LOGICAL = {"_npi_bitwise_and": "_npi_logical_and", "_npi_bitwise_or": "_npi_logical_or",
            "_npi_bitwise_xor": "_npi_logical_xor"}


def _scalar(value):
    if isinstance(value, _np.generic):
        return value.item()
    return value


def binary(x, other, names, out=None):
    """``x <op> other`` for an np array ``x``: the array op for two arrays, the scalar
    op for a number; NotImplemented for anything else."""
    array_op, scalar_op = names[0], names[1]
    if isinstance(other, NDArray):
        if array_op in _LOGICAL and x._dtype.kind == "b" and other._dtype.kind == "b":
            array_op = _LOGICAL[array_op]
        return invoke(array_op, (x, to_np(other)), {}, out=out)
    if isinstance(other, numbers.Number):
        return invoke(scalar_op, (x,), {"scalar": _scalar(other)}, out=out)
    if isinstance(other, (_np.ndarray, list, tuple)):
        return binary(x, to_np(other, x), names, out)
    return NotImplemented


def reflected(x, other, names):
    """``other <op> x`` for an np array ``x`` and a number or numpy data ``other``."""
    if isinstance(other, numbers.Number):
        return invoke(names[2], (x,), {"scalar": _scalar(other)})
    if isinstance(other, (_np.ndarray, list, tuple)):
        return binary(to_np(other, x), x, names)
    return NotImplemented


def _left(names):
    scalar_op, kinds = names[1], names[3]

    def method(self, other):
        t = type(other)
        if t is float:
            if self._dtype.kind == "f":
                return _scalar_op(scalar_op, self, other)
        elif t is int and self._dtype.kind in kinds:
            return _scalar_op(scalar_op, self, other)
        return binary(self, other, names)
    return method


def _right(names):
    scalar_op, kinds = names[2], names[3]

    def method(self, other):
        t = type(other)
        if (t is float and self._dtype.kind == "f" or t is int and self._dtype.kind in kinds) \
                and scalar_op in _SCALAR_FAST:
            return _scalar_op(scalar_op, self, other)
        return reflected(self, other, names)
    return method


def _inplace(names):
    def method(self, other):
        result = binary(self, other, names, out=self)
        return self if result is NotImplemented else result
    return method


def attach(cls):
    for op, names in OPERATORS.items():
        fast = names[3] and names[1] in _SCALAR_FAST
        setattr(cls, f"__{op}__", _left(names) if fast else
                (lambda n: lambda self, other: binary(self, other, n))(names))
        if names[2] is not None:
            setattr(cls, f"__r{op}__", _right(names))
            setattr(cls, f"__i{op}__", _inplace(names))


_SCALAR_FAST = frozenset(SCALAR_FNS)
attach(ndarray)
