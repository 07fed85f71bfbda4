"""mx.np.ndarray: NumPy's rules on the engine (dtypes, 0-d results, indexing, conversions)."""
import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, np, npx


def test_class_and_creation_defaults():
    x = np.array([[1, 2], [3, 4]])
    assert isinstance(x, np.ndarray) and isinstance(x, mx.nd.NDArray)
    assert type(x).__name__ == "ndarray"
    from xprof.runtime.numpy import ndarray
    assert ndarray is np.ndarray
    assert x.dtype == onp.float32 and isinstance(x.dtype, onp.dtype)
    assert np.zeros((2, 3)).dtype == onp.float32
    assert np.arange(3).dtype == onp.float32
    assert np.full((2,), 3).dtype == onp.int64
    assert np.array(onp.ones(2, dtype="int32")).dtype == onp.float32
    assert np.array([1, 2], dtype="int32").dtype == onp.int32
    assert np.random.uniform(size=(2, 2)).dtype == onp.float32
    assert np.ones_like(x).dtype == onp.float32 and np.empty((2,)).shape == (2,)


def test_set_np_dtype_switches_default_float():
    try:
        npx.set_np(dtype=True)
        assert np.zeros((2,)).dtype == onp.float64
        assert np.random.normal(size=(2,)).dtype == onp.float64
    finally:
        npx.reset_np()
    assert np.zeros((2,)).dtype == onp.float32


def test_numpy_dtype_rules():
    i = np.array([1, 2], dtype="int32")
    f = np.ones((2,))
    assert (i + 1).dtype == onp.int32
    assert (i + 1.5).dtype == onp.float64
    assert (i / 2).dtype == onp.float32
    assert (i / i).dtype == onp.float32
    assert (i > 1).dtype == onp.bool_
    assert (i + f).dtype == onp.float32 and (f + i).dtype == onp.float32
    assert np.sum(i).dtype == onp.int32 and np.mean(i).dtype == onp.float32
    assert np.argmax(f).dtype == onp.int64
    assert ((i + 1.5).asnumpy() == [2.5, 3.5]).all()
    assert ((i / 2).asnumpy() == [0.5, 1.0]).all()


def test_zero_d_results_and_scalars():
    x = np.array([[1., 2.], [3., 4.]])
    s = np.sum(x)
    assert s.shape == () and s.ndim == 0 and s.size == 1
    assert s.item() == 10.0 and float(s) == 10.0
    assert x.mean().shape == () and x.max().item() == 4.0
    assert x[1, 0].shape == () and x[1, 0].item() == 3.0
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert repr(np.array(3.5)) == "array(3.5)"
    assert repr(x) == "array([[1., 2.],\n       [3., 4.]])"
    assert repr(np.array([1, 2], dtype="int32")) == "array([1, 2], dtype=int32)"


def test_arithmetic_broadcasts_and_matches_numpy():
    a = onp.arange(6, dtype="float32").reshape(2, 3)
    b = onp.array([1., 2., 3.], dtype="float32")
    x, y = np.array(a), np.array(b)
    for got, want in ((x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b),
                      (2 - x, 2 - a), (2 / (x + 1), 2 / (a + 1)), (x ** 2, a ** 2),
                      (x // 2, a // 2), (x % 4, a % 4), (-x, -a), (abs(-x), a)):
        assert got.shape == want.shape
        onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert ((x > y).asnumpy() == (a > b)).all()
    z = x.copy()
    z += 1
    onp.testing.assert_allclose(z.asnumpy(), a + 1)


def test_indexing():
    a = onp.arange(12, dtype="float32").reshape(3, 4)
    x = np.array(a)
    assert x[0].shape == (4,) and x[:, 1].shape == (3,)
    onp.testing.assert_array_equal(x[1:, ::2].asnumpy(), a[1:, ::2])
    onp.testing.assert_array_equal(x[None, ..., 1].asnumpy(), a[None, ..., 1])
    idx = np.array([2, 0], dtype="int64")
    onp.testing.assert_array_equal(x[idx].asnumpy(), a[[2, 0]])
    onp.testing.assert_array_equal(x[:, [1, 3]].asnumpy(), a[:, [1, 3]])
    onp.testing.assert_array_equal(x[idx, idx].asnumpy(), a[[2, 0], [2, 0]])
    onp.testing.assert_array_equal(x[x > 5].asnumpy(), a[a > 5])
    with pytest.raises(IndexError):
        x[3]
    y = np.array(a)
    y[0] = 7
    y[:, 1] = np.array([1., 2., 3.])
    y[y > 10] = 0
    y[np.array([2], dtype="int64"), 0] = -1
    b = a.copy()
    b[0] = 7
    b[:, 1] = [1, 2, 3]
    b[b > 10] = 0
    b[[2], 0] = -1
    onp.testing.assert_array_equal(y.asnumpy(), b)


def test_shape_methods_and_conversions():
    x = np.ones((2, 3))
    assert x.T.shape == (3, 2) and x.reshape(3, 2).shape == (3, 2)
    assert x.reshape((-1,)).shape == (6,) and x.astype("int32").dtype == onp.int32
    assert x.device == mx.cpu() and x.to_device(mx.cpu()) is x
    nd = x.as_nd_ndarray()
    assert type(nd) is mx.nd.NDArray and nd.shape == (2, 3)
    back = nd.as_np_ndarray()
    assert type(back) is np.ndarray
    onp.testing.assert_array_equal(back.asnumpy(), onp.ones((2, 3)))
    assert type(mx.nd.ones((2,)).as_np_ndarray()) is np.ndarray


def test_gradients_flow_on_np_arrays():
    x = np.array([[1., 2.], [3., 4.]])
    x.attach_grad()
    with autograd.record():
        y = (x * x + 2 * x).sum()
    y.backward()
    assert type(x.grad) is np.ndarray
    onp.testing.assert_allclose(x.grad.asnumpy(), 2 * x.asnumpy() + 2)


def test_dot_and_random_and_npx():
    x = np.random.uniform(size=(3, 4))
    y = np.random.normal(0, 1, size=(4, 2))
    onp.testing.assert_allclose(np.dot(x, y).asnumpy(), x.asnumpy() @ y.asnumpy(),
                                rtol=1e-5)
    onp.testing.assert_allclose(npx.relu(x - 0.5).asnumpy(),
                                onp.maximum(x.asnumpy() - 0.5, 0))
    npx.waitall()
    assert not mx.util.is_np_array()
    npx.set_np()
    try:
        assert npx.is_np_array() and mx.util.is_np_shape()
    finally:
        npx.reset_np()
    assert not npx.is_np_array()
