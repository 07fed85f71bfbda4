"""MXNet 2's ``np.linalg`` operators MXNet 1.x has no counterpart of, with their
gradients: ``_npi_svd`` (MXNet's convention: ``a = ut @ diag(s) @ v``, M <= N),
``_npi_cholesky`` (gradient op ``_backward_linalg_potrf``, as MXNet 2 names it),
``_npi_solve``, ``_npi_tensorinv``, ``_npi_tensorsolve``, ``_npi_pinv``, ``_npi_eigvalsh``,
``_npi_eigh``."""
import math

import numpy as np

from .registry import defop

__all__ = []


def _t(x):
    return np.swapaxes(x, -1, -2)


def _cost(in_shapes, **_):
    s = in_shapes[0]
    n = s[-1] if s else 1
    return max(1, math.prod(s) * n)


# -- svd ------------------------------------------------------------------------------------------
def _svd(a):
    if a.shape[-2] > a.shape[-1]:
        raise ValueError(f"svd: a of shape {a.shape} needs M <= N (rows <= columns)")
    if not a.size:
        m = a.shape[-2]
        return (np.zeros(a.shape[:-1] + (m,), a.dtype), np.zeros(a.shape[:-1], a.dtype),
                np.zeros(a.shape, a.dtype))
    u, s, vh = np.linalg.svd(a.astype(np.float64), full_matrices=False)
    return u.astype(a.dtype), s.astype(a.dtype), vh.astype(a.dtype)


def _svd_infer(in_shapes, in_dtypes, **_):
    s = tuple(in_shapes[0])
    if len(s) < 2 or s[-2] > s[-1]:
        raise ValueError(f"svd: a of shape {s} needs at least 2 dimensions and M <= N")
    return [s[:-1] + (s[-2],), s[:-1], s], [in_dtypes[0]] * 3


def _svd_grad(ograds, inputs, outputs):
    a = inputs[0]
    ut, s, v = (np.asarray(o, np.float64) for o in outputs)
    d_ut, d_s, d_v = (np.zeros(o.shape) if g is None else np.asarray(g, np.float64)
                      for g, o in zip(ograds, outputs))
    if not a.size:
        return [np.zeros_like(a)]
    m = s.shape[-1]
    li, lj = s[..., :, None], s[..., None, :]
    with np.errstate(divide="ignore"):
        e = 1.0 / (np.maximum(li - lj, 1e-20) * np.maximum(li + lj, 1e-20))
    e = np.triu(e, 1) - _t(np.triu(e, 1))
    inv_s = 1.0 / s[..., :, None]
    g1 = np.matmul(inv_s * d_v, _t(v)) * s[..., None, :] + np.matmul(_t(d_ut), ut)
    x = g1 * e
    eye = np.eye(m)
    g2 = d_s[..., :, None] * eye + (x + _t(x)) * s[..., None, :] \
        - inv_s * np.matmul(d_v, _t(v)) * eye
    da = np.matmul(ut, np.matmul(g2, v) + inv_s * d_v)
    return [da.astype(a.dtype)]


defop("_npi_svd", _svd, arg_names=("a",), infer=_svd_infer, grad=_svd_grad,
      num_outputs=3, output_names=("ut", "l", "v"), cost=_cost)


# -- cholesky --------------------------------------------------------------------------------------
def _cholesky(a, lower=True):
    if not a.size:
        return np.zeros_like(a)
    c = np.linalg.cholesky(a.astype(np.float64))
    return (c if lower else _t(c)).astype(a.dtype)


def _copy_lower_to_upper(m):
    low = np.tril(m, -1)
    return np.tril(m) + _t(low)


def _cholesky_grad(ograds, inputs, outputs, lower=True):
    a, c = inputs[0], np.asarray(outputs[0], np.float64)
    if not a.size:
        return [np.zeros_like(a)]
    dl = np.asarray(ograds[0], np.float64)
    if not lower:
        c, dl = _t(c), _t(dl)
    inv = np.linalg.inv(c)
    da = 0.5 * np.matmul(np.matmul(_t(inv), _copy_lower_to_upper(np.matmul(_t(c), dl))), inv)
    return [da.astype(a.dtype)]


defop("_npi_cholesky", _cholesky, arg_names=("A",), grad=_cholesky_grad,
      grad_name="_backward_linalg_potrf", cost=_cost, params={"lower": True})


# -- solve, tensorinv, tensorsolve -------------------------------------------------------------------
def _solve(a, b):
    vec = b.ndim == a.ndim - 1
    x = np.linalg.solve(a.astype(np.float64), (b[..., None] if vec else b).astype(np.float64))
    return (x[..., 0] if vec else x).astype(np.result_type(a.dtype, b.dtype))


def _solve_grad(ograds, inputs, outputs):
    a, b = inputs
    vec = b.ndim == a.ndim - 1
    x = np.asarray(outputs[0], np.float64)
    og = np.asarray(ograds[0], np.float64)
    if vec:
        x, og = x[..., None], og[..., None]
    gb = np.linalg.solve(_t(a.astype(np.float64)), og) if a.size else np.zeros(og.shape)
    ga = -np.matmul(gb, _t(x))
    return [ga.astype(a.dtype), (gb[..., 0] if vec else gb).astype(b.dtype)]


defop("_npi_solve", _solve, arg_names=("A", "B"),
      infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[1])],
                                               [np.result_type(*in_dtypes)]),
      grad=_solve_grad, cost=_cost)


def _tensorinv(a, ind=2):
    ind = int(ind)
    rows, cols = math.prod(a.shape[:ind]), math.prod(a.shape[ind:])
    if rows != cols:
        raise ValueError(f"tensorinv: a of shape {a.shape} with ind={ind} is not square "
                         f"({rows} x {cols})")
    inv = np.linalg.inv(a.astype(np.float64).reshape(rows, cols))
    return inv.reshape(a.shape[ind:] + a.shape[:ind]).astype(a.dtype)


def _tensorinv_grad(ograds, inputs, outputs, ind=2):
    a = inputs[0]
    ind = int(ind)
    n = math.prod(a.shape[:ind])
    x = np.asarray(outputs[0], np.float64).reshape(n, n)
    g = np.asarray(ograds[0], np.float64).reshape(n, n)
    return [(-np.matmul(np.matmul(x.T, g), x.T)).reshape(a.shape).astype(a.dtype)]


defop("_npi_tensorinv", _tensorinv, arg_names=("a",),
      infer=lambda in_shapes, in_dtypes, ind=2, **_: (
          [tuple(in_shapes[0][int(ind):]) + tuple(in_shapes[0][:int(ind)])], [in_dtypes[0]]),
      grad=_tensorinv_grad, cost=_cost, params={"ind": 2})


def _ts_prepare(a, b, axes):
    if axes is not None:
        axes = [int(x) % a.ndim for x in (axes if isinstance(axes, (tuple, list)) else
                                          (axes,))]
        order = [i for i in range(a.ndim) if i not in axes] + axes
        a = np.transpose(a, order)
    # MXNet's x shape: a's trailing a.ndim - b.ndim axes, all of a's when that is 0
    return a, b.size, tuple(a.shape[-(a.ndim - b.ndim):])


def _tensorsolve(a, b, axes=None):
    a, n, xshape = _ts_prepare(a, b, axes)
    x = np.linalg.solve(a.astype(np.float64).reshape(n, -1), b.astype(np.float64).ravel())
    return x.reshape(xshape).astype(np.result_type(a.dtype, b.dtype))


def _tensorsolve_grad(ograds, inputs, outputs, axes=None):
    a0, b = inputs
    a, n, _ = _ts_prepare(a0, b, axes)
    a2 = a.astype(np.float64).reshape(n, -1)
    x = np.asarray(outputs[0], np.float64).ravel()
    gb = np.linalg.solve(a2.T, np.asarray(ograds[0], np.float64).ravel())
    ga = -np.outer(gb, x).reshape(a.shape)
    if axes is not None:
        axes_l = [int(v) % a0.ndim for v in (axes if isinstance(axes, (tuple, list)) else
                                             (axes,))]
        order = [i for i in range(a0.ndim) if i not in axes_l] + axes_l
        ga = np.transpose(ga, np.argsort(order))
    return [ga.astype(a0.dtype), gb.reshape(b.shape).astype(b.dtype)]


def _tensorsolve_infer(in_shapes, in_dtypes, axes=None, **_):
    sa, sb = list(in_shapes[0]), tuple(in_shapes[1])
    if axes is not None:
        axes_l = [int(v) % len(sa) for v in (axes if isinstance(axes, (tuple, list)) else
                                             (axes,))]
        sa = [sa[i] for i in range(len(sa)) if i not in axes_l] + [sa[i] for i in axes_l]
    return [tuple(sa[-(len(sa) - len(sb)):])], [np.result_type(*in_dtypes)]


defop("_npi_tensorsolve", _tensorsolve, arg_names=("a", "b"), infer=_tensorsolve_infer,
      grad=_tensorsolve_grad, cost=_cost, params={"axes": None})
