"""Tests of NAG, RMSProp (plain and centered) and Signum/signSGD in runtime/optimizer/
and their update operators in runtime/ops/optim.py, against the update rules written
out here in numpy (MXNet's reference implementations in its own tests)."""
import numpy as np
import pytest

import xprof.runtime as mx


def steps(opt, n=3, seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    grads = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(n)]
    w = mx.nd.array(w0)
    updater = mx.optimizer.get_updater(opt)
    for g in grads:
        updater(0, mx.nd.array(g), w)
    return w0.astype(np.float64), grads, w.asnumpy()


def prep(g, rescale, clip):
    g = g * rescale
    return np.clip(g, -clip, clip) if clip is not None else g


@pytest.mark.parametrize("momentum,wd,clip", [(0.9, 0.0, None), (0.5, 0.1, 0.3), (0.0, 0.1,
                                                                                  None)])
def test_nag(momentum, wd, clip):
    opt = mx.optimizer.create("nag", learning_rate=0.1, momentum=momentum, wd=wd,
                              clip_gradient=clip, rescale_grad=0.5)
    w, grads, got = steps(opt)
    mom = np.zeros_like(w)
    for g in grads:
        g = prep(g, 0.5, clip) + wd * w
        if momentum == 0:
            w = w - 0.1 * g
            continue
        w = w + momentum ** 2 * mom - 0.1 * (1 + momentum) * g
        mom = momentum * mom - 0.1 * g
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("centered,clip,clip_weights", [(False, None, None),
                                                        (False, 0.4, 0.5), (True, None, None),
                                                        (True, 0.5, 0.6)])
def test_rmsprop(centered, clip, clip_weights):
    opt = mx.optimizer.RMSProp(learning_rate=0.01, gamma1=0.9, gamma2=0.8, centered=centered,
                               clip_gradient=clip, clip_weights=clip_weights, wd=0.05,
                               rescale_grad=0.8)
    w, grads, got = steps(opt)
    n, gm, delta = (np.zeros_like(w) for _ in range(3))
    for g in grads:
        g = g * 0.8 + 0.05 * w
        if clip is not None:
            g = np.clip(g, -clip, clip)
        n = 0.1 * g * g + 0.9 * n
        if centered:
            gm = 0.1 * g + 0.9 * gm
            delta = 0.8 * delta - 0.01 * g / np.sqrt(n - gm * gm + 1e-8)
            w = w + delta
        else:
            w = w - 0.01 * g / np.sqrt(n + 1e-8)
        if clip_weights:
            w = np.clip(w, -clip_weights, clip_weights)
    np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("momentum,clip", [(0.9, None), (0.9, 0.2), (0.0, None)])
def test_signum_and_signsgd(momentum, clip):
    opt = mx.optimizer.Signum(learning_rate=0.1, momentum=momentum, wd=0.2, wd_lh=0.05,
                              clip_gradient=clip)
    w, grads, got = steps(opt)
    mom = np.zeros_like(w)
    for g in grads:
        if momentum == 0:
            w = (1 - 0.1 * (0.2 + 0.05)) * w - 0.1 * np.sign(g)
            continue
        mom = momentum * mom - (1 - momentum) * (0.2 * w + prep(g, 1.0, clip))
        w = (1 - 0.1 * 0.05) * w + 0.1 * np.sign(mom)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_trainer_steps_are_one_named_update_op_per_parameter():
    net = mx.gluon.nn.Dense(2, in_units=3, prefix="fc_")
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), "rmsprop",
                               {"learning_rate": 0.01, "centered": True})
    with mx.autograd.record():
        loss = net(mx.nd.ones((2, 3))).sum()
    loss.backward()
    before = net.weight.data().asnumpy()
    trainer.step(2)
    assert not np.allclose(net.weight.data().asnumpy(), before)



def test_nd_update_functions_update_their_states_in_place():
    w, g, n = mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.zeros((2,))
    out = mx.nd.rmsprop_update(w, g, n, lr=0.1, gamma1=0.5)
    np.testing.assert_allclose(n.asnumpy(), 0.5)
    np.testing.assert_allclose(out.asnumpy(), 1 - 0.1 / np.sqrt(0.5 + 1e-8), rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), 1)          # out=None: a new weight array
    mom = mx.nd.zeros((2,))
    mx.nd.signum_update(w, g, mom, out=w, lr=0.1, momentum=0.5)
    np.testing.assert_allclose(mom.asnumpy(), -0.5)
    np.testing.assert_allclose(w.asnumpy(), 0.9)
