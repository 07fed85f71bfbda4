"""MXNet 2's ``forward``-style HybridBlocks, hybridized: a real graph recorded from the
first call (``gluon/_trace.py``), one node per operator named after its layer, the same
values and gradients as running imperatively."""
import gc
import weakref

import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon, np, npx
from xprof.runtime.gluon import _hybrid, nn
from xprof.runtime.gluon.block import reset_name_counters


@pytest.fixture(autouse=True)
def np_mode():
    reset_name_counters()     # layer names as in a fresh process: dense0, dense1...
    npx.set_np()
    yield
    npx.reset_np()


class MLP(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(8, activation="relu")
        self.dense2 = nn.Dense(3)

    def forward(self, x):
        return self.dense2(self.dense1(x)) * 2 + 1


def _graph(block):
    graphs = [g for g in block._cached.values() if g is not _hybrid._IMPERATIVE]
    assert len(graphs) == 1
    return graphs[0]


def _nodes(symbol):
    import json
    return [(n["op"], n["name"]) for n in json.loads(symbol.tojson())["nodes"]
            if n["op"] != "null"]


def test_the_graph_has_one_node_per_operator_named_by_layer():
    net = MLP()
    net.initialize()
    x = np.random.uniform(size=(4, 5))
    net.hybridize()
    net(x)
    g = _graph(net)
    nodes = _nodes(g.symbol)
    p = net.prefix[:-1]
    assert nodes == [("FullyConnected", "dense0_fwd"), ("Activation", "dense0_relu_fwd"),
                     ("FullyConnected", "dense1_fwd"), (nodes[3][0], f"{p}_fwd"),
                     (nodes[4][0], f"{p}_fwd1")], nodes
    assert g.symbol.list_arguments() == ["data", "dense0_weight", "dense0_bias",
                                         "dense1_weight", "dense1_bias"]


def test_same_values_as_imperative_and_np_arrays_out():
    net = MLP()
    net.initialize()
    x = np.random.uniform(size=(4, 5))
    want = net(x).asnumpy()
    net.hybridize()
    first, second = net(x), net(x)          # the recorded call, then the graph's
    for y in (first, second):
        assert isinstance(y, np.ndarray)
        onp.testing.assert_allclose(y.asnumpy(), want, rtol=1e-6)
    x2 = np.random.uniform(size=(4, 5))     # new values, same signature: the graph
    net.hybridize(False)
    want2 = net(x2).asnumpy()
    net.hybridize()
    net(x2)
    onp.testing.assert_allclose(net(x2).asnumpy(), want2, rtol=1e-6)


@pytest.mark.parametrize("first_recorded", [True, False])
def test_gradients_match_imperative(first_recorded):
    net = MLP()
    net.initialize()
    x = np.random.uniform(size=(4, 5))

    def grads():
        with autograd.record():
            y = net(x).sum()
        y.backward()
        return [p.grad().asnumpy().copy() for p in net.collect_params().values()]

    want = grads()
    net.hybridize()
    if not first_recorded:
        net(x)                   # the graph recorded outside autograd
    for _ in range(2):           # (recorded call, then the executor's backward)
        for a, b in zip(grads(), want):
            onp.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_batchnorm_statistics_move_once_per_call():
    class Net(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm(in_channels=3)

        def forward(self, x):
            return self.bn(x) + 1

    x = np.random.normal(size=(6, 3, 2, 2))
    runs = []
    for hybridize in (False, True):
        net = Net()
        net.initialize()
        net.hybridize(hybridize)
        for _ in range(2):
            with autograd.record():
                net(x)
        runs.append(net.bn.running_mean.data().asnumpy())
    onp.testing.assert_allclose(runs[1], runs[0], rtol=1e-6)


def test_constants_and_random_draws_inside_forward():
    class Net(nn.HybridBlock):
        def forward(self, x):
            shift = np.array([1.0, 2.0, 3.0])        # made from Python data: a constant
            return x + shift + np.random.normal(size=x.shape) * 0

    class Noisy(nn.HybridBlock):
        def forward(self, x):
            return x + np.random.normal(size=x.shape)

    net = Net()
    net.hybridize()
    x = np.zeros((2, 3))
    for _ in range(2):
        onp.testing.assert_allclose(net(x).asnumpy(), [[1, 2, 3], [1, 2, 3]])
    noisy = Noisy()
    noisy.hybridize()
    a, b, c = (noisy(x).asnumpy() for _ in range(3))
    assert not onp.allclose(b, c) and not onp.allclose(a, b)  # drawn at every call


def test_a_function_inside_forward_runs_imperatively_and_says_so():
    class Twice(autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy * 2

    class Net(nn.HybridBlock):
        def forward(self, x):
            return Twice()(x) + 1

    net = Net()
    net.hybridize()
    x = np.ones((2, 2))
    with pytest.warns(UserWarning, match="runs imperatively.*autograd.Function"):
        first = net(x)
    for y in (first, net(x)):
        onp.testing.assert_allclose(y.asnumpy(), 3 * onp.ones((2, 2)))


class Custom(nn.HybridBlock):
    """The crash course's custom layer: a weight of unknown input size, set by its own
    infer_shape."""

    def __init__(self, units, infer=True):
        super().__init__()
        self.weight = gluon.Parameter("weight", shape=(-1, units), allow_deferred_init=True)
        self._infer = infer

    def forward(self, x):
        return np.dot(x, self.weight.data())

    def infer_shape(self, x):
        if not self._infer:
            return super().infer_shape(x)
        self.weight.shape = (x.shape[-1], self.weight.shape[1])


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_shape_from_the_blocks_infer_shape(hybridize):
    net = Custom(3)
    net.initialize(mx.init.One())
    net.hybridize(hybridize)
    y = net(np.ones((2, 5)))
    assert net.weight.shape == (5, 3)
    onp.testing.assert_allclose(y.asnumpy(), 5 * onp.ones((2, 3)))


def test_deferred_shape_without_infer_shape_is_a_clear_error():
    net = Custom(3, infer=False)
    net.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="define infer_shape"):
        net(np.ones((2, 5)))


def test_a_forward_style_block_inside_a_hybrid_sequential():
    seq = nn.HybridSequential()
    seq.add(nn.Dense(4), MLP())
    seq.initialize()
    x = np.random.uniform(size=(2, 6))
    want = seq(x).asnumpy()
    seq.hybridize()
    for _ in range(2):
        onp.testing.assert_allclose(seq(x).asnumpy(), want, rtol=1e-6)
    assert [op for op, _ in _nodes(_graph(seq).symbol)].count("FullyConnected") == 3


def test_export_and_imports_on_a_device(tmp_path):
    net = MLP()
    net.initialize()
    x = np.random.uniform(size=(3, 5))
    net.hybridize()
    want = net(x).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / "mlp"))
    loaded = nn.SymbolBlock.imports(sym_file, ["data"], params_file, device=mx.cpu())
    onp.testing.assert_allclose(loaded(x).asnumpy(), want, rtol=1e-6)
    params = loaded.collect_params()
    assert sorted(params.keys()) == sorted(p.name for p in net.collect_params().values())
    assert all(p.list_device() == [mx.cpu()] for p in params.values())


def test_operators_of_the_graph_are_events_with_layer_names(profile, monkeypatch):
    # bulk execution off, as the guide says, for one event per operator
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "0")
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_INFERENCE", "0")
    net = MLP()
    net.initialize()
    x = np.random.uniform(size=(4, 5))
    net.hybridize()
    net(x)
    with profile() as p:
        with autograd.record():
            y = net(x)
        y.backward()
    ops = p.events("operator")
    fc = [e for e in ops if e["name"] == "FullyConnected"]
    assert sorted(e["args"]["name"] for e in fc) == ["dense0_fwd", "dense1_fwd"]
    back = {e["args"]["name"] for e in ops if e["name"] == "_backward_FullyConnected"}
    assert back == {"dense0_fwd", "dense1_fwd"}
    assert all("dep" in e["args"] for e in ops)


def test_the_recorded_call_keeps_no_array_alive():
    gc.disable()
    try:
        net = MLP()
        net.initialize()
        net.hybridize()
        x = np.random.uniform(size=(4, 5))
        y = net(x)
        ref = weakref.ref(y)
        del y
        assert ref() is None
        refs = [weakref.ref(net), weakref.ref(_graph(net))]
        del net
        assert all(r() is None for r in refs)
    finally:
        gc.enable()
