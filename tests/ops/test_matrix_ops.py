"""Tests of the matrix/array operators (runtime/ops/linalg.py, shape.py, indexing.py,
join.py, creation.py, sampling.py) through the registry.

Gradients are checked against central differences in float64; forward results against
numpy or small loops; shape inference against the kernels' actual output shapes.
"""
import numpy as np
from gradcheck import numeric_grad
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.runtime.ops.shape import reshape_shape
from xprof.runtime.ops import registry


# -- helpers (same contract as in test_nn_ops.py) --------------------------------------
def run(name, *inputs, **params):
    out = registry.get(name).kernel(*inputs, **params)
    return out if isinstance(out, tuple) else (out,)


def check_grad(name, inputs, params=None, wrt=None, rtol=1e-5, atol=1e-7, seed=1):
    op = registry.get(name)
    params = params or {}
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    wrt = range(len(inputs)) if wrt is None else wrt
    outs = run(name, *inputs, **params)
    rng = np.random.default_rng(seed)
    ogs = [rng.standard_normal(o.shape) for o in outs]
    analytic = op.grad(ogs, inputs, list(outs), **params)
    assert len(analytic) == len(inputs)

    def loss():
        return sum(float(np.sum(o * g)) for o, g in zip(run(name, *inputs, **params), ogs))

    for i in wrt:
        assert analytic[i].shape == inputs[i].shape and analytic[i].dtype == np.float64
        np.testing.assert_allclose(analytic[i], numeric_grad(loss, inputs[i]), rtol=rtol,
                                   atol=atol, err_msg=f"{name} input {i} {params}")
    return analytic


def check_infer(name, inputs, params=None, float32=True):
    """infer() agrees with the kernel; float32 in gives float32 out and gradients."""
    op = registry.get(name)
    params = params or {}
    if float32:
        inputs = [x.astype(np.float32) if x.dtype.kind == "f" else x for x in inputs]
    outs = run(name, *inputs, **params)
    shapes, dtypes = op.infer([x.shape for x in inputs], [x.dtype for x in inputs], **params)
    assert [o.shape for o in outs] == [tuple(s) for s in shapes], name
    assert [o.dtype for o in outs] == list(dtypes), name
    if op.grad is not None and inputs:
        grads = op.grad([np.ones_like(o) for o in outs], inputs, list(outs), **params)
        for x, g in zip(inputs, grads):
            if g is not None:
                assert g.shape == x.shape and g.dtype == x.dtype, (name, g.dtype, x.dtype)
    return outs


def randn(rng, *shape):
    return rng.standard_normal(shape)


RNG = np.random.default_rng(0)


# -- dot, batch_dot ------------------------------------------------------------------
DOT_CASES = [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((2, 3, 4), (4, 5), False, False),
    ((2, 3, 4), (4, 5, 2), False, False),
    ((4, 2, 3), (6, 4), True, True),
    ((4,), (4, 3), False, False),
    ((4,), (4,), False, False),
]


@pytest.mark.parametrize("lshape,rshape,ta,tb", DOT_CASES)
def test_dot(lshape, rshape, ta, tb):
    rng = np.random.default_rng(1)
    a, b = randn(rng, *lshape), randn(rng, *rshape)
    params = dict(transpose_a=ta, transpose_b=tb)
    (out,) = run("dot", a, b, **params)
    # naive: fold to matrices as MXNet does, multiply with loops
    am = a.reshape(a.shape[0], -1).T if ta else a.reshape(-1, a.shape[-1])
    bm = b.reshape(-1, b.shape[-1]).T if tb else b.reshape(b.shape[0], -1)
    ref = np.array([[sum(am[i, k] * bm[k, j] for k in range(am.shape[1]))
                     for j in range(bm.shape[1])] for i in range(am.shape[0])])
    np.testing.assert_allclose(out.reshape(ref.shape), ref, rtol=1e-12)
    check_grad("dot", [a, b], params)
    check_infer("dot", [a, b], params)


def test_dot_shapes_and_errors():
    op = registry.get("dot")
    assert op.infer([(2, 3, 4), (4, 5, 6)], [np.float32] * 2)[0] == [(2, 3, 5, 6)]
    assert op.infer([(4,), (4,)], [np.float32] * 2)[0] == [(1,)]
    with pytest.raises(ValueError, match="4 != 5"):
        op.infer([(3, 4), (5, 6)], [np.float32] * 2)
    assert op.cost([(3, 4), (4, 5)], transpose_a=False) == 3 * 4 * 5


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_dot(ta, tb):
    rng = np.random.default_rng(2)
    a = randn(rng, 2, 4, 3) if ta else randn(rng, 2, 3, 4)
    b = randn(rng, 2, 5, 4) if tb else randn(rng, 2, 4, 5)
    params = dict(transpose_a=ta, transpose_b=tb)
    (out,) = run("batch_dot", a, b, **params)
    am = a.transpose(0, 2, 1) if ta else a
    bm = b.transpose(0, 2, 1) if tb else b
    ref = np.stack([am[i] @ bm[i] for i in range(2)])
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    check_grad("batch_dot", [a, b], params)
    check_infer("batch_dot", [a, b], params)
    with pytest.raises(ValueError, match="batch"):
        registry.get("batch_dot").infer([(2, 3, 4), (3, 4, 5)], [np.float32] * 2)
    assert registry.get("batch_dot").cost([(2, 3, 4), (2, 4, 5)]) == 2 * 3 * 4 * 5


# -- reshape family ------------------------------------------------------------------
MXNET_RESHAPE_EXAMPLES = [   # from the MXNet 1.x reshape documentation
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
]


@pytest.mark.parametrize("src,shape,reverse,expected", MXNET_RESHAPE_EXAMPLES)
def test_reshape_special_values(src, shape, reverse, expected):
    assert reshape_shape(src, shape, reverse) == expected
    x = np.arange(np.prod(src), dtype=np.float32).reshape(src)
    out = check_infer("reshape", [x], dict(shape=shape, reverse=reverse))[0]
    assert out.shape == expected
    np.testing.assert_array_equal(out.ravel(), x.ravel())


def test_reshape_grad_and_errors():
    x = randn(RNG, 2, 3, 2)
    check_grad("reshape", [x], dict(shape=(3, -1)))
    op = registry.get("reshape")
    with pytest.raises(ValueError, match=r"shape=\(5, -1\)"):
        op.infer([(2, 3, 4)], [np.float32], shape=(5, -1))
    with pytest.raises(ValueError, match="more than one -1"):
        op.infer([(2, 3, 4)], [np.float32], shape=(-1, -1))
    with pytest.raises(ValueError, match=r"\(7,\)"):
        op.infer([(2, 3, 4)], [np.float32], shape=(7,))
    with pytest.raises(ValueError, match="-5"):
        op.infer([(2, 3, 4)], [np.float32], shape=(-5, 24))
    assert reshape_shape((2, 3, 4), "(0, -1)") == (2, 12)


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reshape_matches_numpy(src, data):
    src = tuple(src)
    # a spec of 0 (copy), -1 (infer) and explicit sizes describing the same shape
    spec = []
    infer_at = data.draw(st.integers(-1, len(src) - 1))
    for i, n in enumerate(src):
        choice = data.draw(st.sampled_from(["copy", "explicit"]))
        spec.append(-1 if i == infer_at else (0 if choice == "copy" else n))
    assert reshape_shape(src, tuple(spec)) == src
    flat = reshape_shape(src, (-1,))
    assert flat == (int(np.prod(src)),)
    assert reshape_shape(src, (-3, -2) if len(src) >= 2 else (-1,)) == (
        np.zeros(src).reshape((-1,) + src[2:]).shape if len(src) >= 2 else flat)


def test_flatten_expand_dims_transpose():
    x = randn(RNG, 2, 3, 2)
    (out,) = run("Flatten", x)
    assert out.shape == (2, 6)
    check_grad("Flatten", [x])
    check_infer("Flatten", [x])
    for axis in (0, 2, 3, -1, -4):
        (out,) = run("expand_dims", x, axis=axis)
        assert out.shape == np.expand_dims(x, axis).shape
        check_grad("expand_dims", [x], dict(axis=axis))
        check_infer("expand_dims", [x], dict(axis=axis))
    with pytest.raises(ValueError, match="axis 4"):
        registry.get("expand_dims").infer([(2, 3, 2)], [np.float32], axis=4)
    for axes in ((), (1, 0, 2), (2, 0, 1), (-1, 0, 1)):
        (out,) = run("transpose", x, axes=axes)
        np.testing.assert_array_equal(out, np.transpose(x, axes or None))
        check_grad("transpose", [x], dict(axes=axes))
        check_infer("transpose", [x], dict(axes=axes))
    with pytest.raises(ValueError, match=r"axes=\(0, 0, 1\)"):
        registry.get("transpose").infer([(2, 3, 2)], [np.float32], axes=(0, 0, 1))


def test_broadcast_to_and_like():
    x = randn(RNG, 3, 1, 2)
    (out,) = run("broadcast_to", x, shape=(0, 4, 0))
    np.testing.assert_array_equal(out, np.broadcast_to(x, (3, 4, 2)))
    check_grad("broadcast_to", [x], dict(shape=(3, 4, 2)))
    check_grad("broadcast_to", [x], dict(shape=(2, 3, 4, 2)))
    check_infer("broadcast_to", [x], dict(shape=(0, 4, 0)))
    with pytest.raises(ValueError, match="dimension 0 is 3"):
        registry.get("broadcast_to").infer([(3, 1, 2)], [np.float32], shape=(4, 4, 2))
    y = randn(RNG, 3, 5, 2)
    (out,) = run("broadcast_like", x, y)
    assert out.shape == (3, 5, 2)
    check_grad("broadcast_like", [x, y], wrt=[0])


# -- slicing -------------------------------------------------------------------------
SLICE_KEYS = [
    (slice(1, 3),),
    (slice(None), 1),
    (slice(None, None, -1), slice(0, 4, 2)),
    (1, slice(1, None), 0),
    (Ellipsis, slice(1, 2)),
    (None, slice(0, 2)),
    (-1,),
]


@pytest.mark.parametrize("key", SLICE_KEYS, ids=repr)
def test_slice(key):
    x = randn(RNG, 4, 5, 3)
    (out,) = run("slice", x, key=key)
    np.testing.assert_array_equal(out, x[key])
    check_grad("slice", [x], dict(key=key))
    check_infer("slice", [x], dict(key=key))


def test_slice_mxnet_begin_end_and_slice_axis():
    x = randn(RNG, 4, 5, 3)
    (out,) = run("slice", x, begin=(1, None), end=(3, 4), step=(1, 2))
    np.testing.assert_array_equal(out, x[1:3, :4:2])
    check_grad("slice", [x], dict(begin=(1, 0), end=(3, 4)))
    (out,) = run("slice_axis", x, axis=1, begin=1, end=-1)
    np.testing.assert_array_equal(out, x[:, 1:-1])
    check_grad("slice_axis", [x], dict(axis=1, begin=1, end=-1))
    check_infer("slice_axis", [x], dict(axis=-1, begin=0, end=2))
    op = registry.get("slice")
    with pytest.raises(ValueError, match="out of range"):
        op.infer([(4, 5)], [np.float32], key=(7,))
    with pytest.raises(ValueError, match="is not an index"):
        op.infer([(4, 5)], [np.float32], key=([0, 1],))


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_slice_infer_matches_numpy(shape, data):
    key = []
    for n in shape:
        if data.draw(st.booleans()):
            key.append(data.draw(st.integers(-n, n - 1)))
        else:
            step = data.draw(st.sampled_from([None, 1, 2, -1, -2]))
            start = data.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = data.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            key.append(slice(start, stop, step))
    key = tuple(key)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    (out,) = run("slice", x, key=key)
    # MXNet 1.x has no 0-d arrays: an all-integer key gives (1,)
    ref = np.asarray(x[key])
    ref = ref.reshape(1) if ref.ndim == 0 else ref
    np.testing.assert_array_equal(out, ref)
    assert out.shape == ref.shape
    shapes, _ = registry.get("slice").infer([tuple(shape)], [np.float32], key=key)
    assert shapes == [ref.shape]


@pytest.mark.parametrize("key,rshape", [((slice(1, 3),), (2, 3)), ((slice(1, 3),), (3,)),
                                        ((slice(None), 1), (4,)), ((0, slice(0, 2)), (1, 2)),
                                        ((slice(None), slice(0, 3, 2)), (1, 1))])
def test_slice_assign(key, rshape):
    lhs, rhs = randn(RNG, 4, 3), randn(RNG, *rshape)
    lhs_before = lhs.copy()
    (out,) = run("_slice_assign", lhs, rhs, key=key)
    ref = lhs.copy()
    ref[key] = rhs
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(lhs, lhs_before)          # the input is not modified
    check_grad("_slice_assign", [lhs, rhs], dict(key=key))
    check_infer("_slice_assign", [lhs, rhs], dict(key=key))


def test_slice_assign_scalar_and_errors():
    x = randn(RNG, 4, 3)
    (out,) = run("_slice_assign_scalar", x, scalar=2.5, key=(slice(1, 3), 0))
    ref = x.copy()
    ref[1:3, 0] = 2.5
    np.testing.assert_array_equal(out, ref)
    assert not np.array_equal(x, ref)
    check_grad("_slice_assign_scalar", [x], dict(scalar=2.5, key=(slice(1, 3), 0)))
    check_infer("_slice_assign_scalar", [x], dict(scalar=2.5, key=(slice(1, 3), 0)))
    with pytest.raises(ValueError, match=r"shape \(3, 3\) cannot be assigned"):
        registry.get("_slice_assign").infer([(4, 3), (3, 3)], [np.float32] * 2,
                                            key=(slice(1, 3),))


# -- joining and splitting -------------------------------------------------------------
def test_concat_and_stack():
    a, b, c = randn(RNG, 2, 3), randn(RNG, 2, 1), randn(RNG, 2, 4)
    op = registry.get("concat")
    assert op.variadic and op.arg_names == ("data",)
    (out,) = run("concat", a, b, c, dim=1)
    np.testing.assert_array_equal(out, np.concatenate([a, b, c], axis=1))
    check_grad("concat", [a, b, c], dict(dim=1))
    check_grad("concat", [a, a], dict(dim=0, num_args=2))
    check_infer("concat", [a, b, c], dict(dim=-1))
    with pytest.raises(ValueError, match=r"input 1 has shape \(3, 1\)"):
        op.infer([(2, 3), (3, 1)], [np.float32] * 2, dim=1)
    with pytest.raises(ValueError, match="num_args=3"):
        op.infer([(2, 3), (2, 1)], [np.float32] * 2, num_args=3)
    for axis in (0, 1, 2, -1):
        (out,) = run("stack", a, a * 2, axis=axis)
        np.testing.assert_array_equal(out, np.stack([a, a * 2], axis=axis))
        check_grad("stack", [a, a * 2], dict(axis=axis))
        check_infer("stack", [a, a * 2], dict(axis=axis))
    with pytest.raises(ValueError, match="stack"):
        registry.get("stack").infer([(2, 3), (2, 1)], [np.float32] * 2)


@pytest.mark.parametrize("name", ["SliceChannel", "split"])
@pytest.mark.parametrize("axis,squeeze", [(1, False), (0, False), (-1, True), (1, True)])
def test_split(name, axis, squeeze):
    x = randn(RNG, 2, 3, 3)
    n = x.shape[axis]
    params = dict(num_outputs=n, axis=axis, squeeze_axis=squeeze)
    outs = run(name, x, **params)
    assert len(outs) == n == registry.get(name).n_outputs(params)
    refs = np.split(x, n, axis=axis)
    for o, r in zip(outs, refs):
        np.testing.assert_array_equal(o, np.squeeze(r, axis) if squeeze else r)
    check_grad(name, [x], params)
    check_infer(name, [x], params)
    op = registry.get(name)
    with pytest.raises(ValueError, match="not divisible by num_outputs=2"):
        op.infer([(2, 3, 3)], [np.float32], num_outputs=2, axis=1)
    with pytest.raises(ValueError, match="squeeze_axis"):
        op.infer([(2, 4, 3)], [np.float32], num_outputs=2, axis=1, squeeze_axis=True)
    # an output nobody used gets a None gradient: treated as zeros
    grads = op.grad([None] * n, [x], list(outs), **params)
    np.testing.assert_array_equal(grads[0], np.zeros_like(x))


# -- selection -----------------------------------------------------------------------
def test_where():
    x, y = randn(RNG, 3, 4), randn(RNG, 3, 4)
    cond = (RNG.random((3, 4)) > 0.5).astype(np.float64)
    (out,) = run("where", cond, x, y)
    np.testing.assert_array_equal(out, np.where(cond != 0, x, y))
    check_grad("where", [cond, x, y], wrt=[1, 2])
    check_infer("where", [cond, x, y])
    cond1 = np.array([1.0, 0.0, 1.0])
    (out,) = run("where", cond1, x, y)
    np.testing.assert_array_equal(out, np.where(cond1[:, None] != 0, x, y))
    check_grad("where", [cond1, x, y], wrt=[1, 2])
    with pytest.raises(ValueError, match="condition of shape"):
        registry.get("where").infer([(4,), (3, 4), (3, 4)], [np.float32] * 3)


def test_clip():
    x = np.array([[-2.0, -0.5, 0.3], [0.7, 1.5, 0.0]])
    (out,) = run("clip", x, a_min=-1, a_max=1)
    np.testing.assert_array_equal(out, np.clip(x, -1, 1))
    check_grad("clip", [x], dict(a_min=-1.0, a_max=1.0))
    check_infer("clip", [x], dict(a_min=-1.0, a_max=1.0))
    with pytest.raises(ValueError, match="a_min"):
        run("clip", x, a_max=1.0)


def test_one_hot():
    idx = np.array([[0, 2], [1, 5]], np.float32)      # 5 is out of range: an all-off row
    (out,) = run("one_hot", idx, depth=3, on_value=2.0, off_value=-1.0)
    ref = np.full((2, 2, 3), -1.0, np.float32)
    for i in range(2):
        for j in range(2):
            if idx[i, j] < 3:
                ref[i, j, int(idx[i, j])] = 2.0
    np.testing.assert_array_equal(out, ref)
    assert out.dtype == np.float32
    check_infer("one_hot", [idx], dict(depth=3))
    shapes, dtypes = registry.get("one_hot").infer([(2, 2)], [np.float32], depth=4,
                                                   dtype="int32")
    assert shapes == [(2, 2, 4)] and dtypes == [np.int32]
    (g,) = registry.get("one_hot").grad([np.ones_like(out)], [idx], [out], depth=3)
    assert np.all(g == 0)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take(axis, mode):
    a = randn(RNG, 4, 3, 2)
    idx = np.array([[0, 3], [1, 1], [5, -1]], np.float64)   # repeats and out of range
    (out,) = run("take", a, idx, axis=axis, mode=mode)
    n = a.shape[axis]
    ii = np.clip(idx.astype(int), 0, n - 1) if mode == "clip" else np.mod(idx.astype(int), n)
    np.testing.assert_array_equal(out, np.take(a, ii, axis=axis))
    check_grad("take", [a, idx], dict(axis=axis, mode=mode), wrt=[0])
    check_infer("take", [a, idx], dict(axis=axis, mode=mode))


@pytest.mark.parametrize("axis,keepdims", [(-1, False), (0, False), (1, True)])
def test_pick(axis, keepdims):
    data = randn(RNG, 3, 4)
    ax = axis % 2
    n_idx = data.shape[1 - ax]
    index = RNG.integers(0, data.shape[ax], n_idx).astype(np.float64)
    (out,) = run("pick", data, index, axis=axis, keepdims=keepdims)
    ref = np.array([data[i, int(index[i])] if ax == 1 else data[int(index[i]), i]
                    for i in range(n_idx)])
    np.testing.assert_array_equal(out.ravel(), ref)
    assert out.ndim == (2 if keepdims else 1)
    check_grad("pick", [data, index], dict(axis=axis, keepdims=keepdims), wrt=[0])
    check_infer("pick", [data, index], dict(axis=axis, keepdims=keepdims))
    with pytest.raises(ValueError, match="index of shape"):
        registry.get("pick").infer([(3, 4), (4,)], [np.float32] * 2, axis=1)


@pytest.mark.parametrize("name,fn", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_argmax_argmin(name, fn):
    x = randn(RNG, 3, 4)
    for axis, keepdims in ((None, False), (0, False), (1, True), (-1, False)):
        (out,) = run(name, x, axis=axis, keepdims=keepdims)
        ref = fn(x, axis=axis)
        if axis is not None and keepdims:
            ref = np.expand_dims(ref, axis)
        np.testing.assert_array_equal(out.ravel(), np.ravel(ref))
        assert out.dtype == x.dtype
        check_infer(name, [x], dict(axis=axis, keepdims=keepdims))
        (g,) = registry.get(name).grad([np.ones_like(out)], [x], [out], axis=axis,
                                       keepdims=keepdims)
        assert g.shape == x.shape and not g.any()
    assert run(name, x)[0].shape == (1,)


# -- creation, random, Cast ------------------------------------------------------------
def test_creation_ops():
    for name, value in (("_zeros", 0), ("_ones", 1)):
        op = registry.get(name)
        assert op.arg_names == () and op.nin == 0
        out = op.kernel(shape=(2, 3))
        assert out.shape == (2, 3) and out.dtype == np.float32 and np.all(out == value)
        assert op.infer([], [], shape=(2, 3))[0] == [(2, 3)]
        assert op.grad([out], [], [out], shape=(2, 3)) == []
    out = registry.get("_full").kernel(shape=(2,), value=7.5, dtype="float64")
    assert out.dtype == np.float64 and np.all(out == 7.5)
    x = randn(RNG, 2, 2).astype(np.float32)
    for name, value in (("zeros_like", 0), ("ones_like", 1)):
        (out,) = check_infer(name, [x])
        assert np.all(out == value)


@pytest.mark.parametrize("params,expected", [
    (dict(start=5), np.arange(5)),
    (dict(start=1, stop=4, step=0.5), np.arange(1, 4, 0.5)),
    (dict(start=0, stop=3, repeat=2), np.repeat(np.arange(3), 2)),
    (dict(start=4, stop=0, step=-1.5), np.arange(4, 0, -1.5)),
    (dict(start=0, stop=0.3, step=0.1), np.arange(0, 0.3, 0.1)),
])
def test_arange(params, expected):
    op = registry.get("_arange")
    out = op.kernel(**params)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert out.dtype == np.float32
    assert op.infer([], [], **params) == ([out.shape], [np.float32])


@pytest.mark.parametrize("config", [(10,), (5, 100, 4), (50, -50, -2), (1.3, 456.6, 1.3)])
def test_arange_of_an_integer_dtype_casts_start_and_step_first_as_mxnet(config):
    out = registry.get("_arange").kernel(*config, dtype="int32")
    np.testing.assert_array_equal(out, np.arange(*config, dtype=np.int32))
    assert out.dtype == np.int32


def test_random_ops():
    for name, params, mean, std in (("_random_uniform", dict(low=-1, high=3), 1.0, 4 / 12 ** .5),
                                    ("_random_normal", dict(loc=2, scale=0.5), 2.0, 0.5)):
        op = registry.get(name)
        a = op.kernel(shape=(200, 100), rng=np.random.default_rng(3), **params)
        b = op.kernel(shape=(200, 100), rng=np.random.default_rng(3), **params)
        np.testing.assert_array_equal(a, b)                 # the seed decides the numbers
        assert a.dtype == np.float32 and a.shape == (200, 100)
        assert abs(a.mean() - mean) < 0.05 and abs(a.std() - std) < 0.05
        assert op.infer([], [], shape=(200, 100), **params)[0] == [(200, 100)]
        c = op.kernel(shape=(3,), dtype="float64", rng=np.random.default_rng(3), **params)
        assert c.dtype == np.float64
        assert op.kernel(shape=(4,), **params).shape == (4,)   # without rng: fresh generator
    u = registry.get("_random_uniform").kernel(shape=(1000,), low=2, high=3,
                                               rng=np.random.default_rng(0))
    assert u.min() >= 2 and u.max() < 3


def test_cast():
    x = randn(RNG, 2, 3).astype(np.float32)
    (out,) = run("Cast", x, dtype="float64")
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x)
    (g,) = registry.get("Cast").grad([np.ones_like(out)], [x], [out], dtype="float64")
    assert g.dtype == np.float32
    (same,) = run("Cast", x, dtype="float32")
    assert same is not x and same.dtype == np.float32
    shapes, dtypes = registry.get("Cast").infer([(2, 3)], [np.float32], dtype="float16")
    assert shapes == [(2, 3)] and dtypes == [np.float16]
    check_grad("Cast", [randn(RNG, 2, 2)], dict(dtype="float64"))


# The modules that were ops/matrix.py and ops/nn.py before they were split by concept.
SPLIT_FROM_MATRIX_AND_NN = tuple("ops." + m for m in (
    "linalg", "shape", "indexing", "join", "creation", "sampling", "fully_connected", "conv",
    "pooling", "activation", "dropout", "softmax"))


def test_every_operator_has_grad_and_infer():
    import xprof.runtime.ops  # noqa: F401
    mine = [n for n, op in registry.registry.items()
            if op.kernel.__module__.endswith(SPLIT_FROM_MATRIX_AND_NN)]
    assert len(mine) >= 40
    for name in mine:
        op = registry.get(name)
        assert op.grad is not None and op.infer is not None, name


def test_every_operator_has_a_cost():
    import xprof.runtime.ops  # noqa: F401
    shapes = {"dot": [(3, 4), (4, 5)], "batch_dot": [(2, 3, 4), (2, 4, 5)],
              "where": [(3,), (3,), (3,)], "take": [(4, 3), (2,)], "pick": [(3, 4), (3,)],
              "concat": [(2, 3), (2, 3)], "stack": [(2, 3), (2, 3)],
              "_slice_assign": [(4, 3), (3,)], "broadcast_like": [(3, 1), (3, 4)],
              "FullyConnected": [(2, 6)], "Convolution": [(1, 2, 5, 5)],
              "SoftmaxOutput": [(2, 3), (2,)], "softmax_cross_entropy": [(2, 3), (2,)],
              "LeakyReLU": [(2, 3)]}
    params = {"FullyConnected": dict(num_hidden=2), "one_hot": dict(depth=3),
              "Convolution": dict(kernel=(3, 3), num_filter=2),
              "Pooling": dict(kernel=(2, 2)), "_zeros": dict(shape=(2, 3)),
              "_ones": dict(shape=(2, 3)), "_full": dict(shape=(2, 3)),
              "_random_uniform": dict(shape=(2, 3)), "_random_normal": dict(shape=(2, 3)),
              "_arange": dict(start=6), "SliceChannel": dict(num_outputs=1),
              "split": dict(num_outputs=1), "clip": dict(a_min=0, a_max=1),
              # MXNet 2's NumPy operators made from the ones above (registry.derive)
              "_npi_zeros": dict(shape=(2, 3)), "_npi_ones": dict(shape=(2, 3)),
              "_npi_full": dict(shape=(2, 3)), "_npi_arange": dict(start=6)}
    for name, op in registry.registry.items():
        if not op.kernel.__module__.endswith(SPLIT_FROM_MATRIX_AND_NN):
            continue
        assert op.cost is not None, name
        default = [] if op.nin == 0 else [(2, 3, 4, 4)] if name == "Pooling" else [(2, 3)]
        value = op.cost(shapes.get(name, default), **params.get(name, {}))
        assert isinstance(value, int) and value >= 1, (name, value)
