"""mx.nd's Python-level helpers (ndarray/helpers.py) and the indexing/serialization rules
MXNet programs rely on: numpy results as ground truth, gradients against numpy's."""
import os

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd

nd = mx.nd
X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("src, dst", [(0, 2), (2, 0), (-1, 0), ([0, 2], [2, 0]),
                                      ([0, 1], [-1, -2])])
def test_moveaxis_matches_numpy(src, dst):
    out = nd.moveaxis(nd.array(X), src, dst)
    np.testing.assert_array_equal(out.asnumpy(), np.moveaxis(X, src, dst))


def test_moveaxis_rejects_repeated_and_mismatched_axes():
    with pytest.raises(ValueError, match="repeated source axis"):
        nd.moveaxis(nd.array(X), [0, 0], [1, 2])
    with pytest.raises(ValueError, match="same number of axes"):
        nd.moveaxis(nd.array(X), [0, 1], [1])


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_linspace_and_eye_match_numpy(endpoint, dtype):
    got = nd.linspace(3.5, 91.25, 13, endpoint=endpoint, dtype=dtype).asnumpy()
    np.testing.assert_allclose(got, np.linspace(3.5, 91.25, 13, endpoint=endpoint,
                                                dtype=dtype), rtol=1e-6)
    assert got.dtype == np.dtype(dtype)
    for n, m, k in [(4, 0, 0), (3, 5, 1), (5, 2, -2), (2, 3, 7)]:
        np.testing.assert_array_equal(nd.eye(n, m, k, dtype=dtype).asnumpy(),
                                      np.eye(n, m or None, k, dtype=dtype))
    with pytest.raises(ValueError, match="num=-1"):
        nd.linspace(0, 1, -1)


def test_reset_arrays_zeroes_every_array_in_one_op(profile):
    arrays = [nd.array(np.ones(s), dtype=d) for s, d in [((2, 3), "float32"),
                                                          ((4,), "float16"), ((1, 2, 2), "float64")]]
    with profile() as box:
        nd.reset_arrays(*arrays, num_arrays=3)
    assert box.trace.names() == ["reset_arrays"]
    for a, dt in zip(arrays, ["float32", "float16", "float64"]):
        assert a.dtype == np.dtype(dt) and not a.asnumpy().any()
    with pytest.raises(ValueError, match="num_arrays=2"):
        nd.reset_arrays(*arrays, num_arrays=2)


def test_crop_aliases_and_internal_namespace():
    x = nd.ones((2, 3, 4))
    np.testing.assert_array_equal(nd.crop(x, begin=(0, 0, 0), end=(2, 1, 3)).asnumpy(),
                                  np.ones((2, 1, 3)))
    nd._internal._crop_assign(x, nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3), out=x)
    want = np.ones((2, 3, 4))
    want[:, :1, :3] = 0
    np.testing.assert_array_equal(x.asnumpy(), want)
    nd._internal._crop_assign_scalar(x, scalar=5, begin=(1, 1, 1), end=(2, 3, 2), out=x)
    want[1:, 1:3, 1:2] = 5
    np.testing.assert_array_equal(x.asnumpy(), want)
    assert nd._internal._plus_scalar is nd._plus_scalar
    assert not hasattr(nd._internal, "dot")


def test_cached_op_runs_a_symbol_with_gradients():
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc") * 2
    op = nd.CachedOp(sym)
    assert sym.list_inputs() == ["data", "fc_weight", "fc_bias"]
    rng = np.random.default_rng(0)
    d, w, b = (rng.standard_normal(s).astype(np.float32) for s in [(4, 5), (3, 5), (3,)])
    want = 2 * (d @ w.T + b)
    np.testing.assert_allclose(op(nd.array(d), nd.array(w), nd.array(b)).asnumpy(), want,
                               rtol=1e-5)
    out = nd.zeros((4, 3))
    assert op(nd.array(d), nd.array(w), nd.array(b), out=out) is out
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    wa = nd.array(w)
    wa.attach_grad()
    with autograd.record():
        y = op(nd.array(d), wa, nd.array(b))
    y.backward()
    np.testing.assert_allclose(wa.grad.asnumpy(), 2 * np.ones((4, 3)).T @ d, rtol=1e-5)
    with pytest.raises(ValueError, match="2 inputs given, the symbol takes 3"):
        op(nd.array(d), wa)


def test_dlpack_round_trip_and_numpy_exchange():
    a = nd.array(X)
    b = nd.from_dlpack(a.to_dlpack_for_read())
    c = nd.from_dlpack(nd.to_dlpack_for_write(a))
    d = nd.from_dlpack(np.arange(5, dtype=np.int32))      # any __dlpack__ producer
    del a
    np.testing.assert_array_equal(b.asnumpy(), X)
    np.testing.assert_array_equal(c.asnumpy(), X)
    np.testing.assert_array_equal(d.asnumpy(), np.arange(5))
    assert d.dtype == np.int32
    np.testing.assert_array_equal(np.from_dlpack(_Producer(nd.array(X))), X)


class _Producer:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **_):
        return self.a.to_dlpack_for_read()

    def __dlpack_device__(self):
        return (1, 0)


def test_bool_of_empty_and_single_element_arrays():
    assert not bool(nd.array([]))
    assert not bool(nd.zeros((1,)))
    assert bool(nd.ones((1, 1)))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(nd.ones((2,)))


SHAPE = (4, 5, 3, 3)
A = np.arange(np.prod(SHAPE), dtype=np.int32).reshape(SHAPE)


@pytest.mark.parametrize("index", [
    None, (1, None, -2, 2), (slice(1, 3), None, 2), (None, 0, None, None, 0, 0, None),
    [1, 2], [3, 1, 1], np.array([[0, 2], [3, 1]]), (1, [2, 3]), (1, [2], slice(None)),
    ([1, 2], slice(1, 3), (0, 2), [1, 0]), ([0, 1], slice(None), None, [2, 0]),
    (Ellipsis, [2, 0]), (slice(None), np.array([[4], [1]]), 0),
])
def test_getitem_and_setitem_follow_numpy(index):
    x = nd.array(A, dtype="int32")
    np.testing.assert_array_equal(x[index].asnumpy().reshape(A[index].shape), A[index])
    want = A.copy()
    value = -np.arange(np.prod(A[index].shape), dtype=np.int32).reshape(A[index].shape)
    want[index] = value
    x[index] = value
    np.testing.assert_array_equal(x.asnumpy(), want)
    want[index] = 7
    x[index] = 7
    np.testing.assert_array_equal(x.asnumpy(), want)


def test_ndarray_index_and_gradient_of_repeated_positions():
    x = nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(x[nd.array([1, 1, 0]), nd.array([0, 1, 0])].asnumpy(),
                                  [3, 4, 0])
    x.attach_grad()
    with autograd.record():
        y = x[[0, 0, 1], [2, 2, 0]]
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 0, 2], [1, 0, 0]])


def test_bad_indices_are_refused_with_the_value():
    x = nd.zeros((2, 3))
    with pytest.raises(ValueError, match=r"\[0, 5\] is out of bounds for axis 1 with size 3"):
        x[:, [0, 5]]
    with pytest.raises(ValueError, match="not an integer array"):
        x[[0.5, 1]]
    with pytest.raises(ValueError, match="too many dimensions"):
        x[0, 0, 0]


def test_np_shape_files_load_only_under_np_shape(tmp_path):
    arrays = [nd.array(np.ones((2, 0, 1))), nd.array(np.float32(3.0))]
    plain, npshape = str(tmp_path / "plain"), str(tmp_path / "npshape")
    nd.save(plain, arrays)
    with mx.np_shape(True):
        nd.save(npshape, arrays)
        loaded = nd.load(npshape)
        assert [a.shape for a in loaded] == [(2, 0, 1), ()]
        assert loaded[1].asnumpy() == 3.0
        with pytest.raises(mx.base.MXNetError, match="not saved in np shape semantics"):
            nd.load(plain)
    with pytest.raises(mx.base.MXNetError, match="saved in np shape semantics"):
        nd.load(npshape)
    assert [a.shape for a in nd.load(plain)] == [(2, 0, 1), (1,)]


def test_truncated_buffer_is_an_mxnet_error(tmp_path):
    fname = str(tmp_path / "list")
    nd.save(fname, [nd.ones((3, 4))])
    buf = open(fname, "rb").read()
    assert os.path.getsize(fname) == len(buf)
    with pytest.raises(mx.base.MXNetError, match="truncated MXNet NDArray data"):
        nd.load_frombuffer(buf[:-10])
    with pytest.raises(ValueError):
        nd.load_frombuffer(buf[:-10])
