"""mx.test_utils: comparisons with dtype tolerances, symbolic checks, numeric gradients."""
import os

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import test_utils as tu


def test_assert_almost_equal_uses_dtype_tolerances_and_names_the_worst_element():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    tu.assert_almost_equal(a, a + 5e-4)              # float32 atol 1e-3
    with pytest.raises(AssertionError, match=r"Location of maximum error: \(2,\)"):
        tu.assert_almost_equal(mx.nd.array(a), a + np.array([0, 0.01, 0.1], np.float32))
    assert tu.almost_equal(a, a) and not tu.almost_equal(a, a + 1)
    assert tu.same(mx.nd.array(a), a)


def test_check_symbolic_forward_and_backward():
    x, w = mx.sym.Variable("x"), mx.sym.Variable("w")
    y = mx.sym.dot(x, w)
    xv, wv = np.random.rand(2, 3), np.random.rand(3, 4)
    tu.check_symbolic_forward(y, [xv, wv], [xv @ wv], rtol=1e-4, atol=1e-5)
    og = np.ones((2, 4))
    tu.check_symbolic_backward(y, [xv, wv], [og], [og @ wv.T, xv.T @ og], rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(y, [xv, wv], [xv @ wv + 1])


def test_check_numeric_gradient_passes_a_right_gradient_and_catches_a_wrong_one():
    x = mx.sym.Variable("x")
    tu.check_numeric_gradient(mx.sym.tanh(x), [np.random.rand(3, 2)], rtol=1e-2, atol=1e-3)
    # sum(x * proj) has gradient proj; 'null' keeps the initial gradient: comparing
    # against it catches a wrong value only if the executor writes one.
    tu.check_numeric_gradient(x * 2, [np.random.rand(2, 2)], grad_nodes={"x": "write"})


def test_environment_sets_and_restores():
    os.environ.pop("XPROF_TEST_ENV", None)
    with tu.environment("XPROF_TEST_ENV", "1"):
        assert os.environ["XPROF_TEST_ENV"] == "1"
        with tu.environment({"XPROF_TEST_ENV": None}):
            assert "XPROF_TEST_ENV" not in os.environ
        assert os.environ["XPROF_TEST_ENV"] == "1"
    assert "XPROF_TEST_ENV" not in os.environ


def test_random_helpers_and_np_reduce():
    np.random.seed(3)
    shape = tu.rand_shape_nd(3, dim=4)
    assert len(shape) == 3 and all(1 <= d <= 4 for d in shape)
    arr = tu.rand_ndarray(shape)
    assert arr.shape == shape and arr.dtype == np.float32
    csr = tu.rand_ndarray((20, 30), stype="csr", density=0.2)
    assert csr.stype == "csr" and 0 < csr.data.shape[0] < 20 * 30
    rsp, (values, rows) = tu.rand_sparse_ndarray((10, 3), "row_sparse", density=0.5)
    np.testing.assert_array_equal(rsp.indices.asnumpy(), rows)
    np.testing.assert_array_equal(rsp.asnumpy()[rows], values)
    d = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tu.np_reduce(d, (0, 2), True, np.sum),
                                  d.sum(axis=(0, 2), keepdims=True))
    assert tu.default_context() == mx.current_context()


def test_assign_each_is_mxnets_including_empty_arrays():
    # a new float64 array of the input's shape (empty ones too: sparse tests at density
    # 0 give them), or a copy when there is no function
    x = np.array([[1, 2], [3, 4]], np.int32)
    out = tu.assign_each(x, lambda v: v * 10)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x * 10)
    assert tu.assign_each(np.zeros((0, 3), np.float32), lambda v: v + 1).shape == (0, 3)
    same = tu.assign_each(x, None)
    assert same is not x and same.dtype == x.dtype
    np.testing.assert_array_equal(tu.assign_each2(x, x + 1, lambda a, b: a * b), x * (x + 1))
