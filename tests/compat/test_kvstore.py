"""mx.kv (runtime/kvstore.py): local stores, push sums, pull copies, updaters."""
import numpy as np
import pytest

import xprof.runtime as mx


def test_push_sums_and_pull_copies():
    kv = mx.kv.create("local")
    kv.init([3, 5], [mx.nd.zeros((2, 2))] * 2)
    kv.push(3, [mx.nd.ones((2, 2)), mx.nd.ones((2, 2)) * 2])
    outs = [mx.nd.empty((2, 2)), mx.nd.empty((2, 2))]
    kv.pull(3, out=outs)
    assert all(o.asnumpy().tolist() == [[3, 3], [3, 3]] for o in outs)
    out = mx.nd.empty((2, 2))
    kv.pull(5, out=out)
    assert out.asnumpy().sum() == 0 and kv.type == "local" and kv.num_workers == 1


def test_updater_and_optimizer_update_the_stored_value():
    kv = mx.kv.create("device")
    kv.init("w", mx.nd.ones((3,)))
    kv._set_updater(lambda key, grad, stored: stored.__isub__(grad * 0.5))
    kv.push("w", mx.nd.ones((3,)))
    out = mx.nd.empty((3,))
    kv.pull("w", out=out)
    np.testing.assert_allclose(out.asnumpy(), [0.5] * 3)
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv.push("w", mx.nd.ones((3,)))
    kv.pull("w", out=out)
    np.testing.assert_allclose(out.asnumpy(), [0.4] * 3, rtol=1e-6)


def test_errors_name_the_problem():
    kv = mx.kv.create()
    kv.init(1, mx.nd.zeros((1,)))
    with pytest.raises(ValueError, match="mixes str keys"):
        kv.init("a", mx.nd.zeros((1,)))
    with pytest.raises(ValueError, match="not initialized"):
        kv.pull(2, out=mx.nd.zeros((1,)))
    with pytest.raises(NotImplementedError, match="dist_sync"):
        mx.kv.create("dist_sync")
    with pytest.raises(NotImplementedError, match="row_sparse_pull"):
        kv.row_sparse_pull(1, out=mx.nd.zeros((1,)), row_ids=mx.nd.zeros((1,)))
