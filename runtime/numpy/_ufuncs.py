"""``mx.np``'s elementwise functions (``add``, ``greater``, ``sqrt``...): thin front doors
over the registered ``_npi_*`` operators (:mod:`xprof.runtime.ops.np_elemwise`).

Each function is made once from a table row: a binary function picks the array-array
operator, or the array-scalar one (its reflected form with the number on the left); a
unary function runs its operator. Two plain numbers give official NumPy's answer, as
in MXNet 2, where such a call never reaches an operator.
"""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, invoke
from .multiarray import to_np

__all__ = ["BINARY_FUNCTIONS", "UNARY_FUNCTIONS", "make_binary", "make_unary", "install"]


def _scalar(value):
    return value.item() if isinstance(value, _np.generic) else value


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, NDArray)


def make_binary(name, array_op, scalar_op, rscalar_op):
    """``name(x1, x2, out=None)``: ``array_op`` on two arrays, ``scalar_op`` with a
    number on the right, ``rscalar_op`` with a number on the left."""
    numpy_fn = getattr(_np, name, None)

    def fn(x1, x2, out=None, **kwargs):
        _no_numpy_only(name, kwargs)
        a1, a2 = isinstance(x1, NDArray), isinstance(x2, NDArray)
        if a1 and a2:
            return invoke(array_op, (to_np(x1), to_np(x2)), {}, out=out)
        if a1 and _is_number(x2):
            return invoke(scalar_op, (to_np(x1),), {"scalar": _scalar(x2)}, out=out)
        if a2 and _is_number(x1):
            return invoke(rscalar_op, (to_np(x2),), {"scalar": _scalar(x1)}, out=out)
        if _is_number(x1) and _is_number(x2):
            return numpy_fn(x1, x2)
        like = x1 if a1 else x2 if a2 else None
        return fn(x1 if a1 or _is_number(x1) else to_np(x1, like),
                  x2 if a2 or _is_number(x2) else to_np(x2, like), out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"NumPy's ``{name}``: operator ``{array_op}`` on two arrays, "
                  f"``{scalar_op}`` with a scalar.")
    return fn


_BOOL_RESULT = frozenset(("_npi_isnan", "_npi_isinf", "_npi_isfinite", "_npi_isposinf",
                          "_npi_isneginf", "_npi_signbit", "_npi_logical_not"))


def make_unary(name, op, **fixed):
    numpy_fn = getattr(_np, name, None)

    def fn(x, out=None, **kwargs):
        _no_numpy_only(name, kwargs)
        if _is_number(x) and numpy_fn is not None:
            return numpy_fn(x)
        if out is not None and op in _BOOL_RESULT and out.dtype != _np.bool_:
            raise TypeError(f"{name}: out has dtype {out.dtype}; the result is bool")
        return invoke(op, (to_np(x),), dict(fixed), out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's ``{name}``: operator ``{op}``."
    return fn


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}
_LEGAL_DTYPES = frozenset(["int8", "uint8", "int32", "int64", "float16", "float32",
                           "float64"])


def _legal(key, value):
    """A value NumPy takes for ufunc keyword ``key`` (MXNet: not implemented, rather than
    not understood)."""
    if key == "where":
        return True
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        try:
            return _np.dtype(value).name in _LEGAL_DTYPES
        except TypeError:
            return False
    return key == "subok" and isinstance(value, bool)


def _no_numpy_only(name, kwargs):
    """NumPy's ufunc keywords with other than their defaults, as MXNet answers them:
    NotImplementedError for a value NumPy takes, TypeError for anything else."""
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS:
            raise TypeError(f"{key} is an invalid keyword to function '{name}'")
        default = _UFUNC_DEFAULTS[key]
        if value is default or (type(value) is type(default) and value == default):
            continue
        if _legal(key, value):
            raise NotImplementedError(f"{name}: {key}={value!r} is not implemented")
        raise TypeError(f"{key}={value!r} not understood for operator {name}")


# function -> (array op, scalar op, reflected scalar op)
BINARY_FUNCTIONS = {
    "add": ("_npi_add", "_npi_add_scalar", "_npi_add_scalar"),
    "subtract": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
    "multiply": ("_npi_multiply", "_npi_multiply_scalar", "_npi_multiply_scalar"),
    "divide": ("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar"),
    "true_divide": ("_npi_true_divide", "_npi_true_divide_scalar",
                    "_npi_rtrue_divide_scalar"),
    "floor_divide": ("_npi_floor_divide", "_npi_floor_divide_scalar",
                     "_npi_rfloor_divide_scalar"),
    "power": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
    "pow": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
    "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    "remainder": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    # MXNet 2.0.0b1 runs np.maximum/minimum of two arrays as the 1.x operators
    "maximum": ("broadcast_maximum", "_npi_maximum_scalar", "_npi_maximum_scalar"),
    "minimum": ("broadcast_minimum", "_npi_minimum_scalar", "_npi_minimum_scalar"),
    "hypot": ("_npi_hypot", "_npi_hypot_scalar", "_npi_hypot_scalar"),
    "equal": ("_npi_equal", "_npi_equal_scalar", "_npi_equal_scalar"),
    "not_equal": ("_npi_not_equal", "_npi_not_equal_scalar", "_npi_not_equal_scalar"),
    "greater": ("_npi_greater", "_npi_greater_scalar", "_npi_less_scalar"),
    "greater_equal": ("_npi_greater_equal", "_npi_greater_equal_scalar",
                      "_npi_less_equal_scalar"),
    "less": ("_npi_less", "_npi_less_scalar", "_npi_greater_scalar"),
    "less_equal": ("_npi_less_equal", "_npi_less_equal_scalar", "_npi_greater_equal_scalar"),
    "logical_and": ("_npi_logical_and", "_npi_logical_and_scalar", "_npi_logical_and_scalar"),
    "logical_or": ("_npi_logical_or", "_npi_logical_or_scalar", "_npi_logical_or_scalar"),
    "logical_xor": ("_npi_logical_xor", "_npi_logical_xor_scalar", "_npi_logical_xor_scalar"),
    "bitwise_and": ("_npi_bitwise_and", "_npi_bitwise_and_scalar", "_npi_bitwise_and_scalar"),
    "bitwise_or": ("_npi_bitwise_or", "_npi_bitwise_or_scalar", "_npi_bitwise_or_scalar"),
    "bitwise_xor": ("_npi_bitwise_xor", "_npi_bitwise_xor_scalar", "_npi_bitwise_xor_scalar"),
    "left_shift": ("_npi_left_shift", "_npi_left_shift_scalar", "_npi_rleft_shift_scalar"),
    "right_shift": ("_npi_right_shift", "_npi_right_shift_scalar",
                    "_npi_rright_shift_scalar"),
}
# binary functions with no scalar operator: a scalar operand becomes a 0-d array
ARRAY_ONLY = {"arctan2": "_npi_arctan2", "copysign": "_npi_copysign",
              "logaddexp": "_npi_logaddexp", "fmax": "_npi_fmax", "fmin": "_npi_fmin",
              "fmod": "_npi_fmod", "ldexp": "_npi_ldexp", "lcm": "_npi_lcm", "gcd": "_npi_gcd"}

UNARY_FUNCTIONS = {
    "absolute": "_npi_absolute", "abs": "_npi_absolute", "fabs": "_npi_absolute",
    "negative": "_npi_negative", "positive": "_npi_copy", "sign": "_npi_sign",
    "square": "_npi_square", "reciprocal": "_npi_reciprocal", "sqrt": "_npi_sqrt",
    "cbrt": "_npi_cbrt", "exp": "_npi_exp", "expm1": "_npi_expm1", "log": "_npi_log",
    "log2": "_npi_log2", "log10": "_npi_log10", "log1p": "_npi_log1p", "sin": "_npi_sin",
    "cos": "_npi_cos", "tan": "_npi_tan", "arcsin": "_npi_arcsin", "arccos": "_npi_arccos",
    "arctan": "_npi_arctan", "sinh": "_npi_sinh", "cosh": "_npi_cosh", "tanh": "_npi_tanh",
    "arcsinh": "_npi_arcsinh", "arccosh": "_npi_arccosh", "arctanh": "_npi_arctanh",
    "asin": "_npi_arcsin", "acos": "_npi_arccos", "atan": "_npi_arctan",
    "asinh": "_npi_arcsinh", "acosh": "_npi_arccosh", "atanh": "_npi_arctanh",
    "degrees": "_npi_degrees", "rad2deg": "_npi_degrees", "radians": "_npi_radians",
    "deg2rad": "_npi_radians", "floor": "_npi_floor", "ceil": "_npi_ceil",
    "trunc": "_npi_trunc", "rint": "_npi_rint", "fix": "_npi_fix",
    "logical_not": "_npi_logical_not", "isnan": "_npi_isnan", "isinf": "_npi_isinf",
    "isfinite": "_npi_isfinite", "isposinf": "_npi_isposinf", "isneginf": "_npi_isneginf",
    "signbit": "_npi_signbit", "bitwise_not": "_npi_bitwise_not", "invert": "_npi_bitwise_not",
    "bitwise_invert": "_npi_bitwise_not",
}


def make_array_only(name, op):
    numpy_fn = getattr(_np, name)

    def fn(x1, x2, out=None, **kwargs):
        _no_numpy_only(name, kwargs)
        if _is_number(x1) and _is_number(x2):
            return numpy_fn(x1, x2)
        like = x1 if isinstance(x1, NDArray) else x2 if isinstance(x2, NDArray) else None
        return invoke(op, (to_np(x1, like), to_np(x2, like)), {}, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's ``{name}``: operator ``{op}``."
    return fn


def install(namespace):
    for name, ops in BINARY_FUNCTIONS.items():
        namespace[name] = make_binary(name, *ops)
    for name, op in ARRAY_ONLY.items():
        namespace[name] = make_array_only(name, op)
    for name, op in UNARY_FUNCTIONS.items():
        namespace[name] = make_unary(name, op)
    namespace["bitwise_left_shift"] = namespace["left_shift"]
    namespace["bitwise_right_shift"] = namespace["right_shift"]
    namespace["atan2"] = namespace["arctan2"]
    return namespace

