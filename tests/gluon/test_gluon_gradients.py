"""Gradients of Gluon networks against central differences (float64), imperative and
hybridized: every parameter element and the input."""
import numpy as np
import pytest
from gluonhelpers import numerical_grad

import xprof.runtime as mx
from xprof.runtime import autograd
from xprof.runtime.gluon import nn


def _check(net, x_shape, hybridize, seed):
    rng = np.random.default_rng(seed)
    net.cast("float64")
    net.initialize(mx.init.Normal(0.5))
    if hybridize:
        net.hybridize()
    x_np = rng.standard_normal(x_shape)
    x = mx.nd.array(x_np, dtype="float64")
    x.attach_grad()
    out_shape = net(x).shape
    coef = rng.standard_normal(out_shape)
    c = mx.nd.array(coef, dtype="float64")
    with autograd.record():
        loss = (net(x) * c).sum()
    loss.backward()

    def value():
        return float((net(mx.nd.array(x_np, dtype="float64")).asnumpy() * coef).sum())

    params = list(net.collect_params().values())
    assert params
    for p in params:
        values = p.data().asnumpy()
        analytic = p.grad().asnumpy()

        def f(p=p, values=values):
            p.set_data(values)
            return value()
        numeric = numerical_grad(f, values)
        p.set_data(values)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7,
                                   err_msg=f"gradient of {p.name}")
    numeric_x = numerical_grad(value, x_np)
    np.testing.assert_allclose(x.grad.asnumpy(), numeric_x, rtol=1e-5, atol=1e-7,
                               err_msg="gradient of the input")


@pytest.mark.parametrize("hybridize", [False, True])
def test_dense_net_gradients_match_numerical(hybridize):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(5, activation="tanh"), nn.Dense(3, activation="sigmoid",
                                                          use_bias=False),
                nn.Dense(2, flatten=False))
    _check(net, (3, 2, 2), hybridize, seed=1)


@pytest.mark.parametrize("hybridize", [False, True])
def test_conv_net_gradients_match_numerical(hybridize):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, activation="tanh"),
                nn.Conv2D(2, 3, strides=2, padding=1, groups=2),
                nn.MaxPool2D(2, 1), nn.AvgPool2D(1), nn.Flatten(), nn.Dense(2))
    _check(net, (2, 2, 6, 6), hybridize, seed=2)


def test_gradient_check_detects_a_wrong_gradient():
    """The comparison above is not vacuous: a layer with a deliberately wrong gradient
    (the forward doubles, the recorded backward does not) fails it."""

    class Wrong(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return mx.autograd.Function.__call__(_Double(), x)

    class _Double(mx.autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy          # should be 2 * dy

    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3), Wrong())
    with pytest.raises(AssertionError):
        _check(net, (2, 4), False, seed=3)
