"""More elementwise math, MXNet 1.x names: rounding (``floor``, ``ceil``, ``round``,
``rint``, ``fix``, ``trunc``: zero gradient), logarithms and exponentials (``log2``,
``log10``, ``log1p``, ``expm1``), roots (``cbrt``, ``rcbrt``), trigonometric and
hyperbolic functions and their inverses, ``degrees``/``radians``, ``softsign``,
``logical_not``; the special functions ``gamma``, ``gammaln``, ``erf``, ``erfinv``;
``log_sigmoid``, ``mish``, ``hard_sigmoid``, ``smooth_l1``. Each gradient is written next to its function (see
:func:`.elemwise._unary`)."""
import math

import numpy as np

from .elemwise import _unary
from .registry import defop, input_size


def _zero(g, x, o):
    return np.zeros_like(g)


for _name, _fn in (("floor", np.floor), ("ceil", np.ceil), ("rint", np.rint),
                   ("fix", np.fix), ("trunc", np.trunc),
                   # MXNet rounds half away from zero (numpy's round is half to even)
                   ("round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)),
                   ("logical_not", lambda x: (x == 0).astype(x.dtype))):
    _unary(_name, _fn, _zero)

_LN2, _LN10 = np.log(2.0), np.log(10.0)
_unary("log2", np.log2, lambda g, x, o: g / (x * _LN2))
_unary("log10", np.log10, lambda g, x, o: g / (x * _LN10))
_unary("log1p", np.log1p, lambda g, x, o: g / (1 + x))
_unary("expm1", np.expm1, lambda g, x, o: g * (o + 1))
_unary("cbrt", np.cbrt, lambda g, x, o: g / (3 * o * o))
_unary("rcbrt", lambda x: 1.0 / np.cbrt(x), lambda g, x, o: -g * o / (3 * x))
_unary("tan", np.tan, lambda g, x, o: g * (1 + o * o))
_unary("arcsin", np.arcsin, lambda g, x, o: g / np.sqrt(1 - x * x))
_unary("arccos", np.arccos, lambda g, x, o: -g / np.sqrt(1 - x * x))
_unary("arctan", np.arctan, lambda g, x, o: g / (1 + x * x))
_unary("sinh", np.sinh, lambda g, x, o: g * np.cosh(x))
_unary("cosh", np.cosh, lambda g, x, o: g * np.sinh(x))
_unary("arcsinh", np.arcsinh, lambda g, x, o: g / np.sqrt(x * x + 1))
_unary("arccosh", np.arccosh, lambda g, x, o: g / np.sqrt(x * x - 1))
_unary("arctanh", np.arctanh, lambda g, x, o: g / (1 - x * x))
_unary("degrees", np.degrees, lambda g, x, o: g * (180.0 / np.pi))
_unary("radians", np.radians, lambda g, x, o: g * (np.pi / 180.0))
_unary("softsign", lambda x: x / (1 + np.abs(x)), lambda g, x, o: g / np.square(1 + np.abs(x)))


# -- special functions (numpy has none: math's, elementwise) -------------------------------
def _elementwise(fn):
    def safe(v):       # at a pole (gamma(0), gamma(-2)...) MXNet gives inf, math raises
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.inf
    vec = np.vectorize(safe, otypes=[np.float64])
    return lambda x: vec(x).astype(x.dtype, copy=False) if x.size else x.copy()


def _digamma(x):
    """psi(x): the recurrence up to x >= 6, then the asymptotic series; reflection for
    x < 0.5 (float64 throughout). At its poles (0, -1, -2...) it is MXNet's (cephes')
    value, the largest double in the input's dtype: +inf for float32 and float16, so that
    a zero gradient times it is nan there, as in MXNet."""
    x = np.asarray(x)
    poles = (x <= 0) & (np.floor(x) == x)
    if np.any(poles):
        with np.errstate(all="ignore"):
            pole = np.float64(np.array(np.finfo(np.float64).max).astype(
                x.dtype if x.dtype.kind == "f" else np.float64))
            return np.where(poles, pole, _digamma(np.where(poles, 0.5, x)))
    x = x.astype(np.float64)
    out = np.zeros_like(x)
    neg = x < 0.5
    if np.any(neg):
        xn = x[neg]
        out[neg] = -np.pi / np.tan(np.pi * xn)
        x = np.where(neg, 1.0 - x, x)
    acc = np.zeros_like(x)
    while True:
        small = x < 6.0
        if not np.any(small):
            break
        acc -= np.where(small, 1.0 / np.where(small, x, 1.0), 0.0)
        x = np.where(small, x + 1.0, x)
    inv2 = 1.0 / (x * x)
    series = (np.log(x) - 0.5 / x
              - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132)))))
    return out + acc + series


def _erfinv(y):
    """Inverse error function: Giles' single-precision approximation, then two Newton
    steps on math.erf (float64)."""
    y = np.asarray(y, dtype=np.float64)
    w = -np.log(np.clip((1.0 - y) * (1.0 + y), 1e-300, None))
    small = w < 5.0
    ws = w - 2.5
    p_small = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        p_small = c + p_small * ws
    wb = np.sqrt(w) - 3.0
    p_big = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
        p_big = c + p_big * wb
    x = np.where(small, p_small, p_big) * y
    erf = np.vectorize(math.erf, otypes=[np.float64])
    for _ in range(2):
        finite = np.isfinite(x) & (np.abs(y) < 1)
        err = np.where(finite, erf(np.where(finite, x, 0.0)) - y, 0.0)
        x = x - err / (2 / np.sqrt(np.pi) * np.exp(-np.where(finite, x, 0.0) ** 2))
    x = np.where(y == 1, np.inf, np.where(y == -1, -np.inf, x))
    return np.where(np.abs(y) > 1, np.nan, x)


def _cast_like(fn):
    return lambda x: fn(x).astype(x.dtype, copy=False)


_unary("gamma", _elementwise(math.gamma), lambda g, x, o: g * o * _digamma(x))
_unary("gammaln", _elementwise(math.lgamma), lambda g, x, o: g * _digamma(x))
_unary("erf", _elementwise(math.erf),
       lambda g, x, o: g * (2 / np.sqrt(np.pi)) * np.exp(-np.square(x)))
_unary("erfinv", _cast_like(_erfinv),
       lambda g, x, o: g * (np.sqrt(np.pi) / 2) * np.exp(np.square(o)))


# -- activations without parameters ----------------------------------------------------------
def _softplus(x):
    return np.logaddexp(0, x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_unary("log_sigmoid", lambda x: -_softplus(-x), lambda g, x, o: g * (1 - _sigmoid(x)))
_unary("mish", lambda x: x * np.tanh(_softplus(x)),
       lambda g, x, o: g * (np.tanh(_softplus(x))
                            + x * _sigmoid(x) * (1 - np.square(np.tanh(_softplus(x))))))


# -- with parameters: hard_sigmoid, smooth_l1 -----------------------------------------------
def _hard_sigmoid(data, alpha=0.2, beta=0.5):
    return np.clip(data * float(alpha) + float(beta), 0, 1).astype(data.dtype, copy=False)


def _hard_sigmoid_grad(ograds, inputs, outputs, alpha=0.2, beta=0.5):
    o = outputs[0]
    return [(ograds[0] * float(alpha) * ((o > 0) & (o < 1))).astype(inputs[0].dtype)]


defop("hard_sigmoid", _hard_sigmoid, grad=_hard_sigmoid_grad, cost=input_size,
      params={"alpha": 0.2, "beta": 0.5})


def _smooth_l1(data, scalar=1.0):
    s2 = float(scalar) ** 2
    a = np.abs(data)
    out = np.where(a < 1.0 / s2, 0.5 * s2 * np.square(data), a - 0.5 / s2)
    return out.astype(data.dtype, copy=False)


def _smooth_l1_grad(ograds, inputs, outputs, scalar=1.0):
    x = inputs[0]
    s2 = float(scalar) ** 2
    g = np.where(np.abs(x) < 1.0 / s2, s2 * x, np.sign(x))
    return [(ograds[0] * g).astype(x.dtype, copy=False)]


defop("smooth_l1", _smooth_l1, grad=_smooth_l1_grad, cost=input_size,
      params={"scalar": 1.0})
