"""Tests of data parallelism in runtime/gluon/parameter.py and trainer.py: a Parameter
on several contexts, the Trainer summing their gradients (through a kvstore, or the
user's Python store registered with mx.kv.KVStoreBase) and updating every copy, with
the values worked out by hand for SGD with momentum."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon

CTXS = [mx.cpu(0), mx.cpu(1)]


def param(name="x", **kwargs):
    p = gluon.Parameter(name, shape=(4,), **kwargs)
    p.initialize(ctx=CTXS, init="zeros")
    return p


def backward_ones(p, scale=(1.0, 1.0)):
    """d/dw of sum(scale_i * (w_i + 1)) on each copy: the gradient there is scale_i."""
    with autograd.record():
        ys = [(w + 1) * s for w, s in zip(p.list_data(), scale)]
    for y in ys:
        y.backward()


def test_parameter_has_one_copy_and_gradient_per_context():
    p = param()
    assert p.list_ctx() == CTXS
    assert [d.context for d in p.list_data()] == CTXS
    assert p.data(mx.cpu(1)) is p.list_data()[1] and p.data() is p.list_data()[0]
    backward_ones(p, (1.0, 3.0))
    np.testing.assert_array_equal(p.grad(mx.cpu(1)).asnumpy(), np.full(4, 3.0))
    np.testing.assert_array_equal(p.grad(mx.cpu(0)).asnumpy(), np.full(4, 1.0))
    p.set_data(mx.nd.ones((4,)) * 7)
    assert all((d.asnumpy() == 7).all() for d in p.list_data())
    with pytest.raises(RuntimeError, match="cpu\\(2\\)"):
        p.data(mx.cpu(2))


@pytest.mark.parametrize("kvstore,update_on_kvstore", [("device", None), ("local", False),
                                                       (None, None)])
def test_step_sums_gradients_and_updates_every_copy(kvstore, update_on_kvstore):
    p = param()
    tr = gluon.Trainer([p], "sgd", {"learning_rate": 1.0, "momentum": 0.5},
                       kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    backward_ones(p)
    tr.step(1)
    if kvstore is None:         # no store: each copy steps with its own gradient
        expect1, expect2 = -1.0, -1.0 - 0.5 * 1.0 - 1.0
    else:                       # summed gradient 2: w = -2; then mom -1 - 2 = -3, w = -5
        expect1, expect2 = -2.0, -5.0
    for d in p.list_data():
        np.testing.assert_array_equal(d.asnumpy(), np.full(4, expect1))
    backward_ones(p)
    tr.step(1)
    for d in p.list_data():
        np.testing.assert_array_equal(d.asnumpy(), np.full(4, expect2))
    if kvstore is not None:
        assert tr._kvstore.type == kvstore
        assert tr._update_on_kvstore is (update_on_kvstore is None)


def test_allreduce_then_update():
    p = param()
    tr = gluon.Trainer([p], "sgd", {"learning_rate": 1.0}, update_on_kvstore=False)
    backward_ones(p, (0.0, 1.0))
    tr.allreduce_grads()
    for g in p.list_grad():
        np.testing.assert_array_equal(g.asnumpy(), np.full(4, 1.0))
    tr.update(1)
    for d in p.list_data():
        np.testing.assert_array_equal(d.asnumpy(), np.full(4, -1.0))
    on_kv = gluon.Trainer([param("y")], "sgd", update_on_kvstore=True)
    with pytest.raises(AssertionError, match="update_on_kvstore=False"):
        on_kv.allreduce_grads()


def test_user_kvstore_registered_by_name():
    store = mx.kv.create("teststore")
    assert store.type == "teststore" and not store.is_capable("optimizer")
    p = param()
    tr = gluon.Trainer([p], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, kvstore=store)
    backward_ones(p)
    tr.step(1)
    assert tr._update_on_kvstore is False
    np.testing.assert_array_equal(p.data(mx.cpu(1)).asnumpy(), np.full(4, -2.0))
    bad = gluon.Trainer([p], "sgd", kvstore=store, update_on_kvstore=True)
    with pytest.raises(ValueError, match="cannot run an optimizer"):
        bad._init_kvstore()

    @mx.kv.KVStoreBase.register
    class DoubleStore(mx.kv.TestStore):
        def pushpull(self, key, value, out=None, priority=0):
            super().pushpull(key, value, out, priority)
            for v in (value if out is None else out):
                v[:] = v * 2

    q = param("q")
    tr = gluon.Trainer([q], "sgd", {"learning_rate": 1.0}, kvstore=mx.kv.create("doublestore"))
    backward_ones(q)
    tr.step(1)
    np.testing.assert_array_equal(q.data(mx.cpu(1)).asnumpy(), np.full(4, -4.0))


def test_loading_parameters_resets_a_store_holding_the_weights(tmp_path):
    params = gluon.ParameterDict()
    x = params.get("x", shape=(4,))
    params.initialize(ctx=CTXS, init="zeros")
    tr = gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore="local")
    path = str(tmp_path / "p.params")
    params.save(path)
    backward_ones(x)
    tr.step(1)
    assert tr._update_on_kvstore and tr._kv_initialized
    params.load(path)
    assert tr._kvstore is None and tr._kv_initialized is False
    backward_ones(x)
    tr.step(1)                          # from the loaded zeros: -0.1 * 2
    for d in x.list_data():
        np.testing.assert_allclose(d.asnumpy(), np.full(4, -0.2), rtol=1e-6)


def test_states_saved_from_the_store_load_back(tmp_path):
    p = param()
    tr = gluon.Trainer([p], "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    backward_ones(p)
    tr.step(1)
    assert tr._update_on_kvstore
    path = str(tmp_path / "t.states")
    tr.save_states(path)
    before = tr._kvstore._updater.states[0].asnumpy()
    tr.load_states(path)
    np.testing.assert_array_equal(tr._kvstore._updater.states[0].asnumpy(), before)
    p.lr_mult = 2.0                     # the loaded optimizer sees the Parameter again
    assert tr._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.2)


def test_a_sparse_parameter_takes_one_trainer():
    p = gluon.Parameter("s", shape=(4,), stype="row_sparse")
    t0 = gluon.Trainer([p], "sgd")
    assert p._trainer is t0
    with pytest.raises(RuntimeError, match="more than one Trainer"):
        gluon.Trainer([p], "sgd")


@pytest.mark.parametrize("field", ["stype", "grad_stype"])
def test_parameter_refuses_an_unknown_storage_type(field):
    with pytest.raises(ValueError, match=rf"{field}='invalid' is not a storage type; allowed: "
                                         r"'default', 'row_sparse', 'csr'") as info:
        gluon.Parameter("weight", shape=(10, 10), **{field: "invalid"})
    assert isinstance(info.value, AssertionError)   # MXNet's own check is an assert
    assert gluon.Parameter("w", shape=(2,), **{field: "row_sparse"}).name == "w"
