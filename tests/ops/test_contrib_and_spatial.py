"""ops/contrib.py, ops/upsampling.py, ops/l2_normalization.py, ops/roi_pooling.py,
ops/correlation.py, ops/spatial_transformer.py, ops/amp.py: numpy references written
independently (loops), known answers, central-difference gradients."""
import numpy as np
import pytest

import xprof.runtime as mx
from test_matrix_ops import check_grad, check_infer, run

RNG = np.random.default_rng(3)


def test_contrib_isinf_isnan_isfinite_on_arrays_and_symbols():
    x = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], dtype=np.float32)
    nd = mx.nd.array(x)
    np.testing.assert_array_equal(mx.nd.contrib.isinf(nd).asnumpy(), np.isinf(x))
    np.testing.assert_array_equal(mx.nd.contrib.isnan(nd).asnumpy(), np.isnan(x))
    np.testing.assert_array_equal(mx.nd.contrib.isfinite(nd).asnumpy(), np.isfinite(x))
    s = mx.sym.contrib.isfinite(mx.sym.var("x"))
    np.testing.assert_array_equal(s.bind(mx.cpu(), {"x": nd}).forward()[0].asnumpy(),
                                  np.isfinite(x))


def test_index_copy_and_boolean_mask_with_gradients():
    old, new = np.zeros((5, 3)), np.arange(9.0).reshape(3, 3)
    idx = np.array([0.0, 4.0, 2.0])
    out = run("_contrib_index_copy", old, idx, new)[0]
    want = old.copy()
    want[[0, 4, 2]] = new
    np.testing.assert_array_equal(out, want)
    check_grad("_contrib_index_copy", [old, idx, new], wrt=[0, 2])
    data = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    data.attach_grad()
    with mx.autograd.record():
        got = mx.nd.contrib.boolean_mask(data, mx.nd.array([0, 1, 1]))
    got.backward()
    np.testing.assert_array_equal(got.asnumpy(), [[4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(data.grad.asnumpy(), [[0, 0, 0], [1, 1, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match="depends on the index"):
        mx.sym.contrib.boolean_mask(mx.sym.var("d"), mx.sym.var("i")).infer_shape(
            d=(3, 3), i=(3,))


def test_elementwise_contrib_ops():
    x = RNG.standard_normal((2, 4))
    np.testing.assert_allclose(run("_contrib_div_sqrt_dim", x)[0], x / 2.0, rtol=1e-12)
    check_grad("_contrib_div_sqrt_dim", [x])
    p = dict(a=0.5, b=-1.0, c=2.0)
    np.testing.assert_allclose(run("_contrib_quadratic", x, **p)[0], 0.5 * x * x - x + 2,
                               rtol=1e-12)
    check_grad("_contrib_quadratic", [x], p)
    assert run("_contrib_allclose", x, x + 1e-9)[0].shape == ()   # 0-d, as MXNet's
    assert run("_contrib_allclose", x, x + 1e-9)[0] == 1
    assert run("_contrib_allclose", x, x + 1e-3)[0] == 0


def test_index_array_and_arange_like():
    x = np.ones((2, 3, 4))
    out = run("_contrib_index_array", x)[0]
    np.testing.assert_array_equal(out, np.stack(np.mgrid[0:2, 0:3, 0:4], axis=-1))
    np.testing.assert_array_equal(run("_contrib_index_array", x, axes=(-1, 0))[0],
                                  np.stack(np.mgrid[0:2, 0:3, 0:4], axis=-1)[..., [2, 0]])
    check_infer("_contrib_index_array", [x], dict(axes=(1,)))
    np.testing.assert_array_equal(run("_contrib_arange_like", x, start=1.0, axis=1)[0],
                                  [1, 2, 3])
    np.testing.assert_array_equal(run("_contrib_arange_like", x)[0],
                                  np.arange(24.0).reshape(2, 3, 4))


def _adaptive_ref(x, oh, ow):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("size", [1, 3, (4, 2), (7, 5)])
def test_adaptive_avg_pooling(size):
    x = RNG.standard_normal((2, 3, 7, 5))
    oh, ow = (size, size) if isinstance(size, int) else size
    np.testing.assert_allclose(run("_contrib_AdaptiveAvgPooling2D", x, output_size=size)[0],
                               _adaptive_ref(x, oh, ow), rtol=1e-12)
    check_grad("_contrib_AdaptiveAvgPooling2D", [x], dict(output_size=size))


def test_upsampling_nearest_concat_and_sum():
    a, b = RNG.standard_normal((1, 2, 4, 4)), RNG.standard_normal((1, 2, 2, 2))
    out = run("UpSampling", a, b, scale=2, num_args=2)[0]
    np.testing.assert_array_equal(out[:, :2], a.repeat(2, 2).repeat(2, 3))
    np.testing.assert_array_equal(out[:, 2:], b.repeat(4, 2).repeat(4, 3))
    check_grad("UpSampling", [a, b], dict(scale=2, num_args=2))
    summed = run("UpSampling", a, b, scale=1, num_args=2, multi_input_mode="sum")[0]
    np.testing.assert_array_equal(summed, a + b.repeat(2, 2).repeat(2, 3))
    check_infer("UpSampling", [a, b], dict(scale=2, num_args=2))


def test_upsampling_bilinear_is_a_grouped_deconvolution():
    x = RNG.standard_normal((1, 2, 3, 3))
    up = mx.sym.UpSampling(mx.sym.var("data"), mx.sym.var("weight"), sample_type="bilinear",
                           scale=2, num_filter=2, num_args=2)
    args, outs, _ = up.infer_shape(data=x.shape)
    assert args[1] == (2, 1, 4, 4) and outs[0] == (1, 2, 6, 6)
    w = RNG.standard_normal(args[1])
    got = up.bind(mx.cpu(), {"data": mx.nd.array(x), "weight": mx.nd.array(w)}).forward()[0]
    want = mx.nd.Deconvolution(mx.nd.array(x), mx.nd.array(w), kernel=(4, 4), stride=(2, 2),
                               pad=(1, 1), num_filter=2, num_group=2, no_bias=True)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("mode, axes", [("instance", (1, 2, 3)), ("channel", (1,)),
                                        ("spatial", (2, 3))])
def test_l2_normalization(mode, axes):
    x = RNG.standard_normal((2, 3, 4, 2))
    want = x / np.sqrt((x * x).sum(axis=axes, keepdims=True) + 1e-10)
    np.testing.assert_allclose(run("L2Normalization", x, mode=mode)[0], want, rtol=1e-12)
    check_grad("L2Normalization", [x], dict(mode=mode), rtol=1e-4, atol=1e-8)


def test_roi_pooling_known_answer_and_gradient():
    data = np.arange(2 * 1 * 6 * 6, dtype=np.float64).reshape(2, 1, 6, 6)
    rois = np.array([[1, 0, 0, 3, 3], [0, 2, 2, 5, 5]], dtype=np.float64)
    out = run("ROIPooling", data, rois, pooled_size=(2, 2), spatial_scale=1.0)[0]
    # region [0:4, 0:4] of image 1, bins of 2x2: maxima at the bins' bottom-right corners
    np.testing.assert_array_equal(out[0, 0], data[1, 0][[1, 3]][:, [1, 3]])
    np.testing.assert_array_equal(out[1, 0], data[0, 0][[3, 5]][:, [3, 5]])
    noisy = RNG.permutation(72).reshape(2, 1, 6, 6).astype(np.float64)   # distinct maxima
    check_grad("ROIPooling", [noisy, rois], dict(pooled_size=(2, 2)), wrt=[0])


def _correlation_ref(a, b, k, md, s1, s2, pad, mult):
    pa = np.pad(a, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    pb = np.pad(b, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    r = (k - 1) // 2
    th = (pa.shape[2] - 2 * (md + r)) // s1
    tw = (pa.shape[3] - 2 * (md + r)) // s1
    grid = md // s2
    width = 2 * grid + 1
    out = np.zeros((a.shape[0], width * width, th, tw))
    for i in range(th):
        for j in range(tw):
            y1, x1 = i * s1 + md, j * s1 + md
            for tc in range(width * width):
                y2 = y1 + (tc // width - grid) * s2
                x2 = x1 + (tc % width - grid) * s2
                p = pa[:, :, y1:y1 + k, x1:x1 + k]
                q = pb[:, :, y2:y2 + k, x2:x2 + k]
                out[:, tc, i, j] = (p * q if mult else np.abs(p - q)).sum(axis=(1, 2, 3))
    return out / (k * k * a.shape[1])


@pytest.mark.parametrize("k, md, s1, s2, pad, mult", [(1, 2, 1, 1, 2, True),
                                                      (3, 1, 2, 1, 2, False),
                                                      (1, 4, 1, 2, 4, True)])
def test_correlation_against_loops(k, md, s1, s2, pad, mult):
    a, b = RNG.random((2, 2, 6, 5)), RNG.random((2, 2, 6, 5))
    p = dict(kernel_size=k, max_displacement=md, stride1=s1, stride2=s2, pad_size=pad,
             is_multiply=mult)
    np.testing.assert_allclose(run("Correlation", a, b, **p)[0],
                               _correlation_ref(a, b, k, md, s1, s2, pad, mult), rtol=1e-12)
    check_grad("Correlation", [a, b], p, rtol=1e-4, atol=1e-8)
    with pytest.raises(ValueError, match="odd"):
        run("Correlation", a, b, kernel_size=2)


def test_grid_generator_sampler_and_spatial_transformer():
    affine = np.array([[1.0, 0, 0, 0, 1.0, 0]])
    grid = run("GridGenerator", affine, transform_type="affine", target_shape=(3, 4))[0]
    np.testing.assert_allclose(grid[0, 0], np.tile(np.linspace(-1, 1, 4), (3, 1)))
    np.testing.assert_allclose(grid[0, 1], np.tile(np.linspace(-1, 1, 3)[:, None], (1, 4)))
    check_grad("GridGenerator", [RNG.standard_normal((2, 6))],
               dict(transform_type="affine", target_shape=(3, 4)))
    flow = RNG.standard_normal((1, 2, 3, 4))
    check_grad("GridGenerator", [flow], dict(transform_type="warp"))
    data = RNG.standard_normal((2, 3, 5, 6))
    # the identity grid samples every pixel back
    ident = run("GridGenerator", np.tile(affine, (2, 1)), target_shape=(5, 6))[0]
    np.testing.assert_allclose(run("BilinearSampler", data, ident)[0], data, atol=1e-12)
    # a point halfway between two pixels is their mean; outside the image is 0
    pts = np.zeros((2, 2, 1, 2))
    pts[:, 0, 0] = [-1 + 1 / 5, 1.5]       # x: between columns 0 and 1; outside
    pts[:, 1, 0] = [-1, 0]
    out = run("BilinearSampler", data, pts)[0]
    np.testing.assert_allclose(out[:, :, 0, 0], data[:, :, 0, :2].mean(-1), rtol=1e-12)
    np.testing.assert_allclose(out[:, :, 0, 1], 0)
    check_grad("BilinearSampler", [data, RNG.uniform(-0.9, 0.9, (2, 2, 3, 2))], rtol=1e-4,
               atol=1e-7)
    loc = np.array([[0.7, 0.1, 0.05, -0.1, 0.8, 0.02], [0.83, 0, 0.07, 0.05, 0.6, -0.1]])
    check_grad("SpatialTransformer", [data, loc], dict(target_shape=(4, 4)), rtol=1e-4,
               atol=1e-7)


def test_amp_ops():
    x = RNG.standard_normal(4).astype(np.float32)
    (half,) = run("amp_cast", x, dtype="float16")
    assert half.dtype == np.float16
    outs = run("amp_multicast", x.astype(np.float16), x, num_outputs=2)
    assert [o.dtype for o in outs] == [np.float32, np.float32]
    outs = run("amp_multicast", x.astype(np.float16), x, num_outputs=2, cast_narrow=True)
    assert [o.dtype for o in outs] == [np.float16, np.float16]
    assert run("all_finite", x)[0][0] == 1
    assert run("multi_all_finite", x, np.array([np.inf]), num_arrays=2)[0][0] == 0


def _resize_ref(x, oh, ow):
    """Align-corners bilinear resize, pixel by pixel."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    rh = (h - 1) / (oh - 1) if oh > 1 else 0.0
    rw = (w - 1) / (ow - 1) if ow > 1 else 0.0
    for i in range(oh):
        y = i * rh
        y0 = int(np.floor(y))
        y1 = min(y0 + 1, h - 1)
        for j in range(ow):
            xx = j * rw
            x0 = int(np.floor(xx))
            x1 = min(x0 + 1, w - 1)
            ly, lx = y - y0, xx - x0
            out[:, :, i, j] = ((1 - ly) * ((1 - lx) * x[:, :, y0, x0] + lx * x[:, :, y0, x1])
                               + ly * ((1 - lx) * x[:, :, y1, x0] + lx * x[:, :, y1, x1]))
    return out


@pytest.mark.parametrize("params, hw", [(dict(height=7, width=3), (7, 3)),
                                        (dict(scale_height=0.5, scale_width=2.0), (2, 10)),
                                        (dict(mode="to_odd_up"), (5, 5)),
                                        (dict(mode="odd_scale", scale_height=2,
                                              scale_width=2), (8, 9))])
def test_bilinear_resize(params, hw):
    x = RNG.standard_normal((2, 3, 4, 5))
    out = run("_contrib_BilinearResize2D", x, **params)[0]
    assert out.shape[2:] == hw
    np.testing.assert_allclose(out, _resize_ref(x, *hw), rtol=1e-10, atol=1e-12)
    check_grad("_contrib_BilinearResize2D", [x], params)
    # align_corners=False: MXNet's (and PyTorch's) half-pixel centres, clamped
    img = np.array([64, 32, 32, 64, 50, 100], dtype=np.float64).reshape(1, 1, 3, 2)
    got = run("_contrib_BilinearResize2D", img, height=6, width=4, align_corners=False)[0]
    np.testing.assert_allclose(got[0, 0, 0], [64, 56, 40, 32])
    np.testing.assert_allclose(got[0, 0, -1], [50, 62.5, 87.5, 100])
    like = mx.sym.contrib.BilinearResize2D(mx.sym.var("d"), mx.sym.var("l"), mode="like")
    assert like.infer_shape(d=(1, 1, 3, 2), l=(1, 1, 6, 4))[1] == [(1, 1, 6, 4)]


def test_interleaved_attention_products_against_per_head_loops():
    s, b, h, d, qs = 4, 2, 3, 2, 5
    qkv = RNG.standard_normal((s, b, h * 3 * d))
    r = qkv.reshape(s, b, h, 3, d)
    scores = run("_contrib_interleaved_matmul_selfatt_qk", qkv, heads=h)[0]
    att = RNG.standard_normal(scores.shape)
    mixed = run("_contrib_interleaved_matmul_selfatt_valatt", qkv, att, heads=h)[0]
    queries = RNG.standard_normal((qs, b, h * d))
    kv = RNG.standard_normal((s, b, h * 2 * d))
    rkv = kv.reshape(s, b, h, 2, d)
    rq = queries.reshape(qs, b, h, d)
    ed_scores = run("_contrib_interleaved_matmul_encdec_qk", queries, kv, heads=h)[0]
    ed_att = RNG.standard_normal(ed_scores.shape)
    ed_mixed = run("_contrib_interleaved_matmul_encdec_valatt", kv, ed_att, heads=h)[0]
    for i in range(b):
        for j in range(h):
            k = i * h + j
            np.testing.assert_allclose(scores[k], r[:, i, j, 0] @ r[:, i, j, 1].T / np.sqrt(d))
            np.testing.assert_allclose(mixed[:, i, j * d:(j + 1) * d], att[k] @ r[:, i, j, 2])
            np.testing.assert_allclose(ed_scores[k], rq[:, i, j] @ rkv[:, i, j, 0].T / np.sqrt(d))
            np.testing.assert_allclose(ed_mixed[:, i, j * d:(j + 1) * d],
                                       ed_att[k] @ rkv[:, i, j, 1])
    check_grad("_contrib_interleaved_matmul_selfatt_qk", [qkv], dict(heads=h))
    check_grad("_contrib_interleaved_matmul_selfatt_valatt", [qkv, att], dict(heads=h))
    check_grad("_contrib_interleaved_matmul_encdec_qk", [queries, kv], dict(heads=h))
    check_grad("_contrib_interleaved_matmul_encdec_valatt", [kv, ed_att], dict(heads=h))


def test_nd_contrib_allclose_is_a_0d_array_that_formats_as_an_integer():
    a = mx.nd.array([1.0, 2.0])
    out = mx.nd.contrib.allclose(a, a + 1e-9)
    assert out.shape == () and "{:d}".format(out.asnumpy() == 1) == "1"
    assert mx.nd.contrib.allclose(a, a + 1).asscalar() == 0


def test_quantize_and_dequantize_int8_and_uint8_as_mxnet():
    a = mx.nd.array([[0.1392, 0.5928], [0.6027, -0.8579]])
    lo, hi = mx.nd.array([-0.5]), mx.nd.array([1.0])
    q, qlo, qhi = mx.nd.contrib.quantize(a, lo, hi, out_type="int8")
    assert q.dtype == np.int8 and (qlo.asscalar(), qhi.asscalar()) == (-1.0, 1.0)
    np.testing.assert_array_equal(q.asnumpy(), [[18, 75], [77, -109]])   # |x| * 127 + 0.5
    back = mx.nd.contrib.dequantize(q, qlo, qhi).asnumpy()
    np.testing.assert_allclose(back, q.asnumpy() / 127.0, rtol=1e-6)
    u, ulo, uhi = mx.nd.contrib.quantize(a, lo, hi, out_type="uint8")
    x = a.asnumpy().astype(np.float64)
    np.testing.assert_array_equal(u.asnumpy(), np.trunc(np.clip((x + 0.5) * 170 + 0.5, 0, 255)))
    np.testing.assert_allclose(mx.nd.contrib.dequantize(u, ulo, uhi).asnumpy(),
                               u.asnumpy() / 170.0 - 0.5, rtol=1e-6)
    with pytest.raises(ValueError, match="out_type='int4' must be 'int8' or 'uint8'"):
        mx.nd.contrib.quantize(a, lo, hi, out_type="int4")
