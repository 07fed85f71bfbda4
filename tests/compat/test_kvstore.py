"""Tests of runtime/kvstore.py (``mx.kv``) and of gluon.Trainer's ``kvstore=``."""
import numpy as np
import pytest

import xprof.runtime as mx


def full(value, shape=(2, 3), ctx=None):
    return mx.nd.ones(shape, ctx=ctx) * value


@pytest.mark.parametrize("kind", ["local", "device", "local_allreduce_cpu"])
def test_init_push_aggregates_pull_copies(kind):
    kv = mx.kv.create(kind)
    assert (kv.type, kv.rank, kv.num_workers) == (kind, 0, 1)
    kv.init(3, full(0))
    kv.init([5, 7], [full(1), full(2)])
    out = mx.nd.zeros((2, 3))
    kv.pull(7, out=out)
    np.testing.assert_array_equal(out.asnumpy(), 2)
    kv.push(3, [full(1, ctx=mx.cpu(i)) for i in range(4)])      # summed over "devices"
    outs = [mx.nd.zeros((2, 3)) for _ in range(2)]
    kv.pull(3, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), 4)
    kv.push([5, 7], [[full(2), full(3)], full(9)])
    a, b = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    kv.pull([5, 7], out=[a, b])
    np.testing.assert_array_equal(a.asnumpy(), 5)          # replaced by the sum
    np.testing.assert_array_equal(b.asnumpy(), 9)


def test_init_stores_a_copy_and_pushpull():
    kv = mx.kv.create()
    v = full(4)
    kv.init("w", v)
    v += 1                                                  # the stored value is a copy
    out = mx.nd.zeros((2, 3))
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy(), 4)
    g = full(2)
    kv.pushpull("w", g)                                     # out defaults to the value
    np.testing.assert_array_equal(g.asnumpy(), 2)


def test_updater_and_set_optimizer():
    kv = mx.kv.create()
    kv.init(0, full(1))
    seen = []

    def updater(key, recv, stored):
        seen.append(key)
        stored += recv * 2
    kv._set_updater(updater)
    kv.push(0, [full(1), full(1)])
    out = mx.nd.zeros((2, 3))
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), 5)
    assert seen == [0] and isinstance(seen[0], int)
    sgd = mx.kv.create("device")
    sgd.init("w", full(1.0))
    sgd.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    sgd.push("w", full(1.0))
    sgd.pull("w", out=out)
    np.testing.assert_allclose(out.asnumpy(), 0.5)


def test_bad_input_is_a_value_error_and_an_mxnet_error():
    kv = mx.kv.create()
    kv.init(1, full(0))
    for call, match in [(lambda: kv.init("a", full(0)), "one kind per store"),
                        (lambda: kv.init(1, full(0)), "already initialized"),
                        (lambda: kv.pull(2, out=full(0)), "has not been initialized"),
                        (lambda: kv.push(1, full(0, shape=(3,))), "has shape"),
                        (lambda: kv.row_sparse_pull(1, out=full(0)), "row_sparse"),
                        (lambda: mx.kv.create("horovod"), "not supported"),
                        (lambda: mx.kv.create("nope"), "unknown kvstore type")]:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert isinstance(info.value, mx.base.MXNetError)


@pytest.mark.parametrize("kvstore,on_kv", [("device", None), ("local", True), (None, None)])
def test_trainer_accepts_kvstore_and_updates_alike(kvstore, on_kv):
    def run(kv, on):
        mx.random.seed(1)
        net = mx.gluon.nn.Dense(2, in_units=3)
        net.initialize()
        if isinstance(kv, str) and on:
            kv = mx.kv.create(kv)
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                                   {"learning_rate": 0.1, "momentum": 0.9}, kvstore=kv,
                                   update_on_kvstore=on)
        for _ in range(3):
            with mx.autograd.record():
                loss = net(mx.nd.ones((4, 3))).square().sum()
            loss.backward()
            trainer.step(4)
        return net.weight.data().asnumpy(), trainer
    reference, _ = run(None, None)
    got, trainer = run(kvstore, on_kv)
    np.testing.assert_allclose(got, reference, rtol=1e-6)
    if isinstance(kvstore, str) and not on_kv:
        # MXNet: a type name with a single context means no store (nothing to sum)
        assert trainer._kvstore is None and trainer._update_on_kvstore is None
    elif kvstore is not None:
        assert trainer._kvstore.type == kvstore
        assert trainer._update_on_kvstore is bool(on_kv)
    with pytest.raises(ValueError, match="kvstore=3"):
        mx.gluon.Trainer(mx.gluon.nn.Dense(1).collect_params(), "sgd", kvstore=3)
