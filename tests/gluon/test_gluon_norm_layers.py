"""Tests of runtime/gluon/nn/norm_layers.py, and of Embedding and Conv*DTranspose.

BatchNorm's running statistics are checked against numpy through a training forward
(imperative and hybridized alike), a predict-mode forward (unchanged) and
``use_global_stats``; the other layers against their operators' formulas.
"""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.gluon import nn


def batch(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("hybridize", [False, True])
def test_batchnorm_running_statistics_follow_training_only(hybridize):
    bn = nn.BatchNorm(momentum=0.8)
    bn.initialize()
    if hybridize:
        bn.hybridize()
    xs = batch(6, 3, 2, 2)
    y = bn(mx.nd.array(xs))                                  # predict mode
    np.testing.assert_allclose(y.asnumpy(), xs / np.sqrt(1 + 1e-5), rtol=1e-5)
    assert bn.gamma.shape == bn.running_mean.shape == (3,)
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0)
    with mx.autograd.record():
        y = bn(mx.nd.array(xs))
    m, v = xs.mean(axis=(0, 2, 3)), xs.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y.asnumpy().mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0.2 * m, rtol=1e-4)
    np.testing.assert_allclose(bn.running_var.data().asnumpy(), 0.8 + 0.2 * v, rtol=1e-4)
    with mx.autograd.train_mode():
        bn(mx.nd.array(xs))
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0.36 * m, rtol=1e-4)


def test_batchnorm_use_global_stats_and_no_scale():
    bn = nn.BatchNorm(use_global_stats=True, scale=False, in_channels=2)
    bn.initialize()
    assert bn.gamma.grad_req == "null" and bn.running_var.grad_req == "null"
    xs = batch(4, 2)
    with mx.autograd.record():
        y = bn(mx.nd.array(xs))
    np.testing.assert_allclose(y.asnumpy(), xs / np.sqrt(1 + 1e-5), rtol=1e-5)
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0)
    assert "fix_gamma=True" in repr(bn) and "in_channels=2" in repr(bn)


def test_resnet_like_block_trains_and_hybridized_matches():
    def make():
        net = nn.HybridSequential(prefix="net_")
        with net.name_scope():
            net.add(nn.Conv2D(4, 3, padding=1, use_bias=False), nn.BatchNorm(),
                    nn.Activation("relu"), nn.Conv2DTranspose(2, 4, strides=2, padding=1),
                    nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(3))
        return net

    xs, target = batch(2, 3, 5, 5), batch(2, 3, seed=1)
    results = []
    for hybridize in (False, True):
        mx.random.seed(7)
        net = make()
        net.initialize(mx.init.Xavier())
        if hybridize:
            net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
        losses = []
        for _ in range(3):
            with mx.autograd.record():
                loss = (net(mx.nd.array(xs)) - mx.nd.array(target)).square().sum()
            loss.backward()
            trainer.step(2)
            losses.append(float(loss.asscalar()))
        results.append((losses, net[1].running_mean.data().asnumpy()))
        assert net[3].weight.shape == (4, 2, 4, 4)
    assert results[0][0][-1] < results[0][0][0]
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-4)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-4, atol=1e-6)


def test_conv_transpose_shapes_and_output_padding():
    layer = nn.Conv2DTranspose(5, 3, strides=2, padding=1, output_padding=1, in_channels=2)
    layer.initialize()
    assert layer.weight.shape == (2, 5, 3, 3)
    assert layer(mx.nd.ones((1, 2, 4, 4))).shape == (1, 5, 8, 8)
    one = nn.Conv1DTranspose(3, 2, use_bias=False)
    one.initialize()
    assert one(mx.nd.ones((2, 4, 5))).shape == (2, 3, 6)
    assert one.weight.shape == (4, 3, 2)
    assert repr(one).startswith("Conv1DTranspose(4 -> 3")


def test_embedding_layer_and_its_gradient():
    emb = nn.Embedding(6, 2)
    emb.initialize()
    x = mx.nd.array([[1, 3], [3, 5]])
    with mx.autograd.record():
        y = emb(x)
    y.backward()
    w = emb.weight.data().asnumpy()
    np.testing.assert_allclose(y.asnumpy(), w[[[1, 3], [3, 5]]])
    np.testing.assert_allclose(emb.weight.grad().asnumpy()[:, 0], [0, 1, 0, 2, 0, 1])
    assert repr(emb) == "Embedding(6 -> 2, float32)"
    sparse = nn.Embedding(6, 2, sparse_grad=True)      # a row_sparse gradient, as MXNet
    sparse.initialize()
    with mx.autograd.record():
        y = sparse(x)
    y.backward()
    assert sparse.weight.grad().stype == "row_sparse"
    np.testing.assert_array_equal(sparse.weight.grad().indices.asnumpy(), [1, 3, 5])


def test_layer_instance_group_norm_layers_normalize():
    xs = batch(2, 4, 3)
    for layer, axes in ((nn.LayerNorm(), (2,)), (nn.InstanceNorm(), (2,)),
                        (nn.GroupNorm(num_groups=4), (2,))):
        layer.initialize()
        y = layer(mx.nd.array(xs)).asnumpy()
        np.testing.assert_allclose(y.mean(axis=axes), 0, atol=1e-5)
        np.testing.assert_allclose(y.var(axis=axes), 1, rtol=1e-2)
    assert nn.GroupNorm(num_groups=4).gamma.shape == (4,)
    with pytest.raises(ValueError, match="axis=2 is not supported"):
        nn.InstanceNorm(axis=2)
