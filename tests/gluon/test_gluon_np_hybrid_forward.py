"""MXNet 1.x's ``hybrid_forward(F, ...)`` blocks on ``mx.np`` arrays (MXNet 1.9.1's NumPy
tests are written so): hybridized, their graph is recorded from the first call with
``F = mx.nd`` (``F.np`` is ``mx.np``), one node per operator named after the layer, and
later calls run it through the executor; deferred parameter shapes come from the graph
built on np symbols (``F = mx.sym``, ``F.np`` is ``mx.sym.np``)."""
import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon, np, npx
from xprof.runtime.gluon import _hybrid, nn
from xprof.runtime.gluon.block import reset_name_counters


@pytest.fixture(autouse=True)
def np_mode():
    reset_name_counters()
    npx.set_np()
    yield
    npx.reset_np()


class Net(gluon.HybridBlock):
    """np functions, a legacy operator and a child layer in one hybrid_forward."""

    def __init__(self):
        super().__init__()
        with self.name_scope():
            self.dense = nn.Dense(4)

    def hybrid_forward(self, F, x, y):
        h = F.np.tensordot(x, y, 1)
        return F.npx.relu(self.dense(F.np.sum(h, axis=-1, keepdims=True) * h))


def _graphs(block):
    return [g for g in block._cached.values() if g is not _hybrid._IMPERATIVE]


def _inputs():
    rng = onp.random.default_rng(0)
    return (np.array(rng.uniform(-1, 1, (3, 5))), np.array(rng.uniform(-1, 1, (5, 2))))


def test_hybridized_block_has_a_graph_of_np_operators_named_by_layer():
    net = Net()
    net.initialize()
    net.hybridize()
    x, y = _inputs()
    net(x, y)
    (g,) = _graphs(net)
    import json
    ops = [(n["op"], n["name"]) for n in json.loads(g.symbol.tojson())["nodes"]
           if n["op"] != "null"]
    names = [op for op, _ in ops]
    assert names == ["_npi_tensordot_int_axes", "_npi_sum", "_npi_multiply",
                     "FullyConnected", "_npx_relu"], ops
    assert dict(ops)["FullyConnected"] == "net0_dense0_fwd"
    assert all(name.startswith("net0_") for _, name in ops)


@pytest.mark.parametrize("hybridize", [False, True])
def test_values_and_gradients_match_numpy(hybridize):
    net = Net()
    net.initialize()
    x, y = _inputs()
    if hybridize:
        net.hybridize()
    results = []
    for _ in range(2):          # the second call runs the cached graph
        for a in (x, y):
            a.attach_grad()
        with autograd.record():
            out = net(x, y)
        out.backward()
        results.append((out.asnumpy(), x.grad.asnumpy(), y.grad.asnumpy()))
        assert isinstance(out, np.ndarray)
    w = net.dense.weight.data().asnumpy()
    b = net.dense.bias.data().asnumpy()
    h = x.asnumpy() @ y.asnumpy()
    z = (h.sum(-1, keepdims=True) * h) @ w.T + b
    for got, gx, gy in results:
        onp.testing.assert_allclose(got, onp.maximum(z, 0), rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)


def test_events_of_the_cached_graph_carry_the_layer_names(profile, monkeypatch):
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "0")
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_INFERENCE", "0")
    net = Net()
    net.initialize()
    net.hybridize()
    x, y = _inputs()
    x.attach_grad()
    with autograd.record():      # the signature's first call: its graph is recorded
        net(x, y).backward()
    with profile() as p:
        with autograd.record():
            out = net(x, y)
        out.backward()
    ops = p.events("operator")
    names = {}
    for e in ops:
        names.setdefault(e["name"], set()).add(e["args"].get("name"))
    assert names["_npi_tensordot_int_axes"] == {"net0_fwd"}
    assert names["FullyConnected"] == {"net0_dense0_fwd"}
    assert names["_backward_npi_tensordot_int_axes"] == {"net0_fwd"}
    assert all("dep" in e["args"] for e in ops)


def test_deferred_shapes_inferred_on_np_symbols():
    class Scale(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.multiply(x, w)     # (n, k) * (k,): w's shape from the graph

    for hybridize in (False, True):
        net = Scale()
        net.params.get("w", shape=(0,)).shape = (0,)
        net.initialize(mx.init.One())
        if hybridize:
            net.hybridize()
        x = np.ones((2, 3))
        with pytest.raises(ValueError, match="cannot infer the shape"):
            net(x)      # multiply infers no input backwards: a clear error, no loop


def test_mixed_outputs_under_use_np_are_a_type_error():
    @mx.util.use_np
    class Mixed(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + 1, F.np.multiply(x, x)

    for hybridize in (False, True):
        net = Mixed()
        if hybridize:
            net.hybridize()
        with pytest.raises(TypeError, match="must be of type"):
            net(np.ones((2, 3)))


def test_legacy_outputs_keep_their_class_in_the_cached_graph():
    class Legacy(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() * 2

    npx.reset_np()
    net = Legacy()
    net.hybridize()
    for _ in range(2):
        out = net(np.ones((2, 2)))
        assert type(out) is mx.nd.NDArray
