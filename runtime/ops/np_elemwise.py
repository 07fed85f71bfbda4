"""MXNet 2's NumPy elementwise operators (``_npi_add``, ``_npi_add_scalar``,
``_npi_greater``, ``_npi_sqrt``...), each made from the MXNet 1.x operator that computes
the same thing (:func:`.registry.derive`): its kernel and its gradient, under MXNet 2's
operator name and gradient name, with NumPy's dtype rules in place of 1.x's.

NumPy's rules, as MXNet 2 applies them (measured on MXNet 2.0.0b1):

- two arrays: same dtype stays; a float and an int or bool: the float; two ints: numpy's
  promotion; bool with bool in arithmetic: the default float (float32, or float64 under
  ``npx.set_np(dtype=True)``);
- an array and a Python scalar: a float array keeps its dtype; an int array with an int
  keeps its dtype, with a float becomes float64; a bool array becomes the default float;
- true division of ints, and the math functions of ints (``sqrt``, ``exp``...): the
  default float;
- comparisons and logical operators: ``bool``.

Kernels may return another dtype than the inferred one: the NDArray layer casts a
kernel's result to its output's dtype (``ndarray._store``), so a kernel that computes
an int array's mean in float64 leaves a float32 output when float32 is the default.
"""
import numpy as np

from ..util import default_float
from .elemwise import SCALAR_FNS, _COMPARE, _as, _unary, unbroadcast
from .registry import broadcast_shape, defop, derive, reads_no_out_grads, registry

__all__ = ["result_type", "float_of", "scalar_result", "BINARY", "SCALAR", "UNARY"]

_BOOL = np.dtype(bool)
_F64 = np.dtype(np.float64)


def result_type(a, b):
    """The dtype of an arithmetic op on arrays of dtypes ``a`` and ``b``."""
    if a == b:
        return default_float() if a.kind == "b" else a
    fa, fb = a.kind in "fc", b.kind in "fc"
    if fa != fb:
        return a if fa else b
    return np.promote_types(a, b)


def float_of(dtype):
    """``dtype`` if floating, else the default float (true division, math functions)."""
    return dtype if dtype.kind in "fc" else default_float()


def scalar_result(dtype, scalar):
    """The dtype of an arithmetic op on an array of ``dtype`` and a Python ``scalar``."""
    kind = dtype.kind
    if kind in "fc":
        return dtype
    if kind == "b":
        return default_float()
    if isinstance(scalar, (float, np.floating)):
        return _F64
    return dtype


# -- array (op) array ---------------------------------------------------------------------
def _promoted(a, b, floating):
    if a.dtype != b.dtype or floating and a.dtype.kind not in "fc":
        t = result_type(a.dtype, b.dtype)
        if floating and t.kind not in "fc":
            t = _F64      # computed in float64, stored in the output's float dtype
        a, b = a.astype(t, copy=False), b.astype(t, copy=False)
    return a, b


def _np_binary(name, base, grad_name, floating=False):
    """``name``: ``base``'s kernel on operands promoted to one dtype (``floating``: a
    float one, true division), its gradient, NumPy's result dtype."""
    kernel0 = registry[base].kernel

    def kernel(a, b):
        a, b = _promoted(a, b, floating)
        return kernel0(a, b)

    def infer(in_shapes, in_dtypes, **_):
        shapes, _ = broadcast_shape(in_shapes, in_dtypes)
        t = result_type(in_dtypes[0], in_dtypes[1])
        return shapes, [float_of(t) if floating else t]

    op = derive(name, base, grad_name, kernel=kernel, infer=infer)
    if name == "_npi_mod":          # MXNet: an integer remainder's gradient is zero
        grad0 = op.grad

        def grad(ograds, inputs, outputs, **params):
            if inputs[0].dtype.kind in "iu" and inputs[1].dtype.kind in "iu":
                return [np.zeros_like(x) for x in inputs]
            return grad0(ograds, inputs, outputs, **params)
        op.grad = grad
    return op


# np name -> (MXNet 1.x operator, MXNet 2's gradient op name)
BINARY = {
    "_npi_add": ("broadcast_add", "_backward_npi_broadcast_add"),
    "_npi_subtract": ("broadcast_sub", "_backward_npi_broadcast_sub"),
    "_npi_multiply": ("broadcast_mul", "_backward_npi_broadcast_mul"),
    "_npi_true_divide": ("broadcast_div", "_backward_npi_broadcast_div"),
    "_npi_power": ("broadcast_power", "_backward_npi_broadcast_power"),
    "_npi_mod": ("broadcast_mod", "_backward_npi_broadcast_mod"),
    "_npi_hypot": ("broadcast_hypot", "_backward_npi_hypot"),
}
for _name, (_base, _gname) in BINARY.items():
    _np_binary(_name, _base, _gname, floating=_name in ("_npi_true_divide", "_npi_hypot"))


def _new_binary(name, fn, grad, floating=True, grad_name=None):
    """A NumPy binary operator MXNet 1.x has no counterpart of (``arctan2``,
    ``logaddexp``...): broadcasting, promoted operands, ``grad(g, a, b, out)`` -> the
    two unreduced gradients (None: not differentiable)."""
    def kernel(a, b):
        a, b = _promoted(a, b, floating)
        return fn(a, b)

    def infer(in_shapes, in_dtypes, **_):
        shapes, _ = broadcast_shape(in_shapes, in_dtypes)
        t = result_type(in_dtypes[0], in_dtypes[1])
        return shapes, [float_of(t) if floating else t]

    def g(ograds, inputs, outputs):
        a, b = inputs
        if grad is None:
            return [None, None]
        ga, gb = grad(ograds[0], a, b, outputs[0])
        return [_as(a, unbroadcast(np.broadcast_to(ga, ograds[0].shape), a.shape)),
                _as(b, unbroadcast(np.broadcast_to(gb, ograds[0].shape), b.shape))]

    return defop(name, kernel, arg_names=("x1", "x2"), infer=infer, grad=g,
                 grad_name=grad_name)


def _floor_divide(a, b):
    if a.dtype.kind in "iu":
        with np.errstate(divide="ignore"):
            return np.where(b == 0, 0, np.floor_divide(a, np.where(b == 0, 1, b)))
    return np.floor_divide(a, b)


_new_binary("_npi_arctan2", np.arctan2,
            lambda g, a, b, o: (g * b / (a * a + b * b), -g * a / (a * a + b * b)))
_new_binary("_npi_copysign", np.copysign,
            lambda g, a, b, o: (g * np.where(np.sign(a) == np.sign(np.copysign(1, b)), 1, -1),
                                0 * g))
_new_binary("_npi_logaddexp", np.logaddexp,
            lambda g, a, b, o: (g * np.exp(a - o), g * np.exp(b - o)))
_new_binary("_npi_fmax", np.fmax, lambda g, a, b, o: (g * (a >= b), g * (a < b)), False)
_new_binary("_npi_fmin", np.fmin, lambda g, a, b, o: (g * (a <= b), g * (a > b)), False)
_new_binary("_npi_fmod", np.fmod, lambda g, a, b, o: (g, -g * np.trunc(a / b)), False)
_new_binary("_npi_ldexp", lambda a, b: a * np.power(2.0, b),
            lambda g, a, b, o: (g * np.power(2.0, b), g * o * np.log(2.0)))
_new_binary("_npi_floor_divide", _floor_divide, None, False, grad_name="zeros_like")
for _name, _fn in (("_npi_bitwise_and", np.bitwise_and), ("_npi_bitwise_or", np.bitwise_or),
                   ("_npi_bitwise_xor", np.bitwise_xor), ("_npi_lcm", np.lcm),
                   ("_npi_gcd", np.gcd), ("_npi_left_shift", np.left_shift),
                   ("_npi_right_shift", np.right_shift)):
    _new_binary(_name, _fn, None, False)


# -- comparisons and logical operators: bool results, no gradient ------------------------
def _bool_infer(in_shapes, in_dtypes, **_):
    shapes, _ = broadcast_shape(in_shapes, in_dtypes)
    return shapes, [_BOOL]


def _bool_scalar_infer(in_shapes, in_dtypes, **_):
    return [tuple(in_shapes[0])], [_BOOL]


@reads_no_out_grads
def _no_grad(ograds, inputs, outputs, **_):
    return [None] * len(inputs)


for _np_name, _legacy in (("equal", "equal"), ("not_equal", "not_equal"),
                          ("greater", "greater"), ("greater_equal", "greater_equal"),
                          ("less", "lesser"), ("less_equal", "lesser_equal"),
                          ("logical_and", "logical_and"), ("logical_or", "logical_or"),
                          ("logical_xor", "logical_xor")):
    _fn = _COMPARE[_legacy]
    derive("_npi_" + _np_name, "broadcast_" + _legacy, kernel=_fn, infer=_bool_infer,
           grad=_no_grad)
    derive("_npi_" + _np_name + "_scalar", "_" + _legacy + "_scalar",
           kernel=lambda x, scalar=0.0, _f=_fn: _f(x, scalar), infer=_bool_scalar_infer,
           grad=_no_grad)


# -- array (op) Python scalar ----------------------------------------------------------------
def _scalar_infer(in_shapes, in_dtypes, scalar=0.0, **_):
    return [tuple(in_shapes[0])], [scalar_result(in_dtypes[0], scalar)]


def _float_scalar_infer(in_shapes, in_dtypes, scalar=0.0, **_):
    return [tuple(in_shapes[0])], [float_of(scalar_result(in_dtypes[0], scalar))]


# np name -> (MXNet 1.x operator, MXNet 2's gradient op name, float result for ints)
SCALAR = {
    "_npi_add_scalar": ("_plus_scalar", "_copy", False),
    "_npi_subtract_scalar": ("_minus_scalar", "_copy", False),
    "_npi_rsubtract_scalar": ("_rminus_scalar", "negative", False),
    "_npi_multiply_scalar": ("_mul_scalar", "_backward_mul_scalar", False),
    "_npi_true_divide_scalar": ("_div_scalar", "_backward_div_scalar", True),
    "_npi_rtrue_divide_scalar": ("_rdiv_scalar", "_backward_rdiv_scalar", True),
    "_npi_power_scalar": ("_power_scalar", "_backward_power_scalar", False),
    "_npi_rpower_scalar": ("_rpower_scalar", "_backward_rpower_scalar", False),
    "_npi_mod_scalar": ("_mod_scalar", "_backward_mod_scalar", False),
    "_npi_rmod_scalar": ("_rmod_scalar", "_backward_rmod_scalar", False),
    "_npi_maximum_scalar": ("_maximum_scalar", "_backward_maximum_scalar", False),
    "_npi_minimum_scalar": ("_minimum_scalar", "_backward_minimum_scalar", False),
    "_npi_hypot_scalar": ("_hypot_scalar", "_backward_hypot_scalar", True),
}
for _name, (_base, _gname, _floating) in SCALAR.items():
    _fn = SCALAR_FNS[_base]
    derive(_name, _base, _gname, kernel=lambda x, scalar=0.0, _f=_fn: _f(x, scalar),
           infer=_float_scalar_infer if _floating else _scalar_infer)
    # ``x + 1`` on an np array: the NDArray layer's fast path runs the plain function and
    # casts to the output's dtype itself (ndarray._scalar_op)
    SCALAR_FNS[_name] = _fn


def _floor_divide_scalar(x, scalar=0.0):
    return _floor_divide(x, np.asarray(scalar, dtype=scalar_result(x.dtype, scalar)))


def _rfloor_divide_scalar(x, scalar=0.0):
    return _floor_divide(np.asarray(scalar, dtype=scalar_result(x.dtype, scalar)), x)


for _name, _fn in (("_npi_floor_divide_scalar", _floor_divide_scalar),
                   ("_npi_rfloor_divide_scalar", _rfloor_divide_scalar)):
    defop(_name, _fn, infer=_scalar_infer, grad=_no_grad, grad_name="zeros_like",
          params={"scalar": 0.0})
    SCALAR_FNS[_name] = _fn
for _name, _fn in (("_npi_bitwise_and_scalar", np.bitwise_and),
                   ("_npi_bitwise_or_scalar", np.bitwise_or),
                   ("_npi_bitwise_xor_scalar", np.bitwise_xor),
                   ("_npi_left_shift_scalar", np.left_shift),
                   ("_npi_right_shift_scalar", np.right_shift),
                   ("_npi_rleft_shift_scalar", lambda x, s: np.left_shift(s, x)),
                   ("_npi_rright_shift_scalar", lambda x, s: np.right_shift(s, x))):
    defop(_name, lambda x, scalar=0, _f=_fn: _f(x, scalar), infer=_scalar_infer,
          grad=_no_grad, params={"scalar": 0})


# -- unary ---------------------------------------------------------------------------------
def _unary_float_infer(in_shapes, in_dtypes, **_):
    return [tuple(in_shapes[0])], [float_of(in_dtypes[0])]


def _floated(kernel0):
    def kernel(x):
        return kernel0(x if x.dtype.kind in "fc" else x.astype(_F64))
    return kernel


# np name -> (MXNet 1.x operator, MXNet 2's gradient op name, float result for ints)
UNARY = {
    "_npi_absolute": ("abs", "_backward_abs", False),
    "_npi_negative": ("negative", "negative", False),
    "_npi_sign": ("sign", "zeros_like", False),
    "_npi_square": ("square", "_backward_square", False),
    "_npi_reciprocal": ("reciprocal", "_backward_reciprocal", True),
    "_npi_sqrt": ("sqrt", None, True), "_npi_cbrt": ("cbrt", None, True),
    "_npi_exp": ("exp", None, True), "_npi_expm1": ("expm1", None, True),
    "_npi_log": ("log", None, True), "_npi_log2": ("log2", None, True),
    "_npi_log10": ("log10", None, True), "_npi_log1p": ("log1p", None, True),
    "_npi_sin": ("sin", None, True), "_npi_cos": ("cos", None, True),
    "_npi_tan": ("tan", None, True), "_npi_arcsin": ("arcsin", None, True),
    "_npi_arccos": ("arccos", None, True), "_npi_arctan": ("arctan", None, True),
    "_npi_sinh": ("sinh", None, True), "_npi_cosh": ("cosh", None, True),
    "_npi_tanh": ("tanh", None, True), "_npi_arcsinh": ("arcsinh", None, True),
    "_npi_arccosh": ("arccosh", None, True), "_npi_arctanh": ("arctanh", None, True),
    "_npi_degrees": ("degrees", None, True), "_npi_radians": ("radians", None, True),
    "_npi_floor": ("floor", "zeros_like", False), "_npi_ceil": ("ceil", "zeros_like", False),
    "_npi_trunc": ("trunc", "zeros_like", False), "_npi_rint": ("rint", "zeros_like", False),
    "_npi_fix": ("fix", "zeros_like", False),
    "_npx_relu": ("relu", "_backward_relu", False),
    "_npx_sigmoid": ("sigmoid", "_backward_sigmoid", True),
}
for _name, (_base, _gname, _floating) in UNARY.items():
    if _floating:
        derive(_name, _base, _gname or "_backward_npi_" + _base,
               kernel=_floated(registry[_base].kernel), infer=_unary_float_infer)
    else:
        derive(_name, _base, _gname or "_backward_npi_" + _base)

_unary("_npi_copy", lambda x: x.copy(), lambda g, x, o: g)
registry["_npi_copy"].grad_name = "_copy"


def _bool_unary(name, fn):
    defop(name, fn, infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0])], [_BOOL]),
          grad=_no_grad)


for _name, _fn in (("_npi_logical_not", np.logical_not), ("_npi_isnan", np.isnan),
                   ("_npi_isinf", np.isinf), ("_npi_isfinite", np.isfinite),
                   ("_npi_isposinf", np.isposinf), ("_npi_isneginf", np.isneginf),
                   ("_npi_signbit", np.signbit)):
    _bool_unary(_name, _fn)
defop("_npi_bitwise_not", np.invert, grad=_no_grad)


def _around(x, decimals=0):
    if x.dtype.kind in "iu" and decimals >= 0:
        return x.copy()
    return np.round(x, int(decimals))   # numpy's: half to even, as MXNet 2's np.around


defop("_npi_around", _around, grad=lambda ograds, inputs, outputs, **_: [None],
      grad_name="zeros_like", params={"decimals": 0})
