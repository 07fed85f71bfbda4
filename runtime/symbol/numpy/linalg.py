"""``mx.sym.np.linalg``: the operators ``mx.np.linalg`` runs, composed on np symbols."""
from ._symbol import apply

__all__ = ["norm", "det", "inv", "slogdet"]


def norm(x, ord=None, axis=None, keepdims=False):
    return apply("_npi_norm", (x,), {"ord": ord, "axis": axis, "keepdims": bool(keepdims)})


def det(a):
    return apply("_linalg_det", (a,), {"np_shape": True})


def inv(a):
    return apply("_linalg_inverse", (a,))


def slogdet(a):
    return apply("_linalg_slogdet", (a,), {"np_shape": True})
