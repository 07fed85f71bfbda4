"""Every push path gives its ops a dependency record, on both engines.

The engine builds one record per op (``observer.op_dep``, whatever ``attrs`` the pusher
gave: none, input shapes, a layer's name, a bulk segment's nodes), so a new push path
cannot forget the dependency tail. This drives each path one by one and checks that every ``operator`` slice it recorded carries
``args.dep`` beside the attributes the path gave it.
"""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn

import proftools as pt


def _imperative():
    a = mx.nd.ones((4, 4))
    (mx.nd.dot(a, a) + 1).wait_to_read()


def _layer_forward_backward_update():
    net = nn.Dense(3, activation="relu", in_units=4)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = mx.nd.ones((2, 4))
    with autograd.record():
        loss = gluon.loss.L2Loss()(net(x), mx.nd.zeros((2, 3)))
    loss.backward()
    trainer.step(2)
    mx.nd.waitall()


def _hybridized():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    with autograd.record():
        y = net(x)
    y.backward()
    mx.nd.waitall()


def _executor(bulk):
    def run():
        x = mx.sym.var("x")
        y = mx.sym.exp(mx.sym.relu(x, name="r0") * 2, name="e0")
        ex = y.simple_bind(mx.cpu(), x=(3,))
        ex.arg_dict["x"][:] = 1
        ex.forward(is_train=True)
        ex.backward(mx.nd.ones((3,)))
        mx.nd.waitall()
    return run, bulk


def _optimizers():
    for opt in (mx.optimizer.create("adam", learning_rate=0.1),
                mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9),
                mx.optimizer.create("nag", learning_rate=0.1, momentum=0.9)):
        mx.optimizer.get_updater(opt)(0, mx.nd.ones((3,)), mx.nd.ones((3,)))
    mp = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, multi_precision=True)
    upd = mx.optimizer.get_updater(mp)
    upd(0, mx.nd.ones((3,), dtype="float16"), mx.nd.ones((3,), dtype="float16"))
    mx.nd.waitall()


def _random_and_copies():
    a = mx.nd.random.uniform(shape=(3, 3))
    b = mx.nd.random.normal(shape=(3, 3))
    c = a.copyto(mx.cpu())
    d = b.copy()
    (c + d).wait_to_read()


def _kvstore():
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((2, 2)))
    kv.push(3, [mx.nd.ones((2, 2)), mx.nd.ones((2, 2))])
    out = mx.nd.zeros((2, 2))
    kv.pull(3, out=out)
    out.wait_to_read()


PATHS = {
    "imperative": (_imperative, None),
    "layer forward, backward, update": (_layer_forward_backward_update, None),
    "hybridized graph": (_hybridized, None),
    "executor, bulked": _executor(True),
    "executor, one op per node": _executor(False),
    "optimizers": (_optimizers, None),
    "random ops and copies": (_random_and_copies, None),
    "kvstore": (_kvstore, None),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_operator_slice_carries_its_dependency_record(path, prof, engine, monkeypatch):
    fn, bulk = PATHS[path]
    if bulk is not None:
        for var in ("XPROF_EXEC_BULK_EXEC_TRAIN", "XPROF_EXEC_BULK_EXEC_INFERENCE"):
            monkeypatch.setenv(var, "1" if bulk else "0")
    fn()   # once unprofiled: deferred shapes, graphs built, state created
    prof.start(profile_all=True)
    fn()
    doc = prof.finish()
    pt.check_document(doc)
    ops = pt.events(doc, "X", cat="operator")
    assert ops, "nothing recorded"
    missing = [(e["name"], e.get("args")) for e in ops if "dep" not in e.get("args", {})]
    assert not missing
    for e in ops:
        p, q, tid, *variables = e["args"]["dep"]
        assert p >= q >= 0 and type(tid) is int
        assert variables and all(type(v) is int and v != 0 for v in variables)
    if path == "layer forward, backward, update":
        layered = {e["name"] for e in ops if "name" in e["args"]}
        assert {"FullyConnected", "_backward_FullyConnected"} <= layered
        assert "multi_sgd_update" in {e["name"] for e in ops}   # aggregated, as MXNet
    assert any("Input Dims" in e["args"] for e in ops)
    if path == "executor, bulked":
        assert any("nodes" in e["args"] for e in ops)
    assert np.isfinite([e["dur"] for e in ops]).all()
