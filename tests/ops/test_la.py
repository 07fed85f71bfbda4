"""mx.nd/sym.linalg (ops/la.py): results against numpy's linear algebra, the
decompositions' defining identities, gradients by central differences."""
import numpy as np
import pytest

import xprof.runtime as mx
from test_matrix_ops import check_grad, check_infer, run

RNG = np.random.default_rng(11)
M = RNG.standard_normal((3, 4, 4))
SPD = np.matmul(M, np.swapaxes(M, -1, -2)) + 4 * np.eye(4)
LOW = np.linalg.cholesky(SPD)


def _sym(x):
    return 0.5 * (x + np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("ta, tb, axis", [(False, False, -2), (True, False, -2),
                                          (False, True, -2), (True, True, -2)])
def test_gemm_and_gemm2(ta, tb, axis):
    a, b, c = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5)), \
        RNG.standard_normal((2, 3, 5))
    a_in = np.swapaxes(a, -1, -2).copy() if ta else a
    b_in = np.swapaxes(b, -1, -2).copy() if tb else b
    p = dict(transpose_a=ta, transpose_b=tb, alpha=2.0, beta=-0.5)
    (out,) = run("_linalg_gemm", a_in, b_in, c, **p)
    np.testing.assert_allclose(out, 2.0 * a @ b - 0.5 * c, rtol=1e-12)
    check_grad("_linalg_gemm", [a_in, b_in, c], p)
    check_infer("_linalg_gemm", [a_in, b_in, c], p)
    p2 = dict(transpose_a=ta, transpose_b=tb, alpha=3.0)
    np.testing.assert_allclose(run("_linalg_gemm2", a_in, b_in, **p2)[0], 3.0 * a @ b,
                               rtol=1e-12)
    check_grad("_linalg_gemm2", [a_in, b_in], p2)


def test_gemm2_rows_on_another_axis():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
    # rows at axis 0: A is (3, 2, 4), B (4, 2, 5)
    a0, b0 = np.moveaxis(a, 1, 0).copy(), np.moveaxis(b, 1, 0).copy()
    (out,) = run("_linalg_gemm2", a0, b0, axis=0)
    np.testing.assert_allclose(out, np.moveaxis(a @ b, 1, 0), rtol=1e-12)
    check_infer("_linalg_gemm2", [a0, b0], dict(axis=0))
    check_grad("_linalg_gemm2", [a0, b0], dict(axis=0))


@pytest.mark.parametrize("transpose", [False, True])
def test_syrk(transpose):
    a = RNG.standard_normal((2, 3, 5))
    (out,) = run("_linalg_syrk", a, transpose=transpose, alpha=1.5)
    at = np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(out, 1.5 * (at @ a if transpose else a @ at), rtol=1e-12)
    check_grad("_linalg_syrk", [a], dict(transpose=transpose, alpha=1.5))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("rightside", [False, True])
def test_trmm_and_trsm(lower, transpose, rightside):
    tri = LOW if lower else np.swapaxes(LOW, -1, -2)
    noisy = tri + (np.triu(M, 1) if lower else np.tril(M, -1))   # the other triangle is ignored
    b = RNG.standard_normal((3, 4, 4))
    op = np.swapaxes(tri, -1, -2) if transpose else tri
    p = dict(lower=lower, transpose=transpose, rightside=rightside, alpha=0.7)
    want = 0.7 * (b @ op if rightside else op @ b)
    np.testing.assert_allclose(run("_linalg_trmm", noisy, b, **p)[0], want, rtol=1e-12)
    solved = run("_linalg_trsm", noisy, b, **p)[0]
    back = solved @ op if rightside else op @ solved
    np.testing.assert_allclose(back, 0.7 * b, rtol=1e-10, atol=1e-12)
    for name in ("_linalg_trmm", "_linalg_trsm"):
        grads = check_grad(name, [noisy, b], p, rtol=1e-4, atol=1e-7)
        other = np.triu(grads[0], 1) if lower else np.tril(grads[0], -1)
        assert not other.any()


@pytest.mark.parametrize("lower", [True, False])
def test_potrf_and_potri(lower):
    (f,) = run("_linalg_potrf", SPD, lower=lower)
    np.testing.assert_allclose(f, LOW if lower else np.swapaxes(LOW, -1, -2), rtol=1e-12)
    # the gradient is the symmetric one: checked through a symmetrized input, as MXNet's
    a = mx.sym.var("a")
    op = mx.sym.linalg.potrf(0.5 * (a + mx.sym.transpose(a, axes=(0, 2, 1))), lower=lower)
    mx.test_utils.check_numeric_gradient(op, [SPD], numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                                         dtype=np.float64)
    (inv,) = run("_linalg_potri", f, lower=lower)
    np.testing.assert_allclose(inv, np.linalg.inv(SPD), rtol=1e-10)
    check_grad("_linalg_potri", [f], dict(lower=lower), rtol=1e-4, atol=1e-8)


def test_gelqf_is_an_lq_decomposition():
    a = RNG.standard_normal((2, 3, 5))
    q, low = run("_linalg_gelqf", a)
    np.testing.assert_allclose(low @ q, a, atol=1e-12)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-12)
    assert np.allclose(np.triu(low, 1), 0) and (np.diagonal(low, 0, 1, 2) > 0).all()
    check_grad("_linalg_gelqf", [a], rtol=1e-4, atol=1e-7)
    with pytest.raises(ValueError, match="no more rows than columns"):
        run("_linalg_gelqf", a.swapaxes(1, 2))


def test_syevd_eigenvectors_rows_ascending_and_signed():
    a = _sym(SPD)
    u, lam = run("_linalg_syevd", a)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ (lam[..., None] * u), a, atol=1e-10)
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(a), rtol=1e-12)
    big = np.take_along_axis(u, np.abs(u).argmax(-1)[..., None], -1)
    assert (big > 0).all()
    v = mx.sym.var("a")
    sym = mx.sym.linalg.syevd(0.5 * (v + mx.sym.transpose(v, axes=(0, 2, 1))))
    for k in range(2):
        mx.test_utils.check_numeric_gradient(
            sym[k] + 0 * mx.sym.sum(mx.sym.BlockGrad(sym[1 - k])), [SPD], numeric_eps=1e-6,
            rtol=1e-4, atol=1e-6, dtype=np.float64)


def test_diag_and_triangle_packing_follow_mxnets_examples():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(run("_linalg_extracttrian", a)[0], [1, 3, 4])
    np.testing.assert_array_equal(run("_linalg_extracttrian", a, lower=False)[0], [1, 2, 4])
    np.testing.assert_array_equal(run("_linalg_extracttrian", a, offset=1)[0], [2])
    np.testing.assert_array_equal(run("_linalg_extracttrian", a, offset=-1)[0], [3])
    np.testing.assert_array_equal(run("_linalg_maketrian", np.array([1.0, 3, 4]))[0],
                                  [[1, 0], [3, 4]])
    np.testing.assert_array_equal(run("_linalg_maketrian", np.array([2.0]), offset=1)[0],
                                  [[0, 2], [0, 0]])
    np.testing.assert_array_equal(run("_linalg_extractdiag", a, offset=1)[0], [2])
    np.testing.assert_array_equal(run("_linalg_makediag", np.array([1.0, 2]), offset=-1)[0],
                                  [[0, 0, 0], [1, 0, 0], [0, 2, 0]])
    for off in (-1, 0, 1):
        check_grad("_linalg_extracttrian", [M], dict(offset=off))
        check_grad("_linalg_maketrian", [M[:, 0, :3]], dict(offset=off))
        check_grad("_linalg_extractdiag", [M], dict(offset=off))
        check_grad("_linalg_makediag", [M[:, 0]], dict(offset=off))
        check_infer("_linalg_maketrian", [M[:, 0, :3]], dict(offset=off))
        check_infer("_linalg_makediag", [M[:, 0]], dict(offset=off))


def test_inverse_det_slogdet_sumlogdiag():
    np.testing.assert_allclose(run("_linalg_inverse", M)[0], np.linalg.inv(M), rtol=1e-10)
    np.testing.assert_allclose(run("_linalg_det", M)[0], np.linalg.det(M), rtol=1e-10)
    sign, logdet = run("_linalg_slogdet", M)
    np.testing.assert_allclose(sign * np.exp(logdet), np.linalg.det(M), rtol=1e-10)
    np.testing.assert_allclose(run("_linalg_sumlogdiag", SPD)[0],
                               np.log(np.diagonal(SPD, 0, 1, 2)).sum(-1), rtol=1e-12)
    for name in ("_linalg_inverse", "_linalg_det", "_linalg_slogdet"):
        check_grad(name, [M], rtol=1e-4, atol=1e-7)
    check_grad("_linalg_sumlogdiag", [SPD])


def test_namespaces_and_profile_name():
    a = mx.nd.array(SPD[0])
    assert mx.nd.linalg.potrf(a).shape == (4, 4)
    assert registry_name(mx.nd.linalg.potrf) == "_linalg_potrf"
    with pytest.raises(mx.base.MXNetError, match="square"):
        mx.nd.linalg.potrf(mx.nd.ones((2, 3)))


def registry_name(fn):
    from xprof.runtime.ops import registry
    return registry.get("_linalg_" + fn.__name__).name
