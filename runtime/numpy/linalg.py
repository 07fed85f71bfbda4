"""``mx.np.linalg``: linear algebra on np arrays, through MXNet's operators (``_npi_norm``,
``_linalg_det``, ``_linalg_inverse``...)."""
from ..ndarray.ndarray import invoke as _invoke
from .multiarray import to_np as _to_np

__all__ = ["norm", "det", "inv", "slogdet", "svd", "cholesky", "solve", "tensorinv",
           "tensorsolve"]


def norm(x, ord=None, axis=None, keepdims=False):
    """The Frobenius / 2-norm (``ord`` None or 2 on vectors, 'fro' on matrices) or the
    1-norm of vectors: op ``_npi_norm``."""
    x = _to_np(x)
    if ord in ("inf", "-inf"):      # MXNet takes them as strings too
        ord = float(ord)
    return _invoke("_npi_norm", (x,), {"ord": ord, "axis": axis, "keepdims": bool(keepdims)})


def det(a):
    return _invoke("_linalg_det", (_to_np(a),), {"np_shape": True})


def inv(a):
    return _invoke("_linalg_inverse", (_to_np(a),), {})


def slogdet(a):
    return tuple(_invoke("_linalg_slogdet", (_to_np(a),), {"np_shape": True}))


def svd(a):
    """``(ut, s, v)`` with ``a = ut @ diag(s) @ v`` (MXNet's convention, M <= N): op
    ``_npi_svd``."""
    return tuple(_invoke("_npi_svd", (_to_np(a),), {}))


def cholesky(a, upper=False):
    """The lower (``upper=True``: upper) Cholesky factor: op ``_npi_cholesky``."""
    return _invoke("_npi_cholesky", (_to_np(a),), {"lower": not upper})


def solve(a, b):
    a = _to_np(a)
    return _invoke("_npi_solve", (a, _to_np(b, a)), {})


def tensorinv(a, ind=2):
    return _invoke("_npi_tensorinv", (_to_np(a),), {"ind": int(ind)})


def tensorsolve(a, b, axes=None):
    a = _to_np(a)
    if axes is not None:
        axes = tuple(int(x) for x in axes)
    return _invoke("_npi_tensorsolve", (a, _to_np(b, a)), {"axes": axes})


def _install():
    import numpy.linalg as _la
    from . import _fallback
    _fallback.install(globals(), _la, _fallback.LINALG_FALLBACK, "linalg_")


_install()
