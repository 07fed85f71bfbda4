"""Tests of the nn operators (runtime/ops/fully_connected.py, conv.py, pooling.py,
activation.py, dropout.py, softmax.py) through the registry's OpDefs.

Forward results are compared with naive loop implementations written here; gradients
with central differences in float64; shapes and dtypes with ``infer``/``infer_args``.
"""
import itertools
import zlib

import numpy as np
from gradcheck import numeric_grad
import pytest

import xprof.runtime.ops  # noqa: F401
from xprof.runtime.ops import conv, params, pooling
from xprof.runtime.ops import registry


# -- helpers --------------------------------------------------------------------------
def seed_of(*parts):
    """A seed that is the same in every process (``hash`` of a str is salted per run)."""
    return zlib.crc32(repr(parts).encode())


def run(name, *inputs, train=False, **params):
    op = registry.get(name)
    fn = op.train_kernel if train and op.train_kernel else op.kernel
    out = fn(*inputs, **params)
    return out if isinstance(out, tuple) else (out,)


def check_grad(name, inputs, params=None, wrt=None, train=False, rng=None, rtol=1e-5,
               atol=1e-7, make_params=None):
    """Analytic gradient of sum(og * out) against central differences (float64).

    ``make_params`` (a callable) rebuilds params for each evaluation, for ops that
    consume a random generator (the same seed gives the same mask every call).
    """
    op = registry.get(name)
    params = dict(params or {})
    rng = rng or np.random.default_rng(1)
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    wrt = range(len(inputs)) if wrt is None else wrt

    def p():
        return make_params() if make_params else params

    outs = run(name, *inputs, train=train, **p())
    visible = op.visible_outputs or len(outs)
    ogs = [rng.standard_normal(o.shape) if i < visible else None
           for i, o in enumerate(outs)]
    analytic = op.grad(ogs, inputs, list(outs), **p())
    assert len(analytic) == len(inputs)

    def loss():
        o = run(name, *inputs, train=train, **p())
        return sum(float(np.sum(a * g)) for a, g in zip(o, ogs) if g is not None)

    for i in wrt:
        num = numeric_grad(loss, inputs[i])
        assert analytic[i].shape == inputs[i].shape
        assert analytic[i].dtype == np.float64
        np.testing.assert_allclose(analytic[i], num, rtol=rtol, atol=atol,
                                   err_msg=f"{name} gradient of input {i} {params}")
    return analytic


def check_float32(name, inputs, params=None, train=False):
    """Outputs and gradients of float32 inputs stay float32 and match inferred shapes."""
    op = registry.get(name)
    params = params or {}
    inputs = [np.asarray(x, dtype=np.float32) for x in inputs]
    outs = run(name, *inputs, train=train, **params)
    shapes, dtypes = op.infer([x.shape for x in inputs], [x.dtype for x in inputs],
                              **params)
    assert [o.shape for o in outs] == [tuple(s) for s in shapes]
    for o, dt in zip(outs, dtypes):
        assert o.dtype == np.float32 == dt, (name, o.dtype, dt)
    ogs = [np.ones_like(o) for o in outs]
    grads = op.grad(ogs, inputs, list(outs), **params)
    for x, g in zip(inputs, grads):
        if g is not None:
            assert g.dtype == np.float32 and g.shape == x.shape, (name, g.dtype, g.shape)
    return outs, grads


def randn(rng, *shape):
    return rng.standard_normal(shape)


# -- naive references ---------------------------------------------------------------
def naive_conv(x, w, b, stride, pad, dilate, groups):
    n, c = x.shape[:2]
    f = w.shape[0]
    k = w.shape[2:]
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_sp = [(xp.shape[2 + i] - dilate[i] * (k[i] - 1) - 1) // stride[i] + 1
              for i in range(nsp)]
    out = np.zeros((n, f) + tuple(out_sp))
    cg, fg = c // groups, f // groups
    for ni in range(n):
        for fi in range(f):
            gi = fi // fg
            for pos in itertools.product(*(range(o) for o in out_sp)):
                acc = 0.0
                for kpos in itertools.product(*(range(kk) for kk in k)):
                    src = tuple(pos[i] * stride[i] + kpos[i] * dilate[i] for i in range(nsp))
                    for ci in range(cg):
                        acc += xp[(ni, gi * cg + ci) + src] * w[(fi, ci) + kpos]
                out[(ni, fi) + pos] = acc + (0.0 if b is None else b[fi])
    return out


def naive_pool(x, kernel, stride, pad, pool_type, convention="valid",
               count_include_pad=True):
    """MXNet's pooling, one output element at a time."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    nsp = len(sp)
    outs = []
    for i in range(nsp):
        span = sp[i] + 2 * pad[i] - kernel[i]
        o = span // stride[i] + 1 if convention == "valid" else -(-span // stride[i]) + 1
        outs.append(o)
    out = np.zeros((n, c) + tuple(outs))
    for pos in itertools.product(*(range(o) for o in outs)):
        lo, hi, size = [], [], 1
        for i in range(nsp):
            start = pos[i] * stride[i] - pad[i]
            end = min(start + kernel[i], sp[i] + pad[i])
            size *= end - start
            lo.append(max(start, 0))
            hi.append(min(end, sp[i]))
        region = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(lo, hi))]
        flat = region.reshape(n, c, -1)
        if pool_type == "max":
            val = flat.max(axis=-1)
        elif pool_type == "sum":
            val = flat.sum(axis=-1)
        else:
            val = flat.sum(axis=-1) / (size if count_include_pad else flat.shape[-1])
        out[(slice(None), slice(None)) + pos] = val
    return out


# -- FullyConnected ---------------------------------------------------------------------
def naive_fc(x, w, b):
    x2 = x.reshape(x.shape[0], -1)
    out = np.zeros((x2.shape[0], w.shape[0]))
    for i in range(x2.shape[0]):
        for j in range(w.shape[0]):
            out[i, j] = sum(x2[i, k] * w[j, k] for k in range(x2.shape[1]))
            out[i, j] += 0.0 if b is None else b[j]
    return out


@pytest.mark.parametrize("no_bias", [False, True])
def test_fully_connected_forward_and_grad(no_bias):
    rng = np.random.default_rng(0)
    x, w, b = randn(rng, 3, 2, 2), randn(rng, 5, 4), randn(rng, 5)
    inputs = [x, w] if no_bias else [x, w, b]
    params = dict(num_hidden=5, no_bias=no_bias)
    (out,) = run("FullyConnected", *inputs, **params)
    np.testing.assert_allclose(out, naive_fc(x, w, None if no_bias else b), rtol=1e-12)
    check_grad("FullyConnected", inputs, params)
    check_float32("FullyConnected", inputs, params)


def test_fully_connected_no_flatten():
    rng = np.random.default_rng(0)
    x, w, b = randn(rng, 2, 3, 4), randn(rng, 6, 4), randn(rng, 6)
    params = dict(num_hidden=6, flatten=False)
    (out,) = run("FullyConnected", x, w, b, **params)
    assert out.shape == (2, 3, 6)
    np.testing.assert_allclose(out, np.einsum("abk,hk->abh", x, w) + b, rtol=1e-12)
    check_grad("FullyConnected", [x, w, b], params)


def test_fully_connected_infer_and_infer_args():
    op = registry.get("FullyConnected")
    shapes, dtypes = op.infer([(64, 50, 4, 4), (512, 800), (512,)], [np.float32] * 3,
                              num_hidden=512)
    assert shapes == [(64, 512)] and dtypes == [np.float32]
    assert op.infer_args([(64, 50, 4, 4), None, None], num_hidden=512) == [
        (64, 50, 4, 4), (512, 800), (512,)]
    assert op.infer_args([(8, 3, 7), None], num_hidden=2, no_bias=True,
                         flatten=False) == [(8, 3, 7), (2, 7)]
    with pytest.raises(ValueError, match="num_hidden"):
        op.infer([(2, 3)], [np.float32])
    with pytest.raises(ValueError, match=r"weight has shape \(512, 700\)"):
        op.infer([(64, 800), (512, 700), (512,)], [np.float32] * 3, num_hidden=512)
    with pytest.raises(ValueError, match="num_hidden"):
        op.infer([(64, 800)], [np.float32], num_hidden=0)


def test_active_args():
    assert params.active_args("FullyConnected", {"no_bias": True}) == ("data", "weight")
    assert params.active_args("Convolution", {}) == ("data", "weight", "bias")
    assert params.active_args("LeakyReLU", {"act_type": "prelu"}) == ("data", "gamma")
    assert params.active_args("LeakyReLU", {}) == ("data",)
    assert params.active_args("Activation", {}) == ("data",)


# -- Convolution -------------------------------------------------------------------
CONV_CASES = [
    # (data shape, num_filter, kernel, stride, pad, dilate, groups, no_bias)
    ((2, 3, 6, 7), 4, (3, 3), (1, 1), (0, 0), (1, 1), 1, False),
    ((2, 3, 7, 7), 2, (3, 2), (2, 1), (1, 0), (1, 1), 1, False),
    ((1, 2, 8, 8), 3, (3, 3), (2, 2), (2, 1), (2, 2), 1, True),
    ((2, 4, 5, 6), 6, (2, 3), (1, 2), (1, 1), (1, 1), 2, False),
    ((2, 4, 5, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4, True),    # depthwise
    ((3, 2, 4, 4), 2, (1, 1), (1, 1), (0, 0), (1, 1), 1, False),   # 1x1
    ((20, 2, 6, 6), 3, (3, 3), (1, 1), (1, 1), (1, 1), 1, False),  # batch-minor columns
    ((2, 3, 9), 4, (3,), (2,), (1,), (2,), 1, False),              # 1-D
    ((1, 2, 4, 4, 4), 2, (2, 2, 2), (1, 2, 1), (1, 0, 0), (1, 1, 2), 1, False),  # 3-D
]


@pytest.mark.parametrize("order", ["auto", "batch_major", "batch_minor"])
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}-k{c[2]}s{c[3]}p{c[4]}"
                         f"d{c[5]}g{c[6]}{'-nobias' if c[7] else ''}")
def test_convolution_forward_grad_dtype(case, order, monkeypatch):
    if order != "auto":      # both im2col column orders, whatever the shape would pick
        monkeypatch.setattr(conv, "_batch_last", lambda geom: order == "batch_minor")
    shape, f, k, s, p, d, g, no_bias = case
    rng = np.random.default_rng(seed_of(case))
    x = randn(rng, *shape)
    w = randn(rng, f, shape[1] // g, *k)
    b = randn(rng, f)
    params = dict(kernel=k, stride=s, pad=p, dilate=d, num_filter=f, num_group=g,
                  no_bias=no_bias)
    inputs = [x, w] if no_bias else [x, w, b]
    (out,) = run("Convolution", *inputs, **params)
    ref = naive_conv(x, w, None if no_bias else b, s, p, d, g)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
    op = registry.get("Convolution")
    assert op.infer([i.shape for i in inputs], [np.float64] * len(inputs), **params)[0] == [
        out.shape]
    if shape[0] > 4:                          # numerical gradient of a smaller batch
        x = x[:2]
        inputs[0] = x
    check_grad("Convolution", inputs, params)
    check_float32("Convolution", inputs, params)


def test_convolution_both_column_orders_agree():
    rng = np.random.default_rng(5)
    x, w = randn(rng, 17, 3, 9, 9), randn(rng, 4, 3, 3, 3)
    params = dict(kernel=(3, 3), num_filter=4, pad=(1, 1), stride=(2, 2))
    geom = conv._conv_geom(x.shape, params)
    results = []
    for batch_last in (False, True):
        cols = conv._im2col(x, geom, batch_last)
        out = conv._bmm(conv._weight_matrix(w, geom), cols).reshape(4, -1)
        results.append(conv._conv_out_layout(out, geom, batch_last))
        dcols = conv._bmm(conv._weight_matrix(w, geom).transpose(0, 2, 1),
                        conv._conv_og_matrix(results[-1], geom, batch_last))
        results.append(conv._col2im(dcols, geom, batch_last, x.dtype))
    np.testing.assert_allclose(results[0], results[2], rtol=1e-12)
    np.testing.assert_allclose(results[1], results[3], rtol=1e-12)


@pytest.mark.parametrize("shape", [(1, 2, 6, 6), (8, 2, 6, 6), (2, 2, 20, 20)])
def test_convolution_results_never_alias_scratch(shape):
    # Temporaries live in a per-thread workspace; results must be fresh arrays that a
    # later call does not overwrite (including shapes where a transpose is a no-op).
    rng = np.random.default_rng(7)
    w = randn(rng, 1, 2, 3, 3)
    params = dict(kernel=(3, 3), num_filter=1, pad=(1, 1), no_bias=True)
    op = registry.get("Convolution")
    x1, x2 = randn(rng, *shape), randn(rng, *shape)
    (o1,) = run("Convolution", x1, w, **params)
    g1 = op.grad([np.ones_like(o1)], [x1, w], [o1], **params)
    keep = [o1.copy()] + [g.copy() for g in g1]
    (o2,) = run("Convolution", x2, w, **params)
    op.grad([o2], [x2, w], [o2], **params)
    for a, b in zip([o1] + list(g1), keep):
        np.testing.assert_array_equal(a, b)
        assert a.flags.owndata and a.flags.writeable


def test_convolution_workspace_limit(monkeypatch):
    # Buffers larger than the per-thread limit are one-off allocations; results agree.
    rng = np.random.default_rng(8)
    x, w, b = randn(rng, 3, 2, 7, 7), randn(rng, 3, 2, 3, 3), randn(rng, 3)
    params = dict(kernel=(3, 3), num_filter=3, pad=(1, 1))
    (full,) = run("Convolution", x, w, b, **params)
    monkeypatch.setattr(conv._Workspace, "limit", 256)
    (small,) = run("Convolution", x, w, b, **params)
    np.testing.assert_array_equal(full, small)
    check_grad("Convolution", [x, w, b], params)


def test_convolution_noncontiguous_input():
    rng = np.random.default_rng(6)
    x = randn(rng, 3, 2, 8, 10)[:, :, ::2, 1:]           # strided view
    w = randn(rng, 2, 2, 3, 3)
    params = dict(kernel=(3, 3), num_filter=2, no_bias=True)
    (out,) = run("Convolution", x, w, **params)
    np.testing.assert_allclose(out, naive_conv(x, w, None, (1, 1), (0, 0), (1, 1), 1),
                               rtol=1e-10)


def test_convolution_infer_errors_and_args():
    op = registry.get("Convolution")
    f32 = [np.float32] * 3
    assert op.infer_args([(64, 1, 28, 28), None, None], kernel=(5, 5), num_filter=20) == [
        (64, 1, 28, 28), (20, 1, 5, 5), (20,)]
    assert op.infer_args([(2, 4, 9, 9), None], kernel=(3, 3), num_filter=6, num_group=2,
                         no_bias=True) == [(2, 4, 9, 9), (6, 2, 3, 3)]
    assert op.infer([(1, 3, 9, 9)], f32, kernel=(3, 3), num_filter=2, stride=(2, 2),
                    pad=(1, 1), dilate=(2, 2))[0] == [(1, 2, 4, 4)]
    assert conv.conv_output_shape((1, 3, 9), kernel=3, num_filter=2) == (1, 2, 7)
    with pytest.raises(ValueError, match=r"kernel=\(7, 7\).*larger than the padded input 6"):
        op.infer([(1, 3, 4, 4)], f32, kernel=(7, 7), num_filter=2, pad=(1, 1))
    with pytest.raises(ValueError, match="num_filter is required"):
        op.infer([(1, 3, 8, 8)], f32, kernel=(3, 3))
    with pytest.raises(ValueError, match="kernel is required"):
        op.infer([(1, 3, 8, 8)], f32, num_filter=3)
    with pytest.raises(ValueError, match="num_group=2"):
        op.infer([(1, 3, 8, 8)], f32, kernel=(3, 3), num_filter=4, num_group=2)
    with pytest.raises(ValueError, match="stride"):
        op.infer([(1, 3, 8, 8)], f32, kernel=(3, 3), num_filter=4, stride=(0, 1))
    with pytest.raises(ValueError, match=r"weight has shape \(4, 3, 2, 2\)"):
        op.infer([(1, 3, 8, 8), (4, 3, 2, 2)], f32, kernel=(3, 3), num_filter=4)
    with pytest.raises(ValueError, match="layout"):
        op.infer([(1, 3, 8, 8)], f32, kernel=(3, 3), num_filter=4, layout="NHWC")
    with pytest.raises(ValueError, match="4-D"):
        op.infer([(3, 8)], f32, kernel=(3,), num_filter=4)
    with pytest.raises(ValueError, match="unknown parameter"):
        op.infer([(1, 3, 8, 8)], f32, kernel=(3, 3), num_filters=4)


def test_convolution_cost():
    op = registry.get("Convolution")
    cost = op.cost([(64, 20, 12, 12), (50, 20, 5, 5), (50,)], kernel=(5, 5), num_filter=50)
    assert cost == 64 * 50 * 8 * 8 * 20 * 25
    assert registry.get("dot").cost([(3, 4), (4, 5)]) == 60
    assert registry.get("FullyConnected").cost([(64, 800)], num_hidden=512) == 64 * 512 * 800
    assert registry.get("Pooling").cost([(2, 3, 8, 8)], kernel=(2, 2), stride=(2, 2)) == (
        2 * 3 * 16 * 4)


# -- Pooling ---------------------------------------------------------------------------
POOL_CASES = [
    # (shape, kernel, stride, pad, convention)
    ((2, 3, 6, 6), (2, 2), (2, 2), (0, 0), "valid"),    # tiles
    ((2, 2, 7, 5), (2, 2), (2, 2), (0, 0), "valid"),    # remainder rows/cols
    ((2, 2, 7, 7), (3, 3), (2, 2), (1, 1), "valid"),    # overlapping, padded
    ((1, 2, 7, 6), (3, 2), (2, 3), (0, 1), "full"),
    ((2, 2, 5, 5), (2, 2), (3, 3), (0, 0), "valid"),    # gaps between windows
    ((2, 2, 6, 6), (3, 3), (1, 1), (1, 1), "full"),
    ((2, 3, 9), (3,), (2,), (1,), "valid"),             # 1-D
    ((1, 2, 4, 5, 4), (2, 2, 2), (2, 1, 2), (0, 1, 0), "valid"),   # 3-D
]


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0]}-k{c[1]}s{c[2]}p{c[3]}"
                         f"-{c[4]}")
def test_pooling_forward_grad_dtype(case, pool_type):
    shape, k, s, p, conv = case
    rng = np.random.default_rng(seed_of(case, pool_type))
    x = randn(rng, *shape)
    params = dict(kernel=k, stride=s, pad=p, pool_type=pool_type, pooling_convention=conv)
    (out,) = run("Pooling", x, **params)
    # window sums of O(1) values can cancel to ~1e-5, so the summation order shows up
    # at 1e-16 absolute: compare with an absolute floor, not relative error alone.
    np.testing.assert_allclose(out, naive_pool(x, k, s, p, pool_type, conv), rtol=1e-12,
                               atol=1e-13)
    check_grad("Pooling", [x], params)
    check_float32("Pooling", [x], params)


def test_pooling_avg_exclude_pad():
    rng = np.random.default_rng(2)
    x = randn(rng, 2, 2, 5, 5)
    params = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                  count_include_pad=False)
    (out,) = run("Pooling", x, **params)
    ref = naive_pool(x, (3, 3), (2, 2), (1, 1), "avg", count_include_pad=False)
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    check_grad("Pooling", [x], params)


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 6)])
def test_global_pooling(pool_type, shape):
    rng = np.random.default_rng(3)
    x = randn(rng, *shape)
    params = dict(global_pool=True, pool_type=pool_type, kernel=(1, 1))
    (out,) = run("Pooling", x, **params)
    axes = tuple(range(2, x.ndim))
    ref = {"max": x.max, "avg": x.mean, "sum": x.sum}[pool_type](axis=axes, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    check_grad("Pooling", [x], params)
    check_float32("Pooling", [x], params)


def test_max_pool_gradient_goes_to_first_maximum():
    # Ties (common after relu) route the gradient to the first maximum in each window,
    # row-major, as MXNet does: the gradient sums to the output gradient.
    x = np.zeros((1, 1, 4, 4), np.float32)
    x[0, 0, 3, 3] = 1.0
    for params in (dict(kernel=(2, 2), stride=(2, 2)),
                   dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1))):
        (out,) = run("Pooling", x, pool_type="max", **params)
        og = np.ones_like(out)
        (g,) = registry.get("Pooling").grad([og], [x], [out], pool_type="max", **params)
        assert g.sum() == og.sum()
    (out,) = run("Pooling", x, kernel=(2, 2), stride=(2, 2))
    (g,) = registry.get("Pooling").grad([np.ones_like(out)], [x], [out], kernel=(2, 2),
                                        stride=(2, 2))
    expected = np.zeros((4, 4), np.float32)
    expected[0, 0] = expected[0, 2] = expected[2, 0] = expected[3, 3] = 1
    np.testing.assert_array_equal(g[0, 0], expected)


def test_pooling_infer_errors():
    op = registry.get("Pooling")
    f32 = [np.float32]
    assert op.infer([(64, 20, 24, 24)], f32, kernel=(2, 2), stride=(2, 2))[0] == [
        (64, 20, 12, 12)]
    assert op.infer([(1, 1, 7, 7)], f32, kernel=(2, 2), stride=(2, 2),
                    pooling_convention="full")[0] == [(1, 1, 4, 4)]
    assert op.infer([(2, 3, 7, 9)], f32, global_pool=True)[0] == [(2, 3, 1, 1)]
    assert pooling.pool_output_shape((1, 1, 5), kernel=(2,)) == (1, 1, 4)   # stride defaults 1
    with pytest.raises(ValueError, match=r"kernel=\(5, 5\) is larger than the padded input 4"):
        op.infer([(1, 1, 4, 4)], f32, kernel=(5, 5))
    with pytest.raises(ValueError, match="kernel is required"):
        op.infer([(1, 1, 4, 4)], f32)
    with pytest.raises(ValueError, match="pool_type='lp'"):
        op.infer([(1, 1, 4, 4)], f32, kernel=(2, 2), pool_type="lp")
    # 'same': ceil(n / stride) outputs, the input padded past its end; no explicit pad
    assert op.infer([(1, 1, 7, 10)], f32, kernel=(3, 2), stride=(2, 2),
                    pooling_convention="same")[0] == [(1, 1, 4, 5)]
    with pytest.raises(ValueError, match="pooling_convention='same' takes no pad"):
        op.infer([(1, 1, 4, 4)], f32, kernel=(2, 2), pad=(1, 1), pooling_convention="same")
    with pytest.raises(ValueError, match="pooling_convention='middle'"):
        op.infer([(1, 1, 4, 4)], f32, kernel=(2, 2), pooling_convention="middle")


def test_pooling_same_convention_matches_explicit_end_padding():
    x = np.arange(1.0, 8.0).reshape(1, 1, 7)
    op = registry.get("Pooling")
    out = op.kernel(x, kernel=(3,), stride=(2,), pool_type="max", pooling_convention="same")
    # windows [0:3], [2:5], [4:7], [6:9] (past the end: ignored by max)
    np.testing.assert_array_equal(out.ravel(), [3, 5, 7, 7])


# -- activations -------------------------------------------------------------------
@pytest.mark.parametrize("act_type", ["relu", "sigmoid", "tanh", "softrelu", "softsign",
                                      "log_sigmoid", "mish"])
def test_activation(act_type):
    rng = np.random.default_rng(4)
    x = randn(rng, 3, 4) * 3
    (out,) = run("Activation", x, act_type=act_type)
    ref = {"relu": np.maximum(x, 0), "sigmoid": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x),
           "softrelu": np.log1p(np.exp(x)), "softsign": x / (1 + np.abs(x)),
           "log_sigmoid": -np.log1p(np.exp(-x)),
           "mish": x * np.tanh(np.log1p(np.exp(x)))}[act_type]
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-14)
    check_grad("Activation", [x], dict(act_type=act_type))
    check_float32("Activation", [x], dict(act_type=act_type))


def test_activation_extremes_are_finite():
    x = np.array([-1e4, -100, 0, 100, 1e4], np.float32)
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        for act in ("sigmoid", "softrelu", "tanh", "log_sigmoid"):
            (out,) = run("Activation", x, act_type=act)
            assert np.isfinite(out).all(), act
    with pytest.raises(ValueError, match="act_type='swish'"):
        registry.get("Activation").infer([(2,)], [np.float32], act_type="swish")


@pytest.mark.parametrize("act_type,slope", [("leaky", 0.1), ("elu", 0.7), ("selu", 0.25),
                                            ("gelu", 0.25)])
def test_leaky_relu(act_type, slope):
    rng = np.random.default_rng(5)
    x = randn(rng, 3, 5) * 2
    params = dict(act_type=act_type, slope=slope)
    (out,) = run("LeakyReLU", x, **params)
    c = np.sqrt(2 / np.pi)
    ref = {"leaky": np.where(x > 0, x, slope * x),
           "elu": np.where(x > 0, x, slope * (np.exp(x) - 1)),
           "selu": 1.0507009873234985 * np.where(x > 0, x,
                                                 1.6732632423543772 * (np.exp(x) - 1)),
           "gelu": 0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x ** 3)))}[act_type]
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    check_grad("LeakyReLU", [x], params)
    check_float32("LeakyReLU", [x], params)


def test_prelu():
    rng = np.random.default_rng(6)
    x, gamma = randn(rng, 2, 3, 4), rng.random(3)
    (out,) = run("LeakyReLU", x, gamma, act_type="prelu")
    np.testing.assert_allclose(out, np.where(x > 0, x, gamma[None, :, None] * x))
    check_grad("LeakyReLU", [x, gamma], dict(act_type="prelu"))
    check_grad("LeakyReLU", [x, np.array([0.3])], dict(act_type="prelu"))
    op = registry.get("LeakyReLU")
    assert op.infer_args([(2, 3, 4), None], act_type="prelu") == [(2, 3, 4), (3,)]
    with pytest.raises(ValueError, match="gamma has shape"):
        op.infer([(2, 3, 4), (4,)], [np.float32] * 2, act_type="prelu")


def test_prelu_gamma_over_the_batch_and_channel_axes_as_mxnet_broadcasts_it():
    rng = np.random.default_rng(7)
    x, gamma = randn(rng, 2, 3, 4, 2), rng.random((2, 3))   # one slope per (sample, channel)
    (out,) = run("LeakyReLU", x, gamma, act_type="prelu")
    np.testing.assert_allclose(out, np.where(x > 0, x, gamma[:, :, None, None] * x))
    check_grad("LeakyReLU", [x, gamma], dict(act_type="prelu"))
    flat = randn(rng, 3, 4)                                  # a 2-D input: gamma as the input
    check_grad("LeakyReLU", [flat, rng.random((3, 4))], dict(act_type="prelu"))
    op = registry.get("LeakyReLU")
    with pytest.raises(ValueError, match=r"gamma has shape \(3, 3\), which does not broadcast "
                                         r"against data \(2, 3, 4, 2\)"):
        op.infer([(2, 3, 4, 2), (3, 3)], [np.float32] * 2, act_type="prelu")


# -- Dropout ---------------------------------------------------------------------------
def test_dropout_training_mask_and_grad():
    x = np.random.default_rng(0).standard_normal((200, 50)).astype(np.float32)
    op = registry.get("Dropout")
    assert op.n_outputs({}) == 2 and op.visible_outputs == 1
    out, mask = run("Dropout", x, train=True, p=0.3, rng=np.random.default_rng(1))
    assert out.dtype == mask.dtype == np.float32 and mask.shape == x.shape
    assert set(np.unique(mask)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((mask == 0).mean() - 0.3) < 0.02
    np.testing.assert_allclose(out, x * mask)
    (g,) = op.grad([np.ones_like(out), None], [x], [out, mask], p=0.3)
    np.testing.assert_array_equal(g, mask)
    small = np.random.default_rng(2).standard_normal((3, 4))
    check_grad("Dropout", [small], train=True,
               make_params=lambda: dict(p=0.5, rng=np.random.default_rng(7)))


def test_dropout_of_everything_is_nan_as_mxnets_kernel_makes_it():
    x = np.ones((4, 5), np.float32)
    out, mask = run("Dropout", x, train=True, p=1.0, rng=np.random.default_rng(1))
    assert np.isnan(out).all() and np.isnan(mask).all()   # x * 0 / (1 - 1)


def test_dropout_inference_always_and_axes():
    x = np.random.default_rng(0).standard_normal((4, 6, 5)).astype(np.float32)
    out, mask = run("Dropout", x, p=0.5)
    np.testing.assert_array_equal(out, x)
    assert np.all(mask == 1)
    out, mask = run("Dropout", x, p=0.5, mode="always", rng=np.random.default_rng(3))
    assert (out == 0).any()
    out, mask = run("Dropout", x, train=True, p=0.5, axes=(1,), rng=np.random.default_rng(3))
    assert mask.shape == (4, 1, 5)
    np.testing.assert_allclose(out, x * mask)
    shapes, _ = registry.get("Dropout").infer([(4, 6, 5)], [np.float32], p=0.5, axes=(1,))
    assert shapes == [(4, 6, 5), (4, 1, 5)]
    a = run("Dropout", x, train=True, p=0.5, rng=np.random.default_rng(9))[1]
    b = run("Dropout", x, train=True, p=0.5, rng=np.random.default_rng(9))[1]
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="p=1.5"):
        registry.get("Dropout").infer([(2,)], [np.float32], p=1.5)


# -- softmax family ------------------------------------------------------------------
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("temperature", [None, 2.0])
def test_softmax_and_log_softmax(axis, temperature):
    rng = np.random.default_rng(7)
    x = randn(rng, 3, 4, 2)
    params = dict(axis=axis, temperature=temperature)
    z = x / (temperature or 1.0)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    ref = e / e.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(run("softmax", x, **params)[0], ref, rtol=1e-12)
    np.testing.assert_allclose(run("log_softmax", x, **params)[0], np.log(ref), rtol=1e-12)
    check_grad("softmax", [x], params)
    check_grad("log_softmax", [x], params)
    check_float32("softmax", [x], params)
    check_float32("log_softmax", [x], params)


def ce_loss(data, label, axis):
    z = data - data.max(axis=axis, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    idx = np.expand_dims(label.astype(int), axis)
    return -np.take_along_axis(logp, idx, axis)


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
def test_softmax_output_grad_is_cross_entropy_grad(normalization):
    rng = np.random.default_rng(8)
    data = randn(rng, 5, 4)
    label = np.array([0, 3, 1, 1, 2], np.float64)
    params = dict(grad_scale=0.5, normalization=normalization, use_ignore=True,
                  ignore_label=1)
    op = registry.get("SoftmaxOutput")
    (out,) = run("SoftmaxOutput", data, label, **params)
    e = np.exp(data - data.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-12)
    og = rng.standard_normal(out.shape)                 # ignored, as in MXNet
    g, gl = op.grad([og], [data, label], [out], **params)
    valid = label != 1
    norm = {"null": 1, "batch": 5, "valid": valid.sum()}[normalization]

    def loss():
        return float((ce_loss(data, label, 1)[:, 0] * valid).sum()) * 0.5 / norm
    np.testing.assert_allclose(g, numeric_grad(loss, data), rtol=1e-5, atol=1e-8)
    assert np.all(gl == 0)
    check_float32("SoftmaxOutput", [data, label], params)


def test_softmax_output_multi_output_and_smoothing():
    rng = np.random.default_rng(9)
    data = randn(rng, 2, 3, 4)
    label = rng.integers(0, 3, (2, 4)).astype(np.float64)
    op = registry.get("SoftmaxOutput")
    (out,) = run("SoftmaxOutput", data, label, multi_output=True)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    (g, _) = op.grad([None], [data, label], [out], multi_output=True)

    def loss():
        return float(ce_loss(data, label, 1).sum())
    # as MXNet (and its test_softmax_output_normalization): the loss of each of the 4
    # positions of the (n, k, 4) map counts 1/4, unless normalization='valid'
    np.testing.assert_allclose(g, numeric_grad(loss, data) / 4, rtol=1e-5, atol=1e-8)
    (gv, _) = op.grad([None], [data, label], [out], multi_output=True, normalization="valid")
    np.testing.assert_allclose(gv, numeric_grad(loss, data) / label.size, rtol=1e-5, atol=1e-8)
    assert op.infer_args([(2, 3, 4), None], multi_output=True) == [(2, 3, 4), (2, 4)]
    assert op.infer_args([(8, 10), None]) == [(8, 10), (8,)]
    with pytest.raises(ValueError, match="label has shape"):
        op.infer([(8, 10), (7,)], [np.float32] * 2)
    # label smoothing: target is 1 - alpha on the label, alpha / (k - 1) elsewhere
    d2, l2 = randn(rng, 3, 5), np.array([0.0, 4.0, 2.0])
    (o2,) = run("SoftmaxOutput", d2, l2)
    (g2, _) = op.grad([None], [d2, l2], [o2], smooth_alpha=0.2)
    target = np.full((3, 5), 0.05)
    target[np.arange(3), l2.astype(int)] = 0.8
    np.testing.assert_allclose(g2, o2 - target, rtol=1e-12)


def test_softmax_cross_entropy():
    rng = np.random.default_rng(10)
    data, label = randn(rng, 4, 5), np.array([1.0, 0.0, 4.0, 2.0])
    (out,) = run("softmax_cross_entropy", data, label)
    assert out.shape == (1,)
    np.testing.assert_allclose(out[0], ce_loss(data, label, 1).sum(), rtol=1e-12)
    check_grad("softmax_cross_entropy", [data, label], wrt=[0])
    check_float32("softmax_cross_entropy", [data, label])
    with pytest.raises(ValueError, match="label"):
        registry.get("softmax_cross_entropy").infer([(4, 5), (5,)], [np.float32] * 2)


# -- the whole CNN of the benchmark, float32 end to end --------------------------------
def test_cnn_step_dtypes_and_shapes():
    rng = np.random.default_rng(11)
    f32 = np.float32
    x = rng.random((4, 1, 28, 28), dtype=f32)
    h1, = run("Convolution", x, rng.standard_normal((20, 1, 5, 5), dtype=f32),
              np.zeros(20, f32), kernel=(5, 5), num_filter=20)
    a1, = run("Activation", h1, act_type="relu")
    p1, = run("Pooling", a1, kernel=(2, 2), stride=(2, 2))
    h2, = run("Convolution", p1, rng.standard_normal((50, 20, 5, 5), dtype=f32),
              np.zeros(50, f32), kernel=(5, 5), num_filter=50)
    p2, = run("Pooling", h2, kernel=(2, 2), stride=(2, 2))
    fl, = run("Flatten", p2)
    d, = run("FullyConnected", fl, rng.standard_normal((10, 800), dtype=f32),
             np.zeros(10, f32), num_hidden=10)
    for arr in (h1, a1, p1, h2, p2, fl, d):
        assert arr.dtype == f32
    assert (h1.shape, p1.shape, h2.shape, p2.shape, d.shape) == (
        (4, 20, 24, 24), (4, 20, 12, 12), (4, 50, 8, 8), (4, 50, 4, 4), (4, 10))


# -- LRN and SoftmaxActivation ----------------------------------------------------------------
def _lrn_loop(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    """The formula, one channel at a time."""
    out, norm = np.empty_like(x), np.empty_like(x)
    c, half = x.shape[1], nsize // 2
    for k in range(c):
        window = x[:, max(0, k - half):min(c, k + half + 1)]
        norm[:, k] = knorm + alpha / nsize * (window ** 2).sum(axis=1)
        out[:, k] = x[:, k] * norm[:, k] ** -beta
    return out, norm


@pytest.mark.parametrize("nsize", [1, 3, 5])
def test_lrn_matches_the_formula_and_its_gradient(nsize):
    x = np.random.default_rng(nsize).standard_normal((2, 6, 3, 2)) * 3
    params = {"nsize": nsize, "alpha": 0.5, "beta": 0.75, "knorm": 1.5}
    out, norm = run("LRN", x, **params)
    want_out, want_norm = _lrn_loop(x, nsize, 0.5, 0.75, 1.5)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(norm, want_norm, rtol=1e-12)
    check_grad("LRN", [x], params)
    assert registry.get("LRN").visible_outputs == 1
    with pytest.raises(ValueError, match="nsize is required"):
        run("LRN", x)


@pytest.mark.parametrize("mode", ["instance", "channel"])
def test_softmax_activation_is_softmax_over_the_instance_or_the_channels(mode):
    x = np.random.default_rng(3).standard_normal((2, 4, 3))
    (out,) = run("SoftmaxActivation", x, mode=mode)
    if mode == "instance":
        flat = np.exp(x.reshape(2, -1))
        want = (flat / flat.sum(axis=1, keepdims=True)).reshape(x.shape)
    else:
        e = np.exp(x)
        want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    check_grad("SoftmaxActivation", [x], {"mode": mode})
    with pytest.raises(ValueError, match="mode='batch' must be 'instance' or 'channel'"):
        run("SoftmaxActivation", x, mode="batch")
