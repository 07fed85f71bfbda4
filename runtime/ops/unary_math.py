"""More elementwise math, MXNet 1.x names: rounding (``floor``, ``ceil``, ``round``,
``rint``, ``fix``, ``trunc``: zero gradient), logarithms and exponentials (``log2``,
``log10``, ``log1p``, ``expm1``), roots (``cbrt``, ``rcbrt``), trigonometric and
hyperbolic functions and their inverses, ``degrees``/``radians``, ``softsign``,
``logical_not``. Each gradient is written next to its function (see
:func:`.elemwise._unary`)."""
import numpy as np

from .elemwise import _unary


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
