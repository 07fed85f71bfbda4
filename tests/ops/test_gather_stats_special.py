"""ops/gather.py, ops/statistics.py, ops/im2col.py, the special functions and
parametrized activations of ops/unary_math.py, shape_array/size_array, broadcast_axis,
and the FTML/FTRL update operators: independent references, gradients by central
differences."""
import math

import numpy as np
import pytest

import xprof.runtime as mx
from test_matrix_ops import check_grad, check_infer, run

RNG = np.random.default_rng(9)


def test_batch_take_gather_nd_scatter_nd():
    a = RNG.standard_normal((4, 5))
    idx = np.array([4.0, 0.0, 2.0, 9.0])       # clipped, as MXNet's batch_take
    np.testing.assert_array_equal(run("batch_take", a, idx)[0], a[np.arange(4), [4, 0, 2, 4]])
    check_grad("batch_take", [a, idx], wrt=[0])
    data = RNG.standard_normal((3, 4, 2))
    ind = np.array([[0, 2, -1], [1, -4, 3]], dtype=np.float64)
    want = data[[0, 2, 2], [1, 0, 3]]
    np.testing.assert_array_equal(run("gather_nd", data, ind)[0], want)
    check_grad("gather_nd", [data, np.array([[0, 0, 2], [1, 1, 3]], dtype=np.float64)],
               wrt=[0])
    scattered = run("scatter_nd", want, ind, shape=(3, 4, 2))[0]
    np.testing.assert_array_equal(scattered[[0, 2, 2], [1, 0, 3]], want)
    with pytest.raises(IndexError, match="out of bounds"):
        run("gather_nd", data, np.array([[0], [4]], dtype=np.float64))
    # through the engine: the IndexError reaches the sync point as an MXNetError
    with pytest.raises(IndexError):
        mx.nd.gather_nd(mx.nd.array(data), mx.nd.array([[0], [4]])).asnumpy()


def test_ravel_and_unravel_with_an_unbounded_leading_dim():
    shape = (3, 4, 5)
    data = np.stack([RNG.integers(0, n, 30) for n in shape]).astype(np.float64)
    flat = run("ravel_multi_index", data, shape=shape)[0]
    np.testing.assert_array_equal(flat, np.ravel_multi_index(data.astype(int), shape))
    np.testing.assert_array_equal(run("ravel_multi_index", data, shape=(-1, 4, 5))[0], flat)
    np.testing.assert_array_equal(run("unravel_index", flat, shape=shape)[0], data)
    np.testing.assert_array_equal(run("unravel_index", flat, shape=(-1, 4, 5))[0], data)


@pytest.mark.parametrize("axes, keepdims", [((1,), False), ((0, 2), True), (None, False)])
def test_moments(axes, keepdims):
    x = RNG.standard_normal((3, 4, 2))
    mean, var = run("moments", x, axes=axes, keepdims=keepdims)
    ax = (0, 1, 2) if axes is None else axes
    np.testing.assert_allclose(mean, np.mean(x, axis=ax, keepdims=keepdims).reshape(mean.shape))
    np.testing.assert_allclose(var, np.var(x, axis=ax, keepdims=keepdims).reshape(var.shape))
    check_grad("moments", [x], dict(axes=axes, keepdims=keepdims))
    check_infer("moments", [x], dict(axes=axes, keepdims=keepdims))


def test_histogram_counts_and_edges():
    x = RNG.uniform(-3, 3, 50)
    counts, edges = mx.nd.histogram(mx.nd.array(x, dtype="float64"), bins=5,
                                    range=(-2.5, 2.5))
    want_c, want_e = np.histogram(x, 5, range=(-2.5, 2.5))
    np.testing.assert_array_equal(counts.asnumpy(), want_c)
    np.testing.assert_allclose(edges.asnumpy(), want_e)
    bins = np.array([-3.0, 0.0, 0.5, 3.0])
    counts, _ = mx.nd.histogram(mx.nd.array(x), bins=mx.nd.array(bins))
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x.astype(np.float32), bins)[0])
    sym = mx.sym.histogram(a=mx.sym.var("data"), bins=5, range=(-2.5, 2.5))
    got = sym.bind(mx.cpu(), {"data": mx.nd.array(x, dtype="float64")}).forward()[0]
    np.testing.assert_array_equal(got.asnumpy(), want_c)


@pytest.mark.parametrize("stride, dilate, pad", [(1, 1, 0), (2, 1, 1), (2, 2, 1)])
def test_im2col_computes_the_convolution_and_col2im_is_its_adjoint(stride, dilate, pad):
    x = RNG.standard_normal((2, 3, 7, 6))
    w = RNG.standard_normal((4, 3, 3, 3))
    p = dict(kernel=(3, 3), stride=(stride,) * 2, dilate=(dilate,) * 2, pad=(pad,) * 2)
    cols = run("im2col", x, **p)[0]
    conv = mx.nd.Convolution(mx.nd.array(x, dtype="float64"), mx.nd.array(w, dtype="float64"),
                             num_filter=4, no_bias=True, **p).asnumpy()
    got = np.einsum("fk,nkl->nfl", w.reshape(4, -1), cols).reshape(conv.shape)
    np.testing.assert_allclose(got, conv, rtol=1e-10, atol=1e-12)
    y = RNG.standard_normal(cols.shape)
    back = run("col2im", y, output_size=(7, 6), **p)[0]
    # <im2col(x), y> == <x, col2im(y)>
    np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-10)
    check_grad("im2col", [x[:1, :1]], p)


def test_special_functions_against_math():
    x = RNG.uniform(0.2, 4, 6)
    np.testing.assert_allclose(run("gamma", x)[0], [math.gamma(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(run("gammaln", x)[0], [math.lgamma(v) for v in x], rtol=1e-12)
    y = RNG.uniform(-2, 2, 6)
    np.testing.assert_allclose(run("erf", y)[0], [math.erf(v) for v in y], rtol=1e-12)
    z = RNG.uniform(-0.99, 0.99, 6)
    np.testing.assert_allclose([math.erf(v) for v in run("erfinv", z)[0]], z, rtol=1e-10)
    for name, v in (("gamma", x), ("gammaln", x), ("erf", y), ("erfinv", z)):
        check_grad(name, [v], rtol=1e-5, atol=1e-8)
    neg = np.array([-0.5, -1.5, -2.7])      # digamma's reflection branch
    check_grad("gammaln", [neg], rtol=1e-5, atol=1e-8)


def test_digamma_poles_as_mxnet():
    # cephes' psi is the largest double at 0, -1, -2...: +inf once it is a float32, so
    # gamma's gradient there is +inf and a zero gradient times gammaln's is nan; in
    # float64 it stays finite (0 * DBL_MAX = 0)
    for dtype, zero_times in (("float32", np.nan), ("float64", 0.0)):
        x = mx.nd.array([0.0, -2.0, 1.0], dtype=dtype)
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.gamma(x)
        y.backward()
        g = x.grad.asnumpy()
        assert g[0] == g[1] == np.inf                                   # inf * psi
        np.testing.assert_allclose(g[2], -0.5772156649, rtol=1e-6)      # gamma(1) psi(1)
        with mx.autograd.record():
            y = mx.nd.gammaln(x)
        y.backward(mx.nd.zeros((3,), dtype=dtype))
        np.testing.assert_array_equal(x.grad.asnumpy()[:2], [zero_times] * 2)


def test_parametrized_activations():
    x = np.array([-3.0, -1.0, -0.2, 0.3, 1.5, 4.0])
    np.testing.assert_allclose(run("hard_sigmoid", x, alpha=0.25, beta=0.5)[0],
                               np.clip(0.25 * x + 0.5, 0, 1))
    check_grad("hard_sigmoid", [x], dict(alpha=0.25, beta=0.5))
    s = 2.0
    want = np.where(np.abs(x) < 1 / s ** 2, 0.5 * (s * x) ** 2, np.abs(x) - 0.5 / s ** 2)
    np.testing.assert_allclose(run("smooth_l1", x, scalar=s)[0], want)
    check_grad("smooth_l1", [x], dict(scalar=s))
    np.testing.assert_allclose(run("log_sigmoid", x)[0], -np.log1p(np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(run("mish", x)[0], x * np.tanh(np.log1p(np.exp(x))),
                               rtol=1e-12)
    check_grad("log_sigmoid", [x])
    check_grad("mish", [x])


def test_shape_size_array_argmax_channel_broadcast_axis():
    x = np.zeros((2, 3, 4))
    np.testing.assert_array_equal(run("shape_array", x)[0], [2, 3, 4])
    np.testing.assert_array_equal(run("size_array", x)[0], [24])
    assert run("shape_array", x)[0].dtype == np.int64
    y = RNG.standard_normal((3, 5))
    np.testing.assert_array_equal(run("argmax_channel", y)[0], y.argmax(-1))
    z = RNG.standard_normal((2, 1, 3, 1))
    out = run("broadcast_axis", z, axis=(1, 3), size=(4, 2))[0]
    np.testing.assert_array_equal(out, np.broadcast_to(z, (2, 4, 3, 2)))
    check_grad("broadcast_axis", [z], dict(axis=(1, 3), size=(4, 2)))
    with pytest.raises(ValueError, match="not 1"):
        run("broadcast_axis", y, axis=0, size=2)


def test_ftml_and_ftrl_updates_follow_their_formulas():
    w, g, d, v, z = (RNG.standard_normal(5) for _ in range(5))
    v = np.abs(v)
    p = dict(lr=0.1, beta1=0.6, beta2=0.999, epsilon=1e-8, t=3, wd=0.01, rescale_grad=0.5,
             clip_grad=0.3)
    nw, nd_, nv, nz = run("ftml_update", w, g, d, v, z, **p)
    gg = np.clip(0.5 * g + 0.01 * w, -0.3, 0.3)
    v2 = 0.999 * v + 0.001 * gg * gg
    d2 = (1 - 0.6 ** 3) / 0.1 * (np.sqrt(v2 / (1 - 0.999 ** 3)) + 1e-8)
    z2 = 0.6 * z + 0.4 * gg - (d2 - 0.6 * d) * w
    np.testing.assert_allclose(nv, v2)
    np.testing.assert_allclose(nd_, d2)
    np.testing.assert_allclose(nz, z2)
    np.testing.assert_allclose(nw, -z2 / d2)
    ftml_w, ftml_v = -z2 / d2, v2
    n = np.abs(RNG.standard_normal(5))
    nw, nz, nn = run("ftrl_update", w, g, z, n, lr=0.1, lamda1=0.01, beta=1.0, wd=0.0)
    n2 = n + g * g
    z2 = z + g - (np.sqrt(n2) - np.sqrt(n)) * w / 0.1
    w2 = np.where(np.abs(z2) > 0.01, (np.sign(z2) * 0.01 - z2) / ((1 + np.sqrt(n2)) / 0.1), 0)
    np.testing.assert_allclose(nn, n2)
    np.testing.assert_allclose(nz, z2)
    np.testing.assert_allclose(nw, w2)
    # mx.nd.ftml_update writes the weight into out= and the states in place
    arrays = [mx.nd.array(a) for a in (w, g, d, v, z)]
    mx.nd.ftml_update(*arrays, out=arrays[0], **p)
    np.testing.assert_allclose(arrays[0].asnumpy(), ftml_w.astype(np.float32), rtol=1e-4)
    np.testing.assert_allclose(arrays[3].asnumpy(), ftml_v.astype(np.float32), rtol=1e-5)


def test_sample_normal_shapes_and_moments():
    mu, sigma = mx.nd.array([10.0]), mx.nd.array([0.5])
    assert mx.nd.sample_normal(mu=mu, sigma=sigma).shape == (1,)
    assert mx.nd.sample_normal(mu=mu, sigma=sigma, shape=()).shape == (1,)
    assert mx.nd.sample_normal(mu=mu, sigma=sigma, shape=1).shape == (1, 1)
    mx.random.seed(7)
    draws = mx.nd.sample_normal(mx.nd.array([0.0, 100.0]), mx.nd.array([1.0, 0.01]),
                                shape=(20000,)).asnumpy()
    np.testing.assert_allclose(draws.mean(1), [0, 100], atol=0.05)
    np.testing.assert_allclose(draws.std(1), [1, 0.01], rtol=0.05)
    mx.random.seed(7)
    again = mx.nd.sample_normal(mx.nd.array([0.0, 100.0]), mx.nd.array([1.0, 0.01]),
                                shape=(20000,)).asnumpy()
    np.testing.assert_array_equal(draws, again)        # the shared, seeded generator
    u = mx.nd.sample_uniform(mx.nd.array([0.0, 5.0]), mx.nd.array([1.0, 6.0]),
                             shape=(1000,)).asnumpy()
    assert (u[0] >= 0).all() and (u[0] < 1).all() and (u[1] >= 5).all() and (u[1] < 6).all()


def test_image_normalize():
    x = RNG.random((2, 3, 4, 4))
    mean, std = (0.1, 0.2, 0.3), (0.5, 1.0, 2.0)
    want = (x - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(run("_image_normalize", x, mean=mean, std=std)[0], want)
    np.testing.assert_allclose(run("_image_normalize", x[0], mean=mean, std=std)[0], want[0])
    check_grad("_image_normalize", [x[:1]], dict(mean=mean, std=std))
    with pytest.raises(ValueError, match="2 values for 3 channels"):
        run("_image_normalize", x, mean=(0, 1), std=1.0)


def test_randint_and_symbolic_random_draw_from_the_seeded_generator():
    mx.random.seed(5)
    a = mx.nd.random.randint(-3, 4, shape=(2000,)).asnumpy()
    assert a.dtype == np.int32 and a.min() == -3 and a.max() == 3
    mx.random.seed(5)
    np.testing.assert_array_equal(mx.nd.random.randint(-3, 4, shape=(2000,)).asnumpy(), a)
    sym = mx.sym.random.normal(2.0, 0.5, (4000,)) + mx.sym.random.uniform(0, 1, (4000,))
    out = sym.bind(mx.cpu(), {}).forward()[0].asnumpy()
    assert abs(out.mean() - 2.5) < 0.05
    with pytest.raises(mx.base.MXNetError, match="scale"):
        # (the kernel checks its parameters: the error surfaces at the sync point)
        mx.sym.random.normal(0, -1, (2, 2)).bind(mx.cpu(), {}).forward()[0].asnumpy()
    with pytest.raises(mx.base.MXNetError, match="low"):
        mx.nd.random.randint(3, 3).asnumpy()
