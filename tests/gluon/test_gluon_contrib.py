"""gluon.contrib.nn: Concurrent/HybridConcurrent concatenate their children's outputs,
SyncBatchNorm is BatchNorm on one device, SparseEmbedding is refused."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn
from xprof.runtime.gluon.contrib import nn as cnn


@pytest.mark.parametrize("cls, hybridize", [(cnn.Concurrent, False),
                                            (cnn.HybridConcurrent, False),
                                            (cnn.HybridConcurrent, True)])
def test_concurrent_concatenates_children_outputs(cls, hybridize):
    net = cls(axis=1)
    net.add(nn.Dense(3, in_units=4), cnn.Identity(), nn.Dense(2, in_units=4))
    net.initialize()
    if hybridize:
        net.hybridize()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    d0, d2 = net[0], net[2]
    want = np.concatenate([x @ d0.weight.data().asnumpy().T + d0.bias.data().asnumpy(), x,
                           x @ d2.weight.data().asnumpy().T + d2.bias.data().asnumpy()],
                          axis=1)
    xa = mx.nd.array(x)
    xa.attach_grad()
    with autograd.record():
        out = net(xa)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    grad = (np.ones((5, 3)) @ d0.weight.data().asnumpy() + 1
            + np.ones((5, 2)) @ d2.weight.data().asnumpy())
    np.testing.assert_allclose(xa.grad.asnumpy(), grad, rtol=1e-5)


def test_sync_batchnorm_is_batchnorm_on_one_device():
    x = mx.nd.array(np.random.default_rng(1).uniform(size=(8, 3, 4)))
    bn, sbn = nn.BatchNorm(in_channels=3), cnn.SyncBatchNorm(in_channels=3, num_devices=1)
    bn.initialize()
    sbn.initialize(ctx=[mx.cpu(0)])
    with autograd.record():
        a, b = bn(x), sbn(x)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    xs = x.asnumpy()
    mean = xs.mean(axis=(0, 2))
    np.testing.assert_allclose(sbn.running_mean.data().asnumpy(), 0.1 * mean, rtol=1e-5)
    assert isinstance(sbn, nn.BatchNorm)
    with pytest.raises(ValueError, match="num_devices=2"):
        cnn.SyncBatchNorm(num_devices=2)


def test_sparse_embedding_has_a_row_sparse_gradient():
    layer = cnn.SparseEmbedding(10, 4)
    layer.initialize()
    with mx.autograd.record():
        y = layer(mx.nd.array([3, 1, 3]))
    y.backward()
    g = layer.weight.grad()
    assert g.stype == "row_sparse"
    np.testing.assert_array_equal(g.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(g.asnumpy()[3], [2, 2, 2, 2])


def test_reductions_take_exclude_as_methods():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = mx.nd.array(x).mean(axis=1, exclude=True, keepdims=True)
    np.testing.assert_allclose(got.asnumpy(), x.mean(axis=(0, 2), keepdims=True))
    assert mx.nd.array(x).sum(axis=(0, 2), exclude=True).asnumpy().tolist() == \
        x.sum(axis=1).tolist()


@pytest.mark.parametrize("hybridize", [False, True])
def test_pixel_shuffle_regroups_channels_into_pixels(hybridize):
    """Output pixel (h*f1 + i, w*f2 + j) of channel c is input channel c*f1*f2 + i*f2 + j
    at (h, w): the sub-pixel layout of the paper MXNet's layer cites."""
    x = np.arange(1 * 12 * 2 * 3, dtype=np.float32).reshape(1, 12, 2, 3)
    layer = cnn.PixelShuffle2D((2, 3))
    if hybridize:
        layer.hybridize()
    out = layer(mx.nd.array(x)).asnumpy()
    assert out.shape == (1, 2, 4, 9)
    for c in range(2):
        for h in range(4):
            for w in range(9):
                src = c * 6 + (h % 2) * 3 + (w % 3)
                assert out[0, c, h, w] == x[0, src, h // 2, w // 3]
    y = np.arange(2 * 6 * 4, dtype=np.float32).reshape(2, 6, 4)
    out1 = cnn.PixelShuffle1D(3)(mx.nd.array(y)).asnumpy()
    assert out1.shape == (2, 2, 12)
    assert out1[1, 1, 7] == y[1, 1 * 3 + 7 % 3, 7 // 3]
    z = np.arange(1 * 8 * 2 * 2 * 2, dtype=np.float32).reshape(1, 8, 2, 2, 2)
    out3 = cnn.PixelShuffle3D(2)(mx.nd.array(z)).asnumpy()
    assert out3.shape == (1, 1, 4, 4, 4)
    assert out3[0, 0, 3, 2, 1] == z[0, 1 * 4 + 0 * 2 + 1, 1, 1, 0]
    assert repr(cnn.PixelShuffle2D(3)) == "PixelShuffle2D((3, 3))"
