"""The operators MXNet 2 added for functions official NumPy computes in 1.x, and npx's:
values as NumPy's (or MXNet's conventions where they differ), errors at the sync point,
the npy/npz files, zero-copy ``from_numpy``. Their gradients are the gradient walk's
(test_gradients.py)."""
import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, np, npx


def _a(*shape, seed=0):
    return onp.random.default_rng(seed).uniform(-1, 1, shape)


def test_values_match_numpy():
    a, b = _a(3, 4), _a(4, 2, seed=1)
    cases = [
        (np.einsum("ij,jk->ik", np.array(a), np.array(b)), onp.einsum("ij,jk->ik", a, b)),
        (np.einsum("ii", np.array(a[:, :3])), onp.einsum("ii", a[:, :3])),
        (np.pad(np.array(a), ((1, 2), (0, 1)), mode="reflect"),
         onp.pad(a, ((1, 2), (0, 1)), mode="reflect")),
        (np.diff(np.array(a), n=2, axis=0), onp.diff(a, n=2, axis=0)),
        (np.ediff1d(np.array(a), to_begin=np.array([7.0])), onp.ediff1d(a, to_begin=[7.0])),
        (np.diagflat(np.array(a[0]), k=-1), onp.diagflat(a[0], k=-1)),
        (np.polyval(np.array(a[0]), np.array(b)), onp.polyval(a[0], b)),
        (np.roll(np.array(a), (1, -1), axis=(0, 1)), onp.roll(a, (1, -1), axis=(0, 1))),
        (np.tril(np.array(a[0])), onp.tril(a[0])),
    ]
    for got, want in cases:
        onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    x = onp.array([onp.nan, onp.inf, -onp.inf, 1.0])
    onp.testing.assert_allclose(np.nan_to_num(np.array(x)).asnumpy(),
                                onp.nan_to_num(x.astype(onp.float32)))


def test_svd_is_mxnets_convention():
    a = _a(2, 3, 4)
    ut, s, v = np.linalg.svd(np.array(a, dtype="float64"))
    assert (ut.shape, s.shape, v.shape) == ((2, 3, 3), (2, 3), (2, 3, 4))
    onp.testing.assert_allclose((ut.asnumpy() * s.asnumpy()[..., None, :]) @ v.asnumpy(), a,
                                atol=1e-10)


def test_linear_algebra_matches_numpy():
    m = _a(3, 3) + 3 * onp.eye(3)
    spd = m @ m.T
    onp.testing.assert_allclose(np.linalg.cholesky(np.array(spd)).asnumpy(),
                                onp.linalg.cholesky(spd), rtol=1e-5)
    onp.testing.assert_allclose(np.linalg.solve(np.array(m), np.array(_a(3))).asnumpy(),
                                onp.linalg.solve(m, _a(3)), rtol=1e-4)
    assert np.linalg.det(np.array(m)).shape == ()
    assert [x.shape for x in np.linalg.slogdet(np.array(m))] == [(), ()]
    assert mx.nd.linalg.det(mx.nd.array(m)).shape == (1,)      # MXNet 1.x's, unchanged


def test_npx_index_update_add_slice_and_stes():
    a = np.zeros((3, 4))
    ind = np.array([[0, 2], [1, 3]])
    v = np.array([5.0, 6.0])
    want = onp.zeros((3, 4))
    want[0, 1], want[2, 3] = 5, 6
    onp.testing.assert_array_equal(npx.index_update(a, ind, v).asnumpy(), want)
    onp.testing.assert_array_equal(npx.index_add(a + 1, ind, v).asnumpy(), want + 1)
    x = np.array(onp.arange(24.0).reshape(2, 3, 4))
    onp.testing.assert_array_equal(npx.slice(x, begin=(1, None), end=(None, 2),
                                             step=(1, -1)).asnumpy(),
                                   onp.arange(24.0).reshape(2, 3, 4)[1:, :2:-1])
    y = np.array([0.4, 1.6, -2.5])
    y.attach_grad()
    with autograd.record():
        r = npx.round_ste(y)
    r.backward()
    onp.testing.assert_array_equal(r.asnumpy(), [0.0, 2.0, -2.0])
    onp.testing.assert_array_equal(y.grad.asnumpy(), [1.0, 1.0, 1.0])


def test_constraint_check_fails_at_the_sync_point():
    ok = npx.constraint_check(np.array([True, True], dtype=bool), "fine")
    assert ok.item() is True
    bad = npx.constraint_check(np.array([True, False], dtype=bool), "condition violated")
    with pytest.raises(ValueError, match="condition violated"):
        bad.asnumpy()


def test_random_parameter_errors_and_batch_samplers():
    with pytest.raises(ValueError):
        np.random.exponential(scale=np.array([1.0, -1.0])).asnumpy()
    out = npx.random.uniform_n(np.zeros((2,)), np.ones((2,)), batch_shape=(3, 4))
    assert out.shape == (3, 4, 2)
    assert npx.random.normal_n(0.0, 1.0, batch_shape=5).shape == (5,)
    assert np.random.multinomial(10, [0.5, 0.5], size=(0, 2)).shape == (0, 2, 2)
    assert np.random.multivariate_normal(np.zeros((3, 2)), onp.eye(2),
                                         size=4).shape == (4, 3, 2)


def test_npy_and_npz_files(tmp_path):
    a = np.array(onp.arange(6.0).reshape(2, 3))
    npx.save(str(tmp_path / "a.npy"), a)
    onp.testing.assert_array_equal(onp.load(tmp_path / "a.npy"), a.asnumpy())
    assert isinstance(npx.load(str(tmp_path / "a.npy")), np.ndarray)
    npx.savez(str(tmp_path / "b.npz"), a, w=a * 2)
    loaded = npx.load(str(tmp_path / "b.npz"))
    assert sorted(loaded) == ["arr_0", "w"]
    onp.testing.assert_array_equal(loaded["w"].asnumpy(), a.asnumpy() * 2)
    mx.nd.save(str(tmp_path / "legacy"), [a.as_nd_ndarray()])   # MXNet's format too
    assert isinstance(npx.load(str(tmp_path / "legacy"))[0], np.ndarray)
    with pytest.raises(ValueError):
        npx.save(str(tmp_path / "c.npy"), [a])


def test_from_numpy_shares_the_buffer():
    values = onp.arange(6.0).reshape(2, 3)
    a = npx.from_numpy(values)
    assert np.shares_memory(values, a) and onp.shares_memory(values, a)
    assert not values.flags.writeable
    assert not np.shares_memory(values, a + 0)
    b = npx.from_numpy(onp.arange(3.0), zero_copy=False)
    assert not np.shares_memory(b, a)
    with pytest.raises(ValueError):
        npx.from_numpy(onp.arange(6.0).reshape(2, 3).T)
