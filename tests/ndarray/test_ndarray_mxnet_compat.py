"""Behaviours where xprof follows MXNet 1.x exactly: shapes of integer indexing, the
operator names of ``copy()`` and unary minus, and argument checks that MXNet makes."""
import numpy as np
import pytest

import xprof.runtime as mx


# -- integer indexing keeps a dimension (MXNet 1.x has no 0-d arrays) -------------------------
def test_integer_index_of_vector_has_shape_1(engine):
    v = mx.nd.array([1, 2, 3])
    assert v[1].shape == (1,)
    np.testing.assert_array_equal(v[1].asnumpy(), [2])
    assert v[-1].asscalar() == 3
    assert [e.shape for e in v] == [(1,), (1,), (1,)]


def test_all_integer_tuple_key_has_shape_1(engine):
    m = mx.nd.array([[1, 2], [3, 4]])
    assert m[0, 1].shape == (1,)
    np.testing.assert_array_equal(m[0, 1].asnumpy(), [2])
    assert m[1].shape == (2,) and m[:, 0].shape == (2,)


def test_assign_size_1_array_to_integer_index(engine):
    y = mx.nd.zeros((3,))
    y[2] = mx.nd.array([7])
    z = mx.nd.zeros((2, 2))
    z[0, 1] = mx.nd.array([9.0])
    np.testing.assert_array_equal(y.asnumpy(), [0, 0, 7])
    np.testing.assert_array_equal(z.asnumpy(), [[0, 9], [0, 0]])


def test_integer_index_gradient(engine):
    v = mx.nd.array([1, 2, 3])
    v.attach_grad()
    with mx.autograd.record():
        out = v[1] * 3
    out.backward()
    np.testing.assert_array_equal(v.grad.asnumpy(), [0, 3, 0])


# -- operator names users read in profiles --------------------------------------------------
def test_copy_is_copycpu2cpu_and_neg_is_mul_scalar(engine, profile):
    x = mx.nd.array([1.0, -2.0])
    with profile() as box:
        c = x.copy()
        n = -x
    assert box.trace.names() == ["CopyCPU2CPU", "_mul_scalar"]
    np.testing.assert_array_equal(c.asnumpy(), [1, -2])
    np.testing.assert_array_equal(n.asnumpy(), [-1, 2])


def test_neg_keeps_integer_dtype_and_gradient(engine):
    i = -mx.nd.array([1, 2], dtype="int32")
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i.asnumpy(), [-1, -2])
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (-x * 3).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [-3, -3])


# -- argument checks MXNet makes at the call ------------------------------------------------
def _one_line_error(call, *fragments):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert "\n" not in msg
    for f in fragments:
        assert f in msg, (f, msg)


def test_random_parameter_checks(engine):
    # As in MXNet, the sampling kernel checks its parameters: the call returns, the
    # clear one-line error (a ValueError and an MXNetError) comes at the sync point,
    # and the engine goes on.
    bad = mx.nd.random.uniform(1, 0, shape=(2,))
    _one_line_error(bad.asnumpy, "low=1.0", "high=0.0")
    _one_line_error(lambda: mx.random.uniform(5, -5).asnumpy(), "low <= high")
    bad = mx.nd.random.normal(0, -1, shape=(2,))
    with pytest.raises(mx.base.MXNetError, match="scale=-1.0 is not allowed"):
        mx.nd.dot(bad, mx.nd.ones((2, 1))).asnumpy()
    _one_line_error(bad.asnumpy, "scale=-1.0")
    assert mx.nd.random.uniform(2, 2, shape=(3,)).asnumpy().tolist() == [2, 2, 2]
    assert mx.nd.random.normal(1, 0, shape=(2,)).asnumpy().tolist() == [1, 1]


def test_seed_ctx_and_negative_seed(engine):
    _one_line_error(lambda: mx.random.seed(1, ctx="foo"), "ctx='foo'", "'all'")
    mx.random.seed(3, ctx=mx.cpu())
    mx.random.seed(-1)                       # a C int in MXNet: accepted
    a = mx.nd.random.uniform(shape=(4,)).asnumpy()
    mx.random.seed(-1, ctx="all")
    np.testing.assert_array_equal(mx.nd.random.uniform(shape=(4,)).asnumpy(), a)


def test_reduction_axis_checks(engine):
    x = mx.nd.ones((2, 3))
    np.testing.assert_array_equal(mx.nd.sum(x, axis=np.int64(1)).asnumpy(), [3, 3])
    np.testing.assert_array_equal(x.mean(axis=[0, 1]).asnumpy(), [1])
    for bad in ("a", 1.5, True, (0, "b")):
        _one_line_error(lambda: mx.nd.mean(x, axis=bad), f"axis={bad!r}")


def test_ctx_must_be_a_context(engine):
    for call in (lambda: mx.nd.zeros((1,), ctx="cpu"), lambda: mx.nd.ones(2, ctx=0),
                 lambda: mx.nd.array([1], ctx="cpu(0)"),
                 lambda: mx.nd.random.uniform(shape=(2,), ctx="cpu")):
        _one_line_error(call, "is not a Context")


def test_unknown_keyword_is_an_error_at_the_call(engine):
    x = mx.nd.ones((2, 3))
    # an operator without parameters ignores keywords, as MXNet's (checked on MXNet 2.0.0b1)
    assert mx.nd.sqrt(x, foo=1).asnumpy().tolist() == [[1.0] * 3] * 2
    _one_line_error(lambda: mx.nd.dot(x, x, transpose_c=True), "'transpose_c'", "transpose_b")
    _one_line_error(lambda: mx.nd.sum(x, axes=1), "'axes'", "axis")
    assert mx.nd.dot(x, x, transpose_b=True).shape == (2, 2)
    assert mx.nd.clip(x, 0, 0.5).asnumpy().max() == 0.5


def test_full_slice_is_the_array_itself(engine, profile):
    """MXNet: ``x[:]`` is ``x`` (no op), so ``dst[:] += src`` (CustomOp.assign's 'add'
    in MXNet) updates dst with one broadcast_add (NDArray.__iadd__ in MXNet 1.x)."""
    x = mx.nd.ones((3,))
    src = mx.nd.ones((3,))
    assert x[:] is x
    with profile() as box:
        x[:] += src
    assert box.trace.names() == ["broadcast_add"]
    np.testing.assert_array_equal(x.asnumpy(), [2, 2, 2])


# -- the fluent transpose takes axes= as MXNet's does ------------------------------------------
def test_transpose_takes_axes_by_keyword_position_or_tuple(engine):
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    want = np.arange(24).reshape(2, 3, 4).transpose(1, 0, 2)
    for y in (x.transpose(axes=(1, 0, 2)), x.transpose((1, 0, 2)), x.transpose(1, 0, 2)):
        np.testing.assert_array_equal(y.asnumpy(), want)
    assert x.transpose().shape == x.transpose(axes=None).shape == (4, 3, 2)
    with pytest.raises(TypeError, match="both by position and as axes="):
        x.transpose(1, 0, 2, axes=(1, 0, 2))
    with pytest.raises(TypeError, match="unknown argument 'axis'"):
        x.transpose(axis=1)


def test_broadcast_like_refuses_empty_axes_as_mxnet_does(engine):
    lhs, rhs = mx.nd.ones((1, 2, 1, 3)), mx.nd.ones((5, 6, 7, 8))
    assert mx.nd.broadcast_like(lhs, rhs, lhs_axes=(0, 2), rhs_axes=(1, 3)).shape == (6, 2, 8, 3)
    assert mx.nd.broadcast_like(mx.nd.ones((1, 8)), rhs[0, 0]).shape == (7, 8)
    with pytest.raises(mx.base.MXNetError, match=r"lhs_axes=\(\) and rhs_axes=\(\): an empty axes"):
        mx.nd.broadcast_like(lhs, rhs, lhs_axes=(), rhs_axes=())
    with pytest.raises(ValueError, match="empty axes tuple"):
        mx.nd.broadcast_like(lhs, rhs, lhs_axes=(0,))


def test_reshape_like_and_broadcast_like_methods_take_the_operators_arguments(engine):
    x = mx.nd.array(np.arange(180).reshape(5, 6, 2, 3))
    assert x.reshape_like(rhs=mx.nd.ones((30, 6))).shape == (30, 6)
    assert x.reshape_like(mx.nd.ones((30, 6))).shape == (30, 6)
    assert x.reshape_like(mx.nd.ones((6, 5)), lhs_begin=0, lhs_end=2).shape == (6, 5, 2, 3)
    one = mx.nd.ones((1, 3))
    assert one.broadcast_like(mx.nd.ones((4, 7)), lhs_axes=(0,), rhs_axes=(0,)).shape == (4, 3)
    assert one.broadcast_like(mx.nd.ones((4, 3))).shape == (4, 3)
