"""Linear-algebra operators of MXNet 1.x's ``linalg`` namespace, registered as
``_linalg_<name>`` (``mx.nd.linalg.gemm`` is ``_linalg_gemm``, the name MXNet profiles).

Every operator works on the last two axes (a batch of matrices in front); ``gemm`` and
``gemm2`` take ``axis``, the axis of the matrices' rows (default -2; the columns are the
last axis). Triangular inputs (``trsm``, ``trmm``, ``potri``) read only their
``lower`` (or upper) triangle, so the gradient is zero on the other; ``potrf`` reads a
symmetric matrix and its gradient is symmetric, as MXNet's. Decompositions follow
MXNet's conventions: ``potrf`` gives ``L`` with ``A = L L^T`` (``U`` with ``A = U^T U``
when ``lower=False``), ``gelqf`` ``(Q, L)`` with ``A = L Q`` and ``Q Q^T = I`` (``L`` with
a positive diagonal), ``syevd`` ``(U, lam)`` with ``A = U^T diag(lam) U``, eigenvalues
ascending and each eigenvector's largest component positive.
"""
import math

import numpy as np

from .params import _bool
from .registry import defop


def _t(x):
    return np.swapaxes(x, -1, -2)


def _tri(x, lower, k=0):
    return np.tril(x, k) if lower else np.triu(x, -k)


def _mat_cost(in_shapes, **_):
    s = in_shapes[0]
    return max(1, math.prod(s) * (s[-1] if s else 1))


def _square(opname, shape):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{opname}: the input must be a (batch of) square matrices, got "
                         f"shape {tuple(shape)}")


def _same_dtype(x, value):
    return value.astype(x.dtype, copy=False)


# -- gemm, gemm2: alpha * op(A) op(B) (+ beta * C) ------------------------------------------
def _rows_last(x, axis):
    """Move the rows' axis to -2 (MXNet's ``axis`` parameter)."""
    axis = int(axis)
    return x if axis in (-2, x.ndim - 2) else np.moveaxis(x, axis, -2)


def _rows_back(x, axis, ndim):
    axis = int(axis)
    return x if axis in (-2, ndim - 2) else np.moveaxis(x, -2, axis)


def _op(x, transpose):
    return _t(x) if _bool(transpose) else x


def _gemm_core(a, b, transpose_a, transpose_b, alpha):
    return float(alpha) * np.matmul(_op(a, transpose_a), _op(b, transpose_b))


def _gemm_grads(g, a, b, transpose_a, transpose_b, alpha):
    """Gradients of alpha * op(A) op(B) with respect to A and B (rows at -2)."""
    alpha = float(alpha)
    opa, opb = _op(a, transpose_a), _op(b, transpose_b)
    d_opa = alpha * np.matmul(g, _t(opb))
    d_opb = alpha * np.matmul(_t(opa), g)
    return _op(d_opa, transpose_a), _op(d_opb, transpose_b)


def _gemm_shape(opname, sa, sb, transpose_a, transpose_b, axis):
    sa, sb = tuple(sa), tuple(sb)
    if len(sa) < 2 or len(sa) != len(sb):
        raise ValueError(f"{opname}: A {sa} and B {sb} must have the same number (>= 2) "
                         "of dimensions")
    ax = int(axis) % len(sa)
    m, k = (sa[-1], sa[ax]) if _bool(transpose_a) else (sa[ax], sa[-1])
    k2, n = (sb[-1], sb[ax]) if _bool(transpose_b) else (sb[ax], sb[-1])
    batch = [i for i in range(len(sa) - 1) if i != ax]
    if k != k2 or any(sa[i] != sb[i] for i in batch):
        raise ValueError(f"{opname}: shapes {sa} and {sb} do not multiply "
                         f"(transpose_a={transpose_a}, transpose_b={transpose_b}, axis={axis})")
    out = list(sa)
    out[ax], out[-1] = m, n
    return tuple(out)


_GEMM2 = {"transpose_a": False, "transpose_b": False, "alpha": 1.0, "axis": -2}


def _gemm2(A, B, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2):
    a, b = _rows_last(A, axis), _rows_last(B, axis)
    return _same_dtype(A, _rows_back(_gemm_core(a, b, transpose_a, transpose_b, alpha),
                                     axis, A.ndim))


def _gemm2_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False, alpha=1.0,
                axis=-2):
    A, B = inputs
    g = _rows_last(ograds[0], axis)
    da, db = _gemm_grads(g, _rows_last(A, axis), _rows_last(B, axis), transpose_a,
                         transpose_b, alpha)
    return [_same_dtype(A, _rows_back(da, axis, A.ndim)),
            _same_dtype(B, _rows_back(db, axis, B.ndim))]


defop("_linalg_gemm2", _gemm2, arg_names=("A", "B"), grad=_gemm2_grad, cost=_mat_cost,
      params=dict(_GEMM2),
      infer=lambda in_shapes, in_dtypes, transpose_a=False, transpose_b=False, axis=-2, **_: (
          [_gemm_shape("gemm2", in_shapes[0], in_shapes[1], transpose_a, transpose_b,
                       axis)], [in_dtypes[0]]))


def _gemm(A, B, C, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0, axis=-2):
    out = _gemm2(A, B, transpose_a, transpose_b, alpha, axis)
    return _same_dtype(A, out + float(beta) * C)


def _gemm_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False, alpha=1.0,
               beta=1.0, axis=-2):
    da, db = _gemm2_grad(ograds, inputs[:2], outputs, transpose_a, transpose_b, alpha, axis)
    return [da, db, _same_dtype(inputs[2], float(beta) * ograds[0])]


def _gemm_infer(in_shapes, in_dtypes, transpose_a=False, transpose_b=False, axis=-2, **_):
    out = _gemm_shape("gemm", in_shapes[0], in_shapes[1], transpose_a, transpose_b, axis)
    if tuple(in_shapes[2]) != out:
        raise ValueError(f"gemm: C has shape {tuple(in_shapes[2])}, expected {out}")
    return [out], [in_dtypes[0]]


defop("_linalg_gemm", _gemm, arg_names=("A", "B", "C"), grad=_gemm_grad, cost=_mat_cost,
      infer=_gemm_infer, params=dict(_GEMM2, beta=1.0))


# -- syrk: alpha * A A^T (alpha * A^T A with transpose) ---------------------------------------
def _syrk(A, transpose=False, alpha=1.0):
    a = _op(A, not _bool(transpose))     # A^T for the default: out = alpha * op(A)^T op(A)
    return _same_dtype(A, float(alpha) * np.matmul(_t(a), a))


def _syrk_grad(ograds, inputs, outputs, transpose=False, alpha=1.0):
    A, g = inputs[0], ograds[0]
    gs = g + _t(g)
    if _bool(transpose):                 # out = alpha A^T A
        d = float(alpha) * np.matmul(A, gs)
    else:                                # out = alpha A A^T
        d = float(alpha) * np.matmul(gs, A)
    return [_same_dtype(A, d)]


def _syrk_infer(in_shapes, in_dtypes, transpose=False, **_):
    s = tuple(in_shapes[0])
    n = s[-1] if _bool(transpose) else s[-2]
    return [s[:-2] + (n, n)], [in_dtypes[0]]


defop("_linalg_syrk", _syrk, arg_names=("A",), grad=_syrk_grad, cost=_mat_cost,
      infer=_syrk_infer, params={"transpose": False, "alpha": 1.0})


# -- trmm, trsm: triangular multiply and solve ----------------------------------------------
_TRI = {"transpose": False, "rightside": False, "lower": True, "alpha": 1.0}


def _trmm(A, B, transpose=False, rightside=False, lower=True, alpha=1.0):
    opa = _op(_tri(A, _bool(lower)), transpose)
    out = np.matmul(B, opa) if _bool(rightside) else np.matmul(opa, B)
    return _same_dtype(B, float(alpha) * out)


def _trmm_grad(ograds, inputs, outputs, transpose=False, rightside=False, lower=True,
               alpha=1.0):
    A, B = inputs
    g, alpha = ograds[0], float(alpha)
    opa = _op(_tri(A, _bool(lower)), transpose)
    if _bool(rightside):
        d_opa, db = alpha * np.matmul(_t(B), g), alpha * np.matmul(g, _t(opa))
    else:
        d_opa, db = alpha * np.matmul(g, _t(B)), alpha * np.matmul(_t(opa), g)
    return [_same_dtype(A, _tri(_op(d_opa, transpose), _bool(lower))), _same_dtype(B, db)]


def _solve_tri(a, b, right):
    """op(A)^-1 B (or B op(A)^-1) for a batch: numpy's solve (A is triangular)."""
    if right:
        return _t(np.linalg.solve(_t(a), _t(b)))
    return np.linalg.solve(a, b)


def _trsm(A, B, transpose=False, rightside=False, lower=True, alpha=1.0):
    opa = _op(_tri(A, _bool(lower)), transpose)
    return _same_dtype(B, float(alpha) * _solve_tri(opa, B, _bool(rightside)))


def _trsm_grad(ograds, inputs, outputs, transpose=False, rightside=False, lower=True,
               alpha=1.0):
    A, B = inputs
    g, x, alpha = ograds[0], outputs[0], float(alpha)
    opa = _op(_tri(A, _bool(lower)), transpose)
    if _bool(rightside):       # X = alpha B op(A)^-1
        db = alpha * _solve_tri(_t(opa), g, True)          # alpha G op(A)^-T
        d_opa = -np.matmul(_t(x), db / alpha) if alpha else np.zeros_like(opa)
    else:                      # X = alpha op(A)^-1 B
        db = alpha * _solve_tri(_t(opa), g, False)         # alpha op(A)^-T G
        d_opa = -np.matmul(db / alpha, _t(x)) if alpha else np.zeros_like(opa)
    return [_same_dtype(A, _tri(_op(d_opa, transpose), _bool(lower))), _same_dtype(B, db)]


def _tri_infer(opname):
    def infer(in_shapes, in_dtypes, rightside=False, **_):
        sa, sb = tuple(in_shapes[0]), tuple(in_shapes[1])
        _square(opname, sa)
        k = sb[-1] if _bool(rightside) else sb[-2]
        if sa[-1] != k or sa[:-2] != sb[:-2]:
            raise ValueError(f"{opname}: A of shape {sa} does not fit B of shape {sb} "
                             f"(rightside={rightside})")
        return [sb], [in_dtypes[1]]
    return infer


defop("_linalg_trmm", _trmm, arg_names=("A", "B"), grad=_trmm_grad, cost=_mat_cost,
      infer=_tri_infer("trmm"), params=dict(_TRI))
defop("_linalg_trsm", _trsm, arg_names=("A", "B"), grad=_trsm_grad, cost=_mat_cost,
      infer=_tri_infer("trsm"), params=dict(_TRI))


def _square_infer(opname):
    def infer(in_shapes, in_dtypes, **_):
        _square(opname, in_shapes[0])
        return [tuple(in_shapes[0])], [in_dtypes[0]]
    return infer


# -- potrf, potri: Cholesky factor and the inverse from it ------------------------------------
def _copy_ltu(m):
    """The lower triangle mirrored onto the upper one (MXNet's copyLTU)."""
    low = np.tril(m)
    return low + _t(np.tril(m, -1))


def _potrf(A, lower=True):
    try:
        low = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise ValueError("potrf: the input is not symmetric positive definite") from None
    return _same_dtype(A, low if _bool(lower) else _t(low))


def _potrf_grad(ograds, inputs, outputs, lower=True):
    low = outputs[0] if _bool(lower) else _t(outputs[0])
    dl = ograds[0] if _bool(lower) else _t(ograds[0])
    dl = np.tril(dl)
    inner = _copy_ltu(np.matmul(_t(low), dl))
    # 0.5 * L^-T copyLTU(L^T dL) L^-1
    x = np.linalg.solve(_t(low), inner)
    d = 0.5 * _t(np.linalg.solve(_t(low), _t(x)))
    return [_same_dtype(inputs[0], d)]


defop("_linalg_potrf", _potrf, arg_names=("A",), grad=_potrf_grad, cost=_mat_cost,
      infer=_square_infer("potrf"), params={"lower": True})


def _potri(A, lower=True):
    low = _tri(A, True) if _bool(lower) else _t(_tri(A, False))
    return _same_dtype(A, np.linalg.inv(np.matmul(low, _t(low))))


def _potri_grad(ograds, inputs, outputs, lower=True):
    A, x, g = inputs[0], outputs[0], ograds[0]
    low = _tri(A, True) if _bool(lower) else _t(_tri(A, False))
    d_low = -np.matmul(np.matmul(x, g + _t(g)), np.matmul(x, low))
    d = np.tril(d_low) if _bool(lower) else np.triu(_t(d_low))
    return [_same_dtype(A, d)]


defop("_linalg_potri", _potri, arg_names=("A",), grad=_potri_grad, cost=_mat_cost,
      infer=_square_infer("potri"), params={"lower": True})


# -- sumlogdiag, extractdiag, makediag, extracttrian, maketrian -------------------------------
def _sumlogdiag(A):
    return _same_dtype(A, np.log(np.diagonal(A, axis1=-2, axis2=-1)).sum(axis=-1))


def _diag_embed(v, n, offset=0):
    out = np.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    i = np.arange(v.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = v
    return out


def _sumlogdiag_grad(ograds, inputs, outputs):
    A = inputs[0]
    d = np.diagonal(A, axis1=-2, axis2=-1)
    return [_same_dtype(A, _diag_embed(ograds[0][..., None] / d, A.shape[-1]))]


def _sumlogdiag_infer(in_shapes, in_dtypes, **_):
    _square("sumlogdiag", in_shapes[0])
    return [tuple(in_shapes[0][:-2]) or (1,)], [in_dtypes[0]]


defop("_linalg_sumlogdiag", _sumlogdiag, arg_names=("A",), grad=_sumlogdiag_grad,
      infer=_sumlogdiag_infer)


def _extractdiag(A, offset=0):
    return np.diagonal(A, int(offset), axis1=-2, axis2=-1).copy()


def _extractdiag_grad(ograds, inputs, outputs, offset=0):
    A = inputs[0]
    return [_diag_embed(ograds[0], A.shape[-1], int(offset)).astype(A.dtype, copy=False)]


def _extractdiag_infer(in_shapes, in_dtypes, offset=0, **_):
    s = tuple(in_shapes[0])
    _square("extractdiag", s)
    n = s[-1] - abs(int(offset))
    if n < 1:
        raise ValueError(f"extractdiag: offset={offset} is out of range for {s[-1]}x{s[-1]} "
                         "matrices")
    return [s[:-2] + (n,)], [in_dtypes[0]]


defop("_linalg_extractdiag", _extractdiag, arg_names=("A",), grad=_extractdiag_grad,
      infer=_extractdiag_infer, params={"offset": 0})


def _makediag(A, offset=0):
    return _diag_embed(A, A.shape[-1] + abs(int(offset)), int(offset))


def _makediag_grad(ograds, inputs, outputs, offset=0):
    return [np.diagonal(ograds[0], int(offset), axis1=-2, axis2=-1).astype(inputs[0].dtype)]


defop("_linalg_makediag", _makediag, arg_names=("A",), grad=_makediag_grad,
      params={"offset": 0},
      infer=lambda in_shapes, in_dtypes, offset=0, **_: (
          [tuple(in_shapes[0][:-1]) + (in_shapes[0][-1] + abs(int(offset)),) * 2],
          [in_dtypes[0]]))


def _trian_index(n, offset, lower):
    """Row-major indices of the triangle ``extracttrian`` reads: offset > 0 above the
    diagonal, offset < 0 below it, 0 the diagonal and the ``lower`` (or upper) part."""
    offset = int(offset)
    if offset > 0 or (offset == 0 and not _bool(lower)):
        return np.triu_indices(n, offset)
    return np.tril_indices(n, offset)


def _extracttrian(A, offset=0, lower=True):
    rows, cols = _trian_index(A.shape[-1], offset, lower)
    return A[..., rows, cols].copy()


def _extracttrian_grad(ograds, inputs, outputs, offset=0, lower=True):
    A = inputs[0]
    rows, cols = _trian_index(A.shape[-1], offset, lower)
    g = np.zeros_like(A)
    g[..., rows, cols] = ograds[0]
    return [g]


def _extracttrian_infer(in_shapes, in_dtypes, offset=0, lower=True, **_):
    s = tuple(in_shapes[0])
    _square("extracttrian", s)
    n = s[-1] - abs(int(offset))
    if n < 1:
        raise ValueError(f"extracttrian: offset={offset} is out of range for "
                         f"{s[-1]}x{s[-1]} matrices")
    return [s[:-2] + (n * (n + 1) // 2,)], [in_dtypes[0]]


defop("_linalg_extracttrian", _extracttrian, arg_names=("A",), grad=_extracttrian_grad,
      infer=_extracttrian_infer, params={"offset": 0, "lower": True})


def _trian_size(length, offset):
    n = int(round((math.sqrt(8 * length + 1) - 1) / 2))
    if n * (n + 1) // 2 != length:
        raise ValueError(f"maketrian: the last dimension {length} is not a triangular number")
    return n + abs(int(offset))


def _maketrian(A, offset=0, lower=True):
    n = _trian_size(A.shape[-1], offset)
    rows, cols = _trian_index(n, offset, lower)
    out = np.zeros(A.shape[:-1] + (n, n), dtype=A.dtype)
    out[..., rows, cols] = A
    return out


def _maketrian_grad(ograds, inputs, outputs, offset=0, lower=True):
    n = ograds[0].shape[-1]
    rows, cols = _trian_index(n, offset, lower)
    return [ograds[0][..., rows, cols].astype(inputs[0].dtype)]


defop("_linalg_maketrian", _maketrian, arg_names=("A",), grad=_maketrian_grad,
      params={"offset": 0, "lower": True},
      infer=lambda in_shapes, in_dtypes, offset=0, **_: (
          [tuple(in_shapes[0][:-1]) + (_trian_size(in_shapes[0][-1], offset),) * 2],
          [in_dtypes[0]]))


# -- inverse, det, slogdet ----------------------------------------------------------------------
def _inverse(A):
    return _same_dtype(A, np.linalg.inv(A))


def _inverse_grad(ograds, inputs, outputs):
    x = outputs[0]
    return [_same_dtype(inputs[0], -np.matmul(np.matmul(_t(x), ograds[0]), _t(x)))]


defop("_linalg_inverse", _inverse, arg_names=("A",), grad=_inverse_grad, cost=_mat_cost,
      infer=_square_infer("inverse"))


def _batch_shape(opname):
    def infer(in_shapes, in_dtypes, np_shape=False, **_):
        _square(opname, in_shapes[0])
        return [_batch(in_shapes[0], np_shape)], [in_dtypes[0]]
    return infer


def _batch(shape, np_shape):
    """A determinant's shape: the batch shape; one matrix's is ``(1,)`` in MXNet 1.x,
    ``()`` with NumPy shapes (``np_shape``: mx.np's front door)."""
    return tuple(shape[:-2]) or (() if np_shape else (1,))


def _det(A, np_shape=False):
    return _same_dtype(A, np.asarray(np.linalg.det(A)).reshape(A.shape[:-2] or (1,)))


def _det_grad(ograds, inputs, outputs, np_shape=False):
    A = inputs[0]
    det = outputs[0].reshape(A.shape[:-2] + (1, 1))
    g = ograds[0].reshape(A.shape[:-2] + (1, 1))
    return [_same_dtype(A, g * det * _t(np.linalg.inv(A)))]


defop("_linalg_det", _det, arg_names=("A",), grad=_det_grad, cost=_mat_cost,
      infer=_batch_shape("det"), params={"np_shape": False})


def _slogdet(A, np_shape=False):
    sign, logdet = np.linalg.slogdet(A)
    shape = A.shape[:-2] or (1,)
    return (_same_dtype(A, np.asarray(sign).reshape(shape)),
            _same_dtype(A, np.asarray(logdet).reshape(shape)))


def _slogdet_grad(ograds, inputs, outputs, np_shape=False):
    A = inputs[0]
    g = ograds[1] if len(ograds) > 1 and ograds[1] is not None else np.zeros(A.shape[:-2])
    g = np.asarray(g).reshape(A.shape[:-2] + (1, 1))
    return [_same_dtype(A, g * _t(np.linalg.inv(A)))]


defop("_linalg_slogdet", _slogdet, arg_names=("A",), grad=_slogdet_grad, cost=_mat_cost,
      num_outputs=2, output_names=("sign", "logabsdet"),
      infer=lambda in_shapes, in_dtypes, np_shape=False, **_: (
          [_batch(in_shapes[0], np_shape)] * 2, [in_dtypes[0]] * 2),
      params={"np_shape": False})


# -- gelqf: A = L Q ---------------------------------------------------------------------------
def _gelqf(A):
    if A.shape[-2] > A.shape[-1]:
        raise ValueError(f"gelqf: A of shape {A.shape} must have no more rows than columns")
    q1, r = np.linalg.qr(_t(A))            # A^T = Q1 R  =>  A = R^T Q1^T
    sign = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    sign = np.where(sign == 0, 1, sign)
    low = _t(r) * sign[..., None, :]       # columns of L times sign: positive diagonal
    q = _t(q1) * sign[..., :, None]        # rows of Q times the same sign
    return _same_dtype(A, q), _same_dtype(A, low)


def _gelqf_grad(ograds, inputs, outputs):
    q, low = outputs
    dq = ograds[0] if ograds[0] is not None else np.zeros_like(q)
    dl = ograds[1] if len(ograds) > 1 and ograds[1] is not None else np.zeros_like(low)
    m = np.matmul(_t(low), np.tril(dl)) - np.matmul(dq, _t(q))
    rhs = dq + np.matmul(_copy_ltu(m), q)
    return [_same_dtype(inputs[0], np.linalg.solve(_t(low), rhs))]


defop("_linalg_gelqf", _gelqf, arg_names=("A",), grad=_gelqf_grad, cost=_mat_cost,
      num_outputs=2, output_names=("Q", "L"),
      infer=lambda in_shapes, in_dtypes, **_: (
          [tuple(in_shapes[0]), tuple(in_shapes[0][:-1]) + (in_shapes[0][-2],)],
          [in_dtypes[0]] * 2))


# -- syevd: A = U^T diag(lam) U --------------------------------------------------------------
def _syevd(A):
    lam, vec = np.linalg.eigh(A)           # columns are eigenvectors, ascending
    u = _t(vec).copy()
    big = np.take_along_axis(u, np.argmax(np.abs(u), axis=-1)[..., None], -1)
    u *= np.where(big < 0, -1.0, 1.0)
    return _same_dtype(A, u), _same_dtype(A, lam)


def _syevd_grad(ograds, inputs, outputs):
    u, lam = outputs
    du = ograds[0] if ograds[0] is not None else np.zeros_like(u)
    dlam = ograds[1] if len(ograds) > 1 and ograds[1] is not None else np.zeros_like(lam)
    temp = np.matmul(du, _t(u))
    diff = 2.0 * (lam[..., :, None] - lam[..., None, :])
    n = lam.shape[-1]
    off = ~np.eye(n, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        mid = np.where(off, (temp - _t(temp)) / np.where(off, diff, 1.0), 0.0)
    # symmetric already: (i, j) and (j, i) are both (temp_ij - temp_ji) / (2 (l_i - l_j))
    mid = mid + _diag_embed(dlam, n)
    return [_same_dtype(inputs[0], np.matmul(np.matmul(_t(u), mid), u))]


defop("_linalg_syevd", _syevd, arg_names=("A",), grad=_syevd_grad, cost=_mat_cost,
      num_outputs=2, output_names=("U", "L"),
      infer=lambda in_shapes, in_dtypes, **_: (
          [tuple(in_shapes[0]), tuple(in_shapes[0][:-1])], [in_dtypes[0]] * 2))
