"""Tests of runtime/ops/normalization.py, embedding.py and deconvolution.py.

Forwards are compared with plain numpy formulas (or loops) written here, gradients
with central differences in float64; BatchNorm's moving statistics are checked through
``mx.nd`` (training and inference), autograd and the symbolic executor.
"""
import numpy as np
import pytest
from gradcheck import numeric_grad

import xprof.runtime as mx
from xprof.runtime.ops import registry


def run(name, *inputs, train=False, **params):
    op = registry.get(name)
    merged = dict(op.params, **params)
    out = op.kernel_for(train)(*inputs, **merged)
    return out if isinstance(out, tuple) else (out,)


def check_grad(name, inputs, params, train=False, wrt=None, rtol=1e-5, atol=1e-6):
    """The op's gradient of sum(og * output) against central differences (float64)."""
    op = registry.get(name)
    merged = dict(op.params, **params)
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    outs = run(name, *inputs, train=train, **params)[:op.n_outputs(merged)]
    og = np.random.default_rng(3).standard_normal(outs[0].shape)
    analytic = op.grad([og] + [None] * (len(outs) - 1), inputs, list(outs), **merged)
    assert len(analytic) == len(inputs)

    def loss():
        return float(np.sum(run(name, *inputs, train=train, **params)[0] * og))

    for i in (range(len(inputs)) if wrt is None else wrt):
        num = numeric_grad(loss, inputs[i])
        got = np.zeros_like(num) if analytic[i] is None else analytic[i]
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg=f"{name} gradient of input {i}")


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# -- BatchNorm -------------------------------------------------------------------------
@pytest.mark.parametrize("shape,axis", [((4, 3), 1), ((3, 2, 4), 1), ((2, 3, 3, 2), 1),
                                        ((2, 3, 4), -1)])
def test_batchnorm_train_matches_formula_and_gradient(shape, axis):
    x = rnd(*shape)
    c = shape[axis]
    gamma, beta = rnd(c, seed=1), rnd(c, seed=2)
    mm, mv = np.zeros(c), np.ones(c)
    p = {"fix_gamma": False, "axis": axis, "eps": 1e-3, "momentum": 0.9}
    out, mean, invstd, new_mm, new_mv = run("BatchNorm", x, gamma, beta, mm, mv,
                                            train=True, **p)
    red = tuple(i for i in range(len(shape)) if i != axis % len(shape))
    bshape = [1] * len(shape)
    bshape[axis] = c
    m, v = x.mean(axis=red), x.var(axis=red)
    want = (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + 1e-3) \
        * gamma.reshape(bshape) + beta.reshape(bshape)
    np.testing.assert_allclose(out, want, rtol=1e-10)
    np.testing.assert_allclose(mean, m)
    np.testing.assert_allclose(invstd, 1 / np.sqrt(v + 1e-3))
    np.testing.assert_allclose(new_mm, 0.1 * m)
    np.testing.assert_allclose(new_mv, 0.9 + 0.1 * v)
    check_grad("BatchNorm", [x, gamma, beta, mm, mv], p, train=True, wrt=(0, 1, 2))


def test_batchnorm_inference_and_global_stats_use_moving_statistics():
    x = rnd(2, 3, 4)
    gamma, beta = rnd(3, seed=1), rnd(3, seed=2)
    mm, mv = rnd(3, seed=3), np.abs(rnd(3, seed=4)) + 0.5
    p = {"fix_gamma": False, "eps": 1e-3}
    want = (x - mm[:, None]) / np.sqrt(mv[:, None] + 1e-3) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(run("BatchNorm", x, gamma, beta, mm, mv, **p)[0], want)
    train = run("BatchNorm", x, gamma, beta, mm, mv, train=True, use_global_stats=True, **p)
    np.testing.assert_allclose(train[0], want)
    assert train[3] is mm and train[4] is mv               # not updated
    check_grad("BatchNorm", [x, gamma, beta, mm, mv], dict(p, use_global_stats=True),
               train=True, wrt=(0, 1, 2))


def test_batchnorm_fix_gamma_ignores_gamma_and_gives_it_no_gradient():
    x = rnd(4, 2)
    gamma = np.full(2, 5.0)
    outs = run("BatchNorm", x, gamma, np.zeros(2), np.zeros(2), np.ones(2), train=True)
    np.testing.assert_allclose(outs[0].mean(axis=0), 0, atol=1e-12)
    grads = registry.get("BatchNorm").grad([np.ones_like(x)], [x, gamma, np.zeros(2)],
                                           list(outs[:3]), fix_gamma=True)
    assert not grads[1].any()


def test_nd_batchnorm_updates_moving_statistics_only_in_training():
    x = mx.nd.array(rnd(8, 3, 2))
    gamma, beta = mx.nd.ones(3), mx.nd.zeros(3)
    mm, mv = mx.nd.zeros(3), mx.nd.ones(3)
    y = mx.nd.BatchNorm(x, gamma, beta, mm, mv)                   # inference
    assert y.shape == (8, 3, 2)
    np.testing.assert_allclose(mm.asnumpy(), 0)
    with mx.autograd.record():
        y, mean, invstd = mx.nd.BatchNorm(x, gamma, beta, moving_mean=mm, moving_var=mv,
                                          output_mean_var=True, momentum=0.5)
    xs = x.asnumpy()
    np.testing.assert_allclose(mean.asnumpy(), xs.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(mm.asnumpy(), 0.5 * xs.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(mv.asnumpy(), 0.5 + 0.5 * xs.var(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(xs.var(axis=(0, 2)) + 1e-3),
                               rtol=1e-4)


def test_nd_batchnorm_autograd_gradients():
    xs, gs = rnd(4, 2, 3).astype(np.float32), rnd(2, seed=5).astype(np.float32)
    x, gamma, beta = mx.nd.array(xs), mx.nd.array(gs), mx.nd.zeros(2)
    for a in (x, gamma, beta):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, gamma, beta, mx.nd.zeros(2), mx.nd.ones(2), fix_gamma=False)
        loss = (y * y).sum()
    loss.backward()
    p = {"fix_gamma": False}
    outs = run("BatchNorm", xs.astype(np.float64), gs.astype(np.float64), np.zeros(2),
               np.zeros(2), np.ones(2), train=True, **p)
    want = registry.get("BatchNorm").grad([2 * outs[0]], [xs.astype(np.float64),
                                                          gs.astype(np.float64),
                                                          np.zeros(2)], list(outs[:3]), **p)
    np.testing.assert_allclose(x.grad.asnumpy(), want[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gamma.grad.asnumpy(), want[1], rtol=1e-4, atol=1e-5)


def test_symbol_batchnorm_aux_states_and_executor_update():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, name="bn", fix_gamma=False, momentum=0.0)
    assert bn.list_arguments() == ["data", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    args, outs, aux = bn.infer_shape(data=(5, 2))
    assert args == [(5, 2), (2,), (2,)] and outs == [(5, 2)] and aux == [(2,), (2,)]
    assert len(mx.sym.BatchNorm(data, output_mean_var=True)) == 3
    exe = bn.simple_bind(mx.cpu(), data=(5, 2))
    xs = rnd(5, 2).astype(np.float32)
    exe.arg_dict["bn_gamma"][:] = 1
    exe.aux_dict["bn_moving_var"][:] = 1
    exe.forward(is_train=False, data=xs)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), 0)
    exe.forward(is_train=True, data=xs)
    exe.backward(mx.nd.ones((5, 2)))
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), xs.mean(axis=0),
                               rtol=1e-5)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_var"].asnumpy(), xs.var(axis=0),
                               rtol=1e-4)


def test_batchnorm_bad_input_is_one_clear_error():
    with pytest.raises(ValueError, match="axis 4 is out of range"):
        mx.nd.BatchNorm(mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.ones(3), mx.nd.ones(3),
                        mx.nd.ones(3), axis=4)
    with pytest.raises(ValueError, match=r"gamma has shape \(2,\), expected \(3,\)"):
        mx.nd.BatchNorm(mx.nd.ones((2, 3)), mx.nd.ones(2), mx.nd.ones(3), mx.nd.ones(3),
                        mx.nd.ones(3))


# -- LayerNorm, InstanceNorm, GroupNorm --------------------------------------------------
@pytest.mark.parametrize("axis", [-1, 1])
def test_layernorm(axis):
    x = rnd(2, 3, 4)
    c = x.shape[axis]
    gamma, beta = rnd(c, seed=1), rnd(c, seed=2)
    out, mean, std = run("LayerNorm", x, gamma, beta, axis=axis, eps=1e-5)
    bshape = [1, 1, 1]
    bshape[axis] = c
    m, v = x.mean(axis=axis, keepdims=True), x.var(axis=axis, keepdims=True)
    np.testing.assert_allclose(out, (x - m) / np.sqrt(v + 1e-5) * gamma.reshape(bshape)
                               + beta.reshape(bshape), rtol=1e-10)
    np.testing.assert_allclose(std, np.sqrt(v + 1e-5))
    check_grad("LayerNorm", [x, gamma, beta], {"axis": axis})
    y = mx.nd.LayerNorm(mx.nd.array(x), mx.nd.array(gamma), mx.nd.array(beta), axis=axis)
    np.testing.assert_allclose(y.asnumpy(), out, rtol=1e-4, atol=1e-5)


def test_instancenorm():
    x = rnd(2, 3, 4, 2)
    gamma, beta = rnd(3, seed=1), rnd(3, seed=2)
    out, mean, var = run("InstanceNorm", x, gamma, beta, eps=1e-3)
    m, v = x.mean(axis=(2, 3), keepdims=True), x.var(axis=(2, 3), keepdims=True)
    np.testing.assert_allclose(out, (x - m) / np.sqrt(v + 1e-3) * gamma[:, None, None]
                               + beta[:, None, None], rtol=1e-10)
    assert mean.shape == var.shape == (2, 3)
    check_grad("InstanceNorm", [x, gamma, beta], {})


def test_groupnorm():
    x = rnd(2, 4, 3)
    gamma, beta = rnd(2, seed=1), rnd(2, seed=2)
    out, mean, std = run("GroupNorm", x, gamma, beta, num_groups=2)
    xg = x.reshape(2, 2, 2, 3)
    m, v = xg.mean(axis=(2, 3), keepdims=True), xg.var(axis=(2, 3), keepdims=True)
    want = ((xg - m) / np.sqrt(v + 1e-5) * gamma[:, None, None] + beta[:, None, None])
    np.testing.assert_allclose(out, want.reshape(x.shape), rtol=1e-10)
    assert mean.shape == std.shape == (2, 2)
    check_grad("GroupNorm", [x, gamma, beta], {"num_groups": 2})
    with pytest.raises(ValueError, match="num_groups=3 must divide the 4 channels"):
        mx.nd.GroupNorm(mx.nd.ones((2, 4, 3)), mx.nd.ones(3), mx.nd.ones(3), num_groups=3)


# -- Embedding -------------------------------------------------------------------------
def test_embedding_forward_gradient_and_clipping():
    w = rnd(5, 3)
    idx = np.array([[0, 4], [2, 2], [7, -1]], dtype=np.float64)   # 7 and -1 are clipped
    (out,) = run("Embedding", idx, w, input_dim=5, output_dim=3)
    np.testing.assert_allclose(out, w[[[0, 4], [2, 2], [4, 0]]])
    check_grad("Embedding", [idx, w], {"input_dim": 5, "output_dim": 3}, wrt=(1,))
    dw = registry.get("Embedding").grad([np.ones((3, 2, 3))], [idx, w], [out],
                                        input_dim=5, output_dim=3)[1]
    np.testing.assert_allclose(dw[:, 0], [2, 0, 2, 0, 2])      # repeated rows summed
    s = mx.sym.Embedding(mx.sym.var("data"), input_dim=5, output_dim=3, name="emb")
    assert s.infer_shape(data=(3, 2))[0] == [(3, 2), (5, 3)]
    # sparse_grad=True: the same values (its weight gradient is a row_sparse array)
    sparse = mx.nd.Embedding(mx.nd.array(idx), mx.nd.array(w), input_dim=5, output_dim=3,
                             sparse_grad=True)
    np.testing.assert_allclose(sparse.asnumpy(), out, rtol=1e-6)


# -- Deconvolution ---------------------------------------------------------------------
def deconv_reference(x, w, stride, pad, adj, dilate=1, groups=1):
    """The transposed convolution by its definition: every input pixel scatters the
    kernel, scaled, into the output (then the padding is cropped)."""
    n, c = x.shape[:2]
    k = w.shape[2:]
    f = w.shape[1] * groups
    full = [(i - 1) * stride + dilate * (kk - 1) + 1 + adj for i, kk in zip(x.shape[2:], k)]
    out = np.zeros((n, f) + tuple(d + pad for d in full))
    cg, fg = c // groups, f // groups
    for idx in np.ndindex(*x.shape[2:]):
        for off in np.ndindex(*k):
            pos = tuple(i * stride + o * dilate for i, o in zip(idx, off))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + off]
                out[(slice(None), slice(g * fg, (g + 1) * fg)) + pos] += xs @ ws
    crop = tuple(slice(pad, pad + d - 2 * pad) for d in full)
    return out[(slice(None), slice(None)) + crop]


@pytest.mark.parametrize("shape,stride,pad,adj,dilate,groups",
                         [((2, 2, 3), 1, 0, 0, 1, 1), ((1, 2, 3, 2), 2, 1, 1, 1, 1),
                          ((2, 4, 2, 3), 2, 0, 0, 2, 2)])
def test_deconvolution_forward_and_gradient(shape, stride, pad, adj, dilate, groups):
    nsp = len(shape) - 2
    x = rnd(*shape)
    w = rnd(shape[1], 4 // groups, *([3] * nsp), seed=1)
    b = rnd(4, seed=2)
    p = {"kernel": (3,) * nsp, "stride": (stride,) * nsp, "pad": (pad,) * nsp,
         "adj": (adj,) * nsp, "dilate": (dilate,) * nsp, "num_filter": 4,
         "num_group": groups, "no_bias": False}
    (out,) = run("Deconvolution", x, w, b, **p)
    want = deconv_reference(x, w, stride, pad, adj, dilate, groups)
    np.testing.assert_allclose(out, want + b.reshape((1, 4) + (1,) * nsp), rtol=1e-10)
    check_grad("Deconvolution", [x, w, b], p)
    shapes, _ = registry.get("Deconvolution").infer(
        [x.shape, w.shape, b.shape], [np.float32] * 3, **p)
    assert shapes == [out.shape]


def test_deconvolution_defaults_to_no_bias():
    s = mx.sym.Deconvolution(mx.sym.var("data"), kernel=(2, 2), num_filter=3, name="d")
    assert s.list_arguments() == ["data", "d_weight"]
    assert s.infer_shape(data=(1, 2, 4, 4))[1] == [(1, 3, 5, 5)]


@pytest.mark.parametrize("target", [(8, 8), (7, 9), (5, 6)])
def test_deconvolution_target_shape_sets_pad_and_adj_as_mxnet(target):
    """target (the output size) = the same deconvolution with MXNet's pad = ceil(t / 2),
    adj = t % 2, where t is the full output size less the target."""
    x = rnd(1, 2, 4, 5, seed=3)
    w = rnd(2, 3, 3, 3, seed=4)
    p = dict(kernel=(3, 3), stride=(2, 2), num_filter=3)
    (out,) = run("Deconvolution", x, w, target_shape=target, **p)
    assert out.shape == (1, 3) + target
    full = (2 * 3 + 3, 2 * 4 + 3)
    total = [f - t for f, t in zip(full, target)]
    (same,) = run("Deconvolution", x, w, pad=tuple((t + 1) // 2 for t in total),
                  adj=tuple(t % 2 for t in total), **p)
    np.testing.assert_allclose(out, same, rtol=1e-12)
    s = mx.sym.Deconvolution(mx.sym.var("data"), target_shape=target, name="d", **p)
    assert s.infer_shape(data=x.shape)[1] == [(1, 3) + target]
    with pytest.raises(ValueError, match=r"target_shape=\(12, 12\) is larger than the full "
                                         r"output 9"):
        run("Deconvolution", x, w, target_shape=(12, 12), **p)


def test_layer_norm_gradient_sums_over_many_rows_keep_float32_precision():
    """The gamma/beta gradients sum over every row: accumulated in float64 (numpy adds
    row by row across a non-inner axis; in float32 that loses about three digits)."""
    rng = np.random.default_rng(5)
    x, og = rng.normal(size=(4096, 64)), rng.normal(size=(4096, 64))
    gamma, beta = rng.normal(size=64), rng.normal(size=64)
    f32 = [a.astype(np.float32) for a in (x, gamma, beta)]
    op = registry.get("LayerNorm")
    outs = op.kernel(*f32, axis=-1, eps=1e-3)
    _, dgamma, dbeta = op.grad([og.astype(np.float32), None, None], f32, list(outs), axis=-1,
                               eps=1e-3)
    xhat = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-3)
    assert dgamma.dtype == np.float32
    np.testing.assert_allclose(dgamma, (og * xhat).sum(axis=0), rtol=0, atol=2e-5)
    np.testing.assert_allclose(dbeta, og.sum(axis=0), rtol=0, atol=2e-5)


def test_contrib_sync_batch_norm_is_batch_norm_with_the_variance_as_third_output():
    # one device: MXNet's SyncBatchNorm normalizes over axis 1 as BatchNorm does, but
    # output_mean_var gives the batch variance where BatchNorm gives 1/sqrt(var + eps)
    rng = np.random.default_rng(3)
    x = rng.uniform(size=(4, 3, 5)).astype(np.float32)
    gamma = rng.uniform(size=3).astype(np.float32)
    og = rng.uniform(size=x.shape).astype(np.float32)
    results = {}
    for name, op in (("sync", mx.nd.contrib.SyncBatchNorm), ("bn", mx.nd.BatchNorm)):
        data, g = mx.nd.array(x), mx.nd.array(gamma)
        data.attach_grad()
        g.attach_grad()
        mm, mv = mx.nd.zeros(3), mx.nd.ones(3)
        with mx.autograd.record():
            out, mean, third = op(data, g, mx.nd.zeros(3), mm, mv, eps=1e-5, momentum=0.9,
                                  fix_gamma=False, output_mean_var=True)
        out.backward(mx.nd.array(og))
        results[name] = (out.asnumpy(), mean.asnumpy(), third.asnumpy(), mm.asnumpy(),
                         data.grad.asnumpy(), g.grad.asnumpy())
    sync, bn = results["sync"], results["bn"]
    var = x.var(axis=(0, 2))
    np.testing.assert_allclose(sync[2], var, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bn[2], 1 / np.sqrt(var + 1e-5), rtol=1e-4)
    for a, b in zip(sync[:2] + sync[3:], bn[:2] + bn[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="ndev=2"):
        mx.nd.contrib.SyncBatchNorm(mx.nd.array(x), mx.nd.ones(3), mx.nd.zeros(3),
                                    mx.nd.zeros(3), mx.nd.ones(3), ndev=2).wait_to_read()
