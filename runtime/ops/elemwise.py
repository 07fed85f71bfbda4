"""Elementwise operators: arithmetic with arrays and scalars, comparisons, unary math.

Names follow MXNet 1.x: ``x + 1`` is ``_plus_scalar``, ``x + y`` of two NDArrays is
``broadcast_add`` whatever their shapes (``elemwise_add`` for Symbols, and for sparse
arrays of equal shapes), ``1 - x`` is ``_rminus_scalar``. Each gradient sits next to its kernel.
"""
import operator

import numpy as np

from .registry import alias, broadcast_shape, defop, reads_no_out_grads, registry, same_shape
from .relu_kernel import relu as _relu


def unbroadcast(grad, shape):
    """Sum ``grad`` over the axes along which an input of ``shape`` was broadcast."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad


def _as(dtype_of, value):
    return value if value.dtype == dtype_of.dtype else value.astype(dtype_of.dtype)


# -- array (op) array ----------------------------------------------------------------
def _binary(names, fn, grad):
    """Register the same-shape (elemwise_*) and broadcasting (broadcast_*) forms."""
    same, bcast = names

    def kernel(a, b):
        r = fn(a, b)
        return r if r.dtype is a.dtype else _as(a, r)

    def g(ograds, inputs, outputs):
        a, b = inputs
        ga, gb = grad(ograds[0], a, b, outputs[0])
        return [None if ga is None else _as(a, unbroadcast(ga, a.shape)),
                None if gb is None else _as(b, unbroadcast(gb, b.shape))]

    reads = _GRAD_READS.get(same)
    defop(same, kernel, arg_names=("lhs", "rhs"), infer=broadcast_shape, grad=g,
          grad_reads=reads)
    defop(bcast, kernel, arg_names=("lhs", "rhs"), infer=broadcast_shape, grad=g,
          grad_reads=reads)


# the forward values the gradients of these read (add/sub: none, the shapes only)
_GRAD_READS = {"elemwise_add": lambda p: ((), False), "elemwise_sub": lambda p: ((), False),
               "elemwise_mul": lambda p: ((0, 1), False)}


_binary(("elemwise_add", "broadcast_add"), np.add, lambda g, a, b, o: (g, g))
_binary(("elemwise_sub", "broadcast_sub"), np.subtract, lambda g, a, b, o: (g, -g))
_binary(("elemwise_mul", "broadcast_mul"), np.multiply, lambda g, a, b, o: (g * b, g * a))
_binary(("elemwise_div", "broadcast_div"), np.divide,
        lambda g, a, b, o: (g / b, -g * a / (b * b)))
_binary(("_power", "broadcast_power"), np.power,
        lambda g, a, b, o: (g * b * np.power(a, b - 1),
                            g * o * np.log(np.where(a > 0, a, 1))))
_binary(("_maximum", "broadcast_maximum"), np.maximum,
        lambda g, a, b, o: (g * (a >= b), g * (a < b)))
_binary(("_minimum", "broadcast_minimum"), np.minimum,
        lambda g, a, b, o: (g * (a <= b), g * (a > b)))
def _mod(a, b):
    """MXNet's modulo: Python's sign convention (the divisor's), and 0 where b is 0."""
    zero = b == 0
    if not np.any(zero):
        return np.mod(a, b)
    return np.where(zero, 0, np.mod(a, np.where(zero, 1, b)))


def _floordiv(a, b):
    """floor(a / b), 0 where b is 0 (there the result is the constant 0)."""
    return np.where(b == 0, 0, np.floor(a / np.where(b == 0, 1, b)))


_binary(("_mod", "broadcast_mod"), _mod, lambda g, a, b, o: (g, -g * _floordiv(a, b)))
_binary(("_hypot", "broadcast_hypot"), np.hypot,
        lambda g, a, b, o: (g * a / o, g * b / o))
# MXNet's other names of the same operators
for _alias, _target in (("broadcast_plus", "broadcast_add"), ("broadcast_minus", "broadcast_sub"),
                        ("_add", "elemwise_add"), ("_plus", "elemwise_add"),
                        ("_sub", "elemwise_sub"), ("_minus", "elemwise_sub"),
                        ("_mul", "elemwise_mul"), ("_div", "elemwise_div"),
                        ("_Maximum", "_maximum"), ("_Minimum", "_minimum"),
                        ("_Power", "_power")):
    alias(_alias, _target)

# -- array (op) scalar ---------------------------------------------------------------
_SCALAR = {
    "_plus_scalar": (operator.add, lambda g, x, o, s: g),
    "_minus_scalar": (operator.sub, lambda g, x, o, s: g),
    "_rminus_scalar": (lambda x, s: s - x, lambda g, x, o, s: -g),
    "_mul_scalar": (operator.mul, lambda g, x, o, s: g * s),
    "_div_scalar": (operator.truediv, lambda g, x, o, s: g / s),
    "_rdiv_scalar": (lambda x, s: s / x, lambda g, x, o, s: -g * o / x),
    "_power_scalar": (lambda x, s: x ** s, lambda g, x, o, s: g * s * x ** (s - 1)),
    "_rpower_scalar": (lambda x, s: s ** x, lambda g, x, o, s: g * o * np.log(s)),
    "_maximum_scalar": (lambda x, s: np.maximum(x, s), lambda g, x, o, s: g * (x >= s)),
    "_minimum_scalar": (lambda x, s: np.minimum(x, s), lambda g, x, o, s: g * (x <= s)),
    "_mod_scalar": (lambda x, s: _mod(x, np.asarray(s, x.dtype)), lambda g, x, o, s: g),
    "_rmod_scalar": (lambda x, s: _mod(np.asarray(s, x.dtype), x),
                     lambda g, x, o, s: -g * _floordiv(np.asarray(s, x.dtype), x)),
    "_hypot_scalar": (lambda x, s: np.hypot(x, s), lambda g, x, o, s: g * x / o),
}


def _scalar_op(name, fn, grad):
    def kernel(x, scalar):
        r = fn(x, scalar)
        return r if r.dtype is x.dtype else _as(x, r)

    def g(ograds, inputs, outputs, scalar):
        return [_as(inputs[0], grad(ograds[0], inputs[0], outputs[0], scalar))]

    defop(name, kernel, params={"scalar": 0.0}, grad=g)


for _name, (_fn, _grad) in _SCALAR.items():
    _scalar_op(_name, _fn, _grad)

# ``x <op> scalar`` on numpy data, unwrapped: the NDArray operators' fast path
# (``ndarray._scalar_op``) calls these directly and casts a result of another dtype
# itself, one Python call per op fewer than the registered kernel.
SCALAR_FNS = {name: fn for name, (fn, _) in _SCALAR.items()}

# -- comparisons: results are 0/1 in the input's dtype, as in MXNet ------------------
_COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
            "greater_equal": np.greater_equal, "lesser": np.less,
            "lesser_equal": np.less_equal, "logical_and": np.logical_and,
            "logical_or": np.logical_or, "logical_xor": np.logical_xor}


@reads_no_out_grads
def _no_grad(ograds, inputs, outputs, **params):
    return [np.zeros_like(x) for x in inputs]


def _compare_ops(name, fn):
    def kernel(a, b):
        return fn(a, b).astype(a.dtype)

    def skernel(x, scalar):
        return fn(x, scalar).astype(x.dtype)

    defop("_" + name, kernel, arg_names=("lhs", "rhs"), infer=broadcast_shape, grad=_no_grad)
    defop("broadcast_" + name, kernel, arg_names=("lhs", "rhs"), infer=broadcast_shape,
          grad=_no_grad)
    defop("_" + name + "_scalar", skernel, params={"scalar": 0.0}, grad=_no_grad)


for _name, _fn in _COMPARE.items():
    _compare_ops(_name, _fn)


# -- unary math ---------------------------------------------------------------------
def _unary(name, fn, grad):
    def kernel(x):
        r = fn(x)
        return r if r.dtype is x.dtype else _as(x, r)

    def g(ograds, inputs, outputs):
        return [_as(inputs[0], grad(ograds[0], inputs[0], outputs[0]))]

    defop(name, kernel, infer=same_shape, grad=g)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_unary("negative", np.negative, lambda g, x, o: -g)
_unary("sqrt", np.sqrt, lambda g, x, o: g / (2 * o))
_unary("rsqrt", lambda x: 1.0 / np.sqrt(x), lambda g, x, o: -0.5 * g * o * o * o)
_unary("exp", np.exp, lambda g, x, o: g * o)
_unary("log", np.log, lambda g, x, o: g / x)
_unary("abs", np.abs, lambda g, x, o: g * np.sign(x))
_unary("sign", np.sign, lambda g, x, o: np.zeros_like(g))
_unary("square", np.square, lambda g, x, o: 2 * g * x)
_unary("relu", _relu, lambda g, x, o: g * (x > 0))
_unary("sigmoid", _sigmoid, lambda g, x, o: g * o * (1 - o))
_unary("tanh", np.tanh, lambda g, x, o: g * (1 - o * o))
_unary("sin", np.sin, lambda g, x, o: g * np.cos(x))
_unary("cos", np.cos, lambda g, x, o: -g * np.sin(x))
_unary("reciprocal", np.reciprocal, lambda g, x, o: -g * o * o)
_unary("_copy", lambda x: x.copy(), lambda g, x, o: g)
_unary("CopyCPU2CPU", lambda x: x.copy(), lambda g, x, o: g)
registry["CopyCPU2CPU"].grad_name = "CopyCPU2CPU"    # MXNet's: the gradient is a copy


def _add_n(*xs):
    out = xs[0].copy() if len(xs) == 1 else np.add(xs[0], xs[1])
    for x in xs[2:]:
        out += x
    return out


def _add_n_grad(ograds, inputs, outputs):
    return [ograds[0]] * len(inputs)


def _add_n_infer(in_shapes, in_dtypes, **_):
    for s in in_shapes[1:]:
        if tuple(s) != tuple(in_shapes[0]):
            raise ValueError(f"add_n: shapes {tuple(in_shapes[0])} and {tuple(s)} differ")
    return [in_shapes[0]], [in_dtypes[0]]


# Gradient accumulation in autograd uses add_n (MXNet: ElementWiseSum / add_n).
defop("add_n", _add_n, arg_names=("args",), variadic=True, infer=_add_n_infer, grad=_add_n_grad,
      aliases=("ElementWiseSum",))
