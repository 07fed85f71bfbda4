"""Optimizer update ops, the Trainer, losses and metrics."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn


def _nd(a):
    return mx.nd.array(np.asarray(a, dtype=np.float32))


# -- update operators ----------------------------------------------------------------------
def test_sgd_update_op():
    w, g = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -9.0])
    out = mx.nd.sgd_update(_nd(w), _nd(g), lr=0.1, wd=0.01, rescale_grad=0.5,
                           clip_gradient=1.0)
    ref = w - 0.1 * (np.clip(0.5 * g, -1, 1) + 0.01 * w)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6)


def test_sgd_mom_update_updates_momentum_in_place():
    w, g = _nd([1.0, 2.0]), _nd([1.0, -1.0])
    mom = mx.nd.zeros(2)
    for _ in range(2):
        mx.nd.sgd_mom_update(w, g, mom, out=w, lr=0.1, momentum=0.9)
    # mom1 = -0.1 g ; w1 = w0 + mom1 ; mom2 = 0.9 mom1 - 0.1 g ; w2 = w1 + mom2
    np.testing.assert_allclose(mom.asnumpy(), [-0.19, 0.19], rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), [0.71, 2.29], rtol=1e-6)


def test_adam_matches_reference():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(5).astype(np.float32)
    grads = rng.standard_normal((3, 5)).astype(np.float32)
    opt = mx.optimizer.Adam(learning_rate=0.01, wd=0.1)
    upd = mx.optimizer.get_updater(opt)
    w = _nd(w0)
    for g in grads:
        upd(0, _nd(g), w)
    m = v = np.zeros(5)
    ref = w0.astype(np.float64)
    for t, g in enumerate(grads, 1):
        g = g + 0.1 * ref
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        lr = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        ref = ref - lr * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5)


# -- Trainer ----------------------------------------------------------------------------------
def _dense():
    d = nn.Dense(2, in_units=3)
    d.initialize(mx.init.One())
    return d


def test_trainer_sgd_step_scales_by_batch_size():
    d = _dense()
    tr = gluon.Trainer(d.collect_params(), "sgd", {"learning_rate": 0.5, "wd": 0.1})
    x = _nd(np.ones((4, 3)))
    with autograd.record():
        y = d(x).sum()
    y.backward()
    tr.step(4)
    # dL/dW = sum over batch of x = 4 -> /4 = 1 ; w = 1 - 0.5 * (1 + 0.1 * 1)
    np.testing.assert_allclose(d.weight.data().asnumpy(), np.full((2, 3), 0.45), rtol=1e-6)
    np.testing.assert_allclose(d.bias.data().asnumpy(), np.full(2, -0.5), rtol=1e-6)
    assert tr.learning_rate == 0.5
    tr.set_learning_rate(0.1)
    assert tr.learning_rate == 0.1


def test_trainer_pushes_one_update_op_per_parameter(profile):
    d = _dense()
    tr = gluon.Trainer(d.collect_params(), "adam")
    with autograd.record():
        y = d(_nd(np.ones((2, 3)))).sum()
    y.backward()
    mx.nd.waitall()
    with profile() as p:
        tr.step(2)
    updates = [e for e in p.events("operator") if e["name"] == "adam_update"]
    assert sorted(e["args"]["name"] for e in updates) == sorted(
        d.collect_params().keys())


def _mlp_step(momentum, size, monkeypatch, dtype="float32", multi_precision=False):
    """Three Dense layers (6 weights) after two Trainer steps with SGD: the weights."""
    if size is None:
        monkeypatch.delenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", raising=False)
    else:
        monkeypatch.setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", str(size))
    mx.random.seed(0)
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), nn.Dense(5, in_units=4), nn.Dense(2, in_units=5))
    net.initialize(mx.init.Uniform(0.5))
    if dtype != "float32":
        net.cast(dtype)
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "wd": 0.01,
                                                     "momentum": momentum,
                                                     "multi_precision": multi_precision})
    x = mx.nd.array(np.arange(6).reshape(2, 3) / 6, dtype=dtype)
    for _ in range(2):
        with autograd.record():
            y = net(x).sum()
        y.backward()
        tr.step(2)
    mx.nd.waitall()
    return [p.data().asnumpy().astype(np.float64) for p in net.collect_params().values()]


@pytest.mark.parametrize("momentum, op", [(0.0, "multi_sgd_update"),
                                          (0.9, "multi_sgd_mom_update")])
def test_sgd_aggregates_updates_as_mxnet(profile, monkeypatch, momentum, op):
    """MXNet 1.9.1's Updater hands SGD the weights in chunks of
    MXNET_OPTIMIZER_AGGREGATION_SIZE (default 4): 6 weights are 2 ops, with the same
    values as one update op per weight (size 0)."""
    with profile() as p:
        aggregated = _mlp_step(momentum, None, monkeypatch)
    names = [e["name"] for e in p.events("operator") if "sgd" in e["name"]]
    assert names == [op] * 4                      # 2 steps, 6 weights in chunks of 4 + 2
    with profile() as p:
        single = _mlp_step(momentum, 0, monkeypatch)
    names = [e["name"] for e in p.events("operator") if "sgd" in e["name"]]
    assert names == [op.replace("multi_", "")] * 12
    for a, b in zip(aggregated, single):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with profile() as p:
        _mlp_step(momentum, 1, monkeypatch)
    assert [e["name"] for e in p.events("operator") if "sgd" in e["name"]] == [op] * 12


def test_float16_weights_aggregate_through_their_master_copies(profile, monkeypatch):
    with profile() as p:
        half = _mlp_step(0.9, None, monkeypatch, "float16", multi_precision=True)
    names = [e["name"] for e in p.events("operator") if "sgd" in e["name"]]
    assert names == ["multi_mp_sgd_mom_update"] * 4
    full = _mlp_step(0.9, None, monkeypatch)
    for a, b in zip(half, full):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)


def test_trainer_lr_mult_and_null_grad_params():
    d = _dense()
    d.bias.lr_mult = 0.0
    d.weight.grad_req = "null"
    tr = gluon.Trainer(d.collect_params(), "sgd", {"learning_rate": 1.0})
    with autograd.record():
        y = d(_nd(np.ones((1, 3)))).sum()
    y.backward()
    tr.step(1)
    assert (d.weight.data().asnumpy() == 1).all()
    assert not d.bias.data().asnumpy().any()      # zero-initialized, lr_mult 0


def test_trainer_states_round_trip(tmp_path):
    d = _dense()
    tr = gluon.Trainer(d.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    with autograd.record():
        y = d(_nd(np.ones((1, 3)))).sum()
    y.backward()
    tr.step(1)
    path = str(tmp_path / "t.states")
    tr.save_states(path)
    tr2 = gluon.Trainer(d.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    tr2.load_states(path)
    np.testing.assert_allclose(tr2._updaters[0].states[0].asnumpy(),
                               tr._updaters[0].states[0].asnumpy())


def test_trainer_rejects_bad_arguments():
    with pytest.raises(ValueError, match="not known"):
        gluon.Trainer(_dense().collect_params(), "nosuchopt")
    with pytest.raises(ValueError, match="Parameter"):
        gluon.Trainer([1, 2], "sgd")


# -- losses ------------------------------------------------------------------------------------
def test_softmax_cross_entropy_and_l2_losses():
    rng = np.random.default_rng(0)
    pred = rng.standard_normal((4, 5)).astype(np.float32)
    label = np.array([0, 3, 4, 1], dtype=np.float32)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()(_nd(pred), _nd(label)).asnumpy()
    logp = pred - np.log(np.exp(pred).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss, -logp[np.arange(4), label.astype(int)], rtol=1e-5)
    dense = np.eye(5, dtype=np.float32)[label.astype(int)]
    loss2 = gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(_nd(pred), _nd(dense))
    np.testing.assert_allclose(loss2.asnumpy(), loss, rtol=1e-5)
    target = rng.standard_normal((4, 5)).astype(np.float32)
    l2 = gluon.loss.L2Loss()(_nd(pred), _nd(target)).asnumpy()
    np.testing.assert_allclose(l2, ((pred - target) ** 2 / 2).mean(axis=1), rtol=1e-5)
    x = _nd(pred)
    x.attach_grad()
    with autograd.record():
        out = gluon.loss.SoftmaxCrossEntropyLoss()(x, _nd(label))
    out.backward()
    sm = np.exp(logp)
    sm[np.arange(4), label.astype(int)] -= 1
    np.testing.assert_allclose(x.grad.asnumpy(), sm, rtol=1e-5, atol=1e-6)


def test_hybridized_loss_matches_imperative():
    rng = np.random.default_rng(1)
    pred, label = _nd(rng.standard_normal((3, 4))), _nd([1, 0, 3])
    lf = gluon.loss.SoftmaxCrossEntropyLoss()
    a = lf(pred, label).asnumpy()
    lf.hybridize()
    np.testing.assert_allclose(lf(pred, label).asnumpy(), a, rtol=1e-6)


# -- metrics -----------------------------------------------------------------------------------
def test_accuracy_and_friends():
    acc = mx.metric.Accuracy()
    acc.update(_nd([0, 1, 2]), _nd([[0.9, 0.1, 0], [0.2, 0.7, 0.1], [0.5, 0.4, 0.1]]))
    assert acc.get() == ("accuracy", pytest.approx(2 / 3))
    acc.update([_nd([1])], [_nd([1])])
    assert acc.get()[1] == pytest.approx(3 / 4)
    acc.reset()
    assert np.isnan(acc.get()[1])
    top2 = mx.metric.create("top_k_accuracy", top_k=2)
    top2.update(_nd([2]), _nd([[0.5, 0.1, 0.4]]))
    assert top2.get()[1] == 1.0
    mse = mx.metric.MSE()
    mse.update(_nd([1, 2]), _nd([1, 4]))
    assert mse.get()[1] == pytest.approx(2.0)
    comp = mx.metric.create(["acc", "ce"])
    comp.update(_nd([0]), _nd([[0.8, 0.2]]))
    names, values = comp.get()
    assert names == ["accuracy", "cross-entropy"]
    assert values[1] == pytest.approx(-np.log(0.8), rel=1e-5)
    with pytest.raises(ValueError, match="label arrays"):
        acc.update([_nd([1]), _nd([1])], [_nd([1])])


def test_trainer_step_before_first_forward_names_the_deferred_parameter():
    net = nn.Dense(3)
    net.initialize()
    tr = gluon.Trainer(net.collect_params(), "sgd")
    with pytest.raises(gluon.DeferredInitializationError, match=net.weight.name):
        tr.step(1)
