"""NDArray creation, metadata, copies, contexts, random numbers, in-place chains and
input validation, on both engines."""
import threading

import numpy as np
import pytest

import xprof.runtime as mx
import xprof.runtime.engine as engine_mod


# -- creation and dtypes ------------------------------------------------------------------
def test_creation_functions(engine):
    cases = [
        (mx.nd.zeros((2, 3)), np.zeros((2, 3), np.float32)),
        (mx.nd.zeros(4), np.zeros(4, np.float32)),
        (mx.nd.ones((3,)), np.ones(3, np.float32)),
        (mx.nd.ones((2, 2), dtype="float64"), np.ones((2, 2))),
        (mx.nd.full((2, 2), 7.5), np.full((2, 2), 7.5, np.float32)),
        (mx.nd.full(3, 2, dtype=np.int32), np.full(3, 2, np.int32)),
        (mx.nd.arange(5), np.arange(5, dtype=np.float32)),
        (mx.nd.arange(1, 7, 2), np.arange(1, 7, 2, dtype=np.float32)),
        (mx.nd.arange(0, 2, 0.5), np.arange(0, 2, 0.5, dtype=np.float32)),
        (mx.nd.arange(1, 4, repeat=2), np.array([1, 1, 2, 2, 3, 3], np.float32)),
        (mx.nd.arange(3, dtype="int64"), np.arange(3, dtype=np.int64)),
        (mx.nd.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], np.float32)),
        (mx.nd.array([1.5, 2.5], dtype="float16"), np.array([1.5, 2.5], np.float16)),
        (mx.nd.array(np.arange(6.0).reshape(2, 3)), np.arange(6.0, dtype=np.float32).reshape(2, 3)),
    ]
    for arr, ref in cases:
        assert isinstance(arr, mx.nd.NDArray)
        assert arr.shape == ref.shape and arr.dtype == ref.dtype, (arr.shape, arr.dtype, ref)
        got = arr.asnumpy()
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)


def test_default_dtype_is_float32(engine):
    for arr in (mx.nd.array([1, 2, 3]), mx.nd.array([[1.0]]), mx.nd.zeros((2,)),
                mx.nd.ones(2), mx.nd.full((1,), 3), mx.nd.empty((2,)), mx.nd.arange(3),
                mx.nd.array((1, 2)), mx.nd.random.uniform(shape=(2,))):
        assert arr.dtype == np.float32
        assert arr.asnumpy().dtype == np.float32


def test_array_from_numpy_is_float32_unless_asked(engine):
    # MXNet 1.x: float32 for any non-NDArray source (numpy arrays included) unless a
    # dtype is given; an NDArray source keeps its dtype.
    src = np.array([0.1, 0.2], dtype=np.float64)
    a = mx.nd.array(src)
    assert a.dtype == np.float32
    np.testing.assert_allclose(a.asnumpy(), src.astype(np.float32))
    a = mx.nd.array(src, dtype="float64")
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a.asnumpy(), src)
    # an NDArray source keeps its dtype too, and the copy is independent
    b = mx.nd.array(a)
    assert b.dtype == np.float64
    src[0] = 99.0
    a += 1
    np.testing.assert_array_equal(b.asnumpy(), [0.1, 0.2])


def test_like_functions(engine):
    x = mx.nd.array([[1, 2], [3, 4]], dtype="float64")
    for arr, value in ((mx.nd.zeros_like(x), 0), (mx.nd.ones_like(x), 1),
                       (x.zeros_like(), 0), (x.ones_like(), 1)):
        assert arr.shape == (2, 2) and arr.dtype == np.float64
        np.testing.assert_array_equal(arr.asnumpy(), np.full((2, 2), value))


def test_empty_has_shape_dtype_and_is_writable(engine):
    e = mx.nd.empty((2, 3), dtype="int32")
    assert e.shape == (2, 3) and e.dtype == np.int32
    e[:] = 4
    np.testing.assert_array_equal(e.asnumpy(), np.full((2, 3), 4, np.int32))


def test_metadata(engine):
    x = mx.nd.zeros((2, 3, 4))
    assert x.shape == (2, 3, 4)
    assert x.size == 24 and x.ndim == 3 and len(x) == 2
    assert x.dtype == np.float32
    assert x.context == mx.cpu() == mx.cpu(0) and x.ctx == x.context
    with pytest.raises(mx.base.MXNetError, match=r"zeros: shape=\(0, 3\) holds no known size"):
        mx.nd.zeros((0, 3))          # as MXNet 1.x: 0 is an unknown size
    with pytest.raises(ValueError, match=r"ones: shape=\(\) holds no known size"):
        mx.nd.ones(())
    with mx.np_shape(True):
        assert mx.nd.zeros((0, 3)).size == 0 and mx.nd.ones(()).shape == ()


def test_sync_points(engine):
    x = mx.nd.array([[1, 2], [3, 4]])
    y = x * 2
    y.wait_to_read()
    out = y.asnumpy()
    assert isinstance(out, np.ndarray)
    out[0, 0] = 100            # asnumpy returns a copy
    np.testing.assert_array_equal(y.asnumpy(), [[2, 4], [6, 8]])
    s = y.sum().asscalar()
    assert s == 20 and isinstance(s, np.float32)
    assert mx.nd.array([3]).asscalar() == 3
    assert float(mx.nd.array([2.5])) == 2.5
    with pytest.raises(ValueError, match=r"\(2, 2\)"):
        y.asscalar()
    assert np.asarray(y).tolist() == [[2, 4], [6, 8]]
    mx.nd.waitall()


# -- copies and contexts --------------------------------------------------------------------
def test_copy_and_copyto(engine):
    x = mx.nd.array([1, 2, 3])
    c = x.copy()
    assert c is not x and c.shape == x.shape
    target = mx.nd.zeros((3,))
    r = x.copyto(target)
    assert r is target
    x += 10                          # later writes to x do not reach the copies
    np.testing.assert_array_equal(c.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(target.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(x.asnumpy(), [11, 12, 13])
    with pytest.raises(ValueError, match=r"\(3,\).*\(4,\)"):
        x.copyto(mx.nd.zeros((4,)))
    with pytest.raises(ValueError):
        x.copyto("cpu")


def test_contexts(engine):
    assert mx.Context is mx.context.Context
    assert mx.cpu(1) == mx.Context("cpu", 1) == mx.context.Context("cpu", 1)
    assert mx.cpu(1) != mx.cpu(0)
    assert str(mx.cpu(3)) == "cpu(3)"
    assert mx.cpu(1).device_type == "cpu" and mx.cpu(1).device_id == 1
    assert mx.context.num_gpus() == 0
    assert mx.device.num_gpus() == 0
    assert mx.num_gpus() == 0
    assert mx.current_context() == mx.cpu(0)
    x = mx.nd.ones((2,), ctx=mx.cpu(1))
    assert x.context == mx.cpu(1)
    y = x.copyto(mx.cpu(2))
    assert y.context == mx.cpu(2)
    z = x.as_in_context(mx.cpu(0))
    assert z.context == mx.cpu(0) and z is not x
    assert x.as_in_context(mx.cpu(1)) is x
    d = x.to_device(mx.cpu(4))
    assert d.context == mx.cpu(4)
    for arr in (y, z, d):
        np.testing.assert_array_equal(arr.asnumpy(), [1, 1])
    assert (x + 1).context == mx.cpu(1)       # results live where their inputs are
    with mx.cpu(5):
        assert mx.current_context() == mx.cpu(5)
        assert mx.nd.zeros((1,)).context == mx.cpu(5)
        assert mx.nd.array([1]).context == mx.cpu(5)
    assert mx.current_context() == mx.cpu(0)


def test_gpu_is_named_but_not_allocatable(engine):
    g = mx.gpu(0)
    assert g.device_type == "gpu" and str(g) == "gpu(0)"
    x = mx.nd.ones((2,))
    for make in (lambda: mx.nd.zeros((2,), ctx=mx.gpu(0)),
                 lambda: mx.nd.array([1, 2], ctx=mx.gpu()),
                 lambda: mx.nd.ones((1,), ctx=mx.gpu(1)),
                 lambda: mx.nd.empty((1,), ctx=mx.gpu(0)),
                 lambda: x.copyto(mx.gpu(0)),
                 lambda: x.as_in_context(mx.gpu(0))):
        with pytest.raises(ValueError, match=r"gpu\(\d\).*not available"):
            make()


def test_bad_context_values():
    with pytest.raises(ValueError, match="'tpu'"):
        mx.Context("tpu", 0)
    with pytest.raises(ValueError, match="-1"):
        mx.cpu(-1)


# -- random numbers ---------------------------------------------------------------------------
def _draws():
    return [mx.random.uniform(-1, 2, shape=(3, 4)).asnumpy(),
            mx.random.normal(0, 1, shape=(5,)).asnumpy(),
            mx.nd.random.uniform(shape=(2, 2)).asnumpy(),
            mx.nd.random.normal(loc=3, scale=0.5, shape=(4,)).asnumpy(),
            mx.nd.random.uniform(0, 1, shape=(7,), dtype="float64").asnumpy()]


def test_random_reproducible_after_seed(engine):
    mx.random.seed(1234)
    first = _draws()
    mx.random.seed(1234)
    second = _draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    mx.random.seed(4321)
    third = _draws()
    assert not np.array_equal(first[0], third[0])
    u = first[0]
    assert u.dtype == np.float32 and u.shape == (3, 4)
    assert u.min() >= -1 and u.max() < 2
    assert first[4].dtype == np.float64


def test_random_same_numbers_on_both_engines():
    results = {}
    try:
        for kind in ("NaiveEngine", "ThreadedEngine"):
            engine_mod.set_engine_type(kind)
            mx.random.seed(99)
            results[kind] = _draws()
    finally:
        engine_mod.set_engine_type("ThreadedEngine")
    for a, b in zip(results["NaiveEngine"], results["ThreadedEngine"]):
        np.testing.assert_array_equal(a, b)


def test_seed_is_ordered_with_pending_draws(engine, test_ops):
    """A seed takes effect after the draws pushed before it, whatever runs when."""
    mx.random.seed(7)
    reference = [mx.random.uniform(shape=(300, 300)).asnumpy(),
                 mx.random.uniform(shape=(3,)).asnumpy()]
    mx.random.seed(7)
    expected_after = mx.random.uniform(shape=(3,)).asnumpy()

    mx.random.seed(7)
    big = mx.random.uniform(shape=(300, 300))      # heavy: may still be running
    small = mx.random.uniform(shape=(3,))
    mx.random.seed(7)
    after = mx.random.uniform(shape=(3,))
    np.testing.assert_array_equal(after.asnumpy(), expected_after)
    np.testing.assert_array_equal(big.asnumpy(), reference[0])
    np.testing.assert_array_equal(small.asnumpy(), reference[1])


@pytest.mark.parametrize("bad", [1.5, "7", None, True])
def test_bad_seed(bad):
    with pytest.raises(ValueError, match="seed"):
        mx.random.seed(bad)


# -- in-place chains --------------------------------------------------------------------------
def test_inplace_chain_exact(engine):
    x = mx.nd.zeros((3, 2))
    handle = x
    for _ in range(100):
        x += 1
    assert x is handle
    np.testing.assert_array_equal(x.asnumpy(), np.full((3, 2), 100, np.float32))
    for _ in range(10):
        x -= 0.5
        x *= 2
        x /= 2
    np.testing.assert_array_equal(x.asnumpy(), np.full((3, 2), 95, np.float32))
    y = mx.nd.ones((3, 2))
    for _ in range(50):
        x += y
    np.testing.assert_array_equal(x.asnumpy(), np.full((3, 2), 145, np.float32))


def test_inplace_after_pending_read_keeps_old_value(engine, test_ops):
    """WAR through NDArrays: a value computed from x before ``x += 1`` sees the old x
    even though it is still pending when the in-place op is pushed."""
    gate = threading.Event()
    if engine.name == "NaiveEngine":
        gate.set()
    x = mx.nd.array([1.0, 2.0])
    before = test_ops.gated(x, gate)       # reads x; blocked on a worker
    doubled = before * 2
    for _ in range(10):
        x += 1
    x[0] = -5
    gate.set()
    np.testing.assert_array_equal(before.asnumpy(), [1, 2])
    np.testing.assert_array_equal(doubled.asnumpy(), [2, 4])
    np.testing.assert_array_equal(x.asnumpy(), [-5, 12])


def test_inplace_on_pending_array_and_slice_assignment(engine, test_ops):
    gate = threading.Event()
    if engine.name == "NaiveEngine":
        gate.set()
    base = mx.nd.arange(12).reshape((3, 4))
    x = test_ops.gated(base, gate)       # x is written later
    x += 1
    x[1] = 0
    x[:, 0] = mx.nd.array([7, 8, 9])
    x[2, 1:3] = mx.nd.array([[5, 6]])[0]
    gate.set()
    ref = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    ref[1] = 0
    ref[:, 0] = [7, 8, 9]
    ref[2, 1:3] = [5, 6]
    np.testing.assert_array_equal(x.asnumpy(), ref)
    np.testing.assert_array_equal(base.asnumpy(),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))


def test_full_assignment_forms(engine):
    x = mx.nd.zeros((2, 2))
    x[:] = 3
    np.testing.assert_array_equal(x.asnumpy(), np.full((2, 2), 3))
    x[:] = mx.nd.ones((2, 2))
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 2)))
    x[:] = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    x[...] = 0
    np.testing.assert_array_equal(x.asnumpy(), np.zeros((2, 2)))


def test_positional_operator_parameters(engine):
    """``mx.nd.<op>(inputs..., params...)`` as MXNet's generated functions allow."""
    x = mx.nd.array([[-1.0, 2.0], [3.0, -4.0]])
    np.testing.assert_array_equal(mx.nd.clip(x, 0, 1).asnumpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(mx.nd.sum(x, 0).asnumpy(), [2, -2])
    assert mx.nd.sum(x, 1, True).shape == (2, 1)
    np.testing.assert_array_equal(mx.nd.dot(x, x, True).asnumpy(), x.asnumpy().T @ x.asnumpy())
    with pytest.raises(ValueError, match="clip"):
        mx.nd.clip(x, 0, 1, 2, 3)
    with pytest.raises(ValueError, match="input 1 is int"):
        mx.nd.elemwise_add(x, 1)


# -- bad input: clear ValueErrors naming the bad value -------------------------------------------
@pytest.mark.parametrize("call,needle", [
    (lambda x: mx.nd.zeros((2,), dtype="notatype"), "notatype"),
    (lambda x: mx.nd.ones((2,), dtype="float33"), "float33"),
    (lambda x: mx.nd.array([1, 2], dtype="bogus"), "bogus"),
    (lambda x: mx.nd.empty((2,), dtype="nope"), "nope"),
    (lambda x: x.astype("zz"), "zz"),
    (lambda x: mx.nd.zeros((2, -1)), "-1"),
    (lambda x: mx.nd.ones(-3), "-3"),
    (lambda x: mx.nd.full((-2, 2), 1.0), "-2"),
    (lambda x: mx.nd.empty((4, -5)), "-5"),
    (lambda x: mx.nd.zeros("abc"), "abc"),
    (lambda x: mx.nd.ones((2.5, 2)), "2.5"),
    (lambda x: x.sum(axis=5), "5"),
    (lambda x: mx.nd.mean(x, axis=-4), "-4"),
    (lambda x: x.max(axis=(0, 7)), "7"),
    (lambda x: x.transpose((0, 0)), "(0, 0)"),
    (lambda x: x[10], "10"),
    (lambda x: x[:, 7], "7"),
    (lambda x: x[-9], "-9"),
    (lambda x: x[0, 0, 0], "too many"),
    (lambda x: x.__setitem__(4, 1.0), "4"),
    (lambda x: x.reshape((4, 4)), "(4, 4)"),
    (lambda x: x.broadcast_to((5, 3)), "(5, 3)"),
    (lambda x: mx.nd.dot(x, mx.nd.ones((4, 2))), "3 != 4"),
    (lambda x: x + mx.nd.ones((3, 2)), "(2, 3) and (3, 2)"),
    (lambda x: mx.nd.full((2,), "a"), "'a'"),
    (lambda x: mx.nd.arange(0, 5, 0), "step"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_gives_clear_value_error(engine, call, needle):
    x = mx.nd.ones((2, 3))
    with pytest.raises(ValueError) as info:
        call(x)
    assert needle in str(info.value)
    # nothing was left pending or failed: the engine is fine
    mx.nd.waitall()
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 3)))
