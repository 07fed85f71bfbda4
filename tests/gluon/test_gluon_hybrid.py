"""Hybridized blocks: the symbolic executor gives the imperative results and
gradients, in the cases where reusing its buffers could go wrong."""
import json
import os

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn


def _net(seed=0, dropout=0.0):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(3, 3, activation="relu"), nn.MaxPool2D(2))
        if dropout:
            net.add(nn.Dropout(dropout))
        net.add(nn.Flatten(), nn.Dense(4, activation="tanh"), nn.Dense(2))
    mx.random.seed(seed)
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 1, 8, 8)))      # deferred init now, while the seed is known
    return net


def _x(seed, n=2):
    return mx.nd.array(np.random.default_rng(seed).standard_normal((n, 1, 8, 8)))


def _grads(net):
    return {k[k.index("_") + 1:]: p.grad().asnumpy().copy()
            for k, p in net.collect_params().items()}


def _pair():
    a, b = _net(), _net()
    b.hybridize()
    return a, b


def test_forward_and_earlier_outputs_stay_valid():
    a, b = _pair()
    x1, x2 = _x(1), _x(2)
    y1 = b(x1)
    y2 = b(x2)                    # the executor runs again; y1 must not change
    np.testing.assert_allclose(y1.asnumpy(), a(x1).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(y2.asnumpy(), a(x2).asnumpy(), rtol=1e-6)
    y3 = b(_x(3, n=5))            # another input shape: another graph
    assert y3.shape == (5, 2)
    assert len(b._cached) == 2


def test_gradients_match_imperative():
    a, b = _pair()
    x = _x(4)
    for net in (a, b):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
    ga, gb = _grads(a), _grads(b)
    for k in ga:
        np.testing.assert_allclose(gb[k], ga[k], rtol=1e-5, atol=1e-7, err_msg=k)


def test_two_calls_before_one_backward_get_both_gradients():
    a, b = _pair()
    x1, x2 = _x(5), _x(6)
    for net in (a, b):
        with autograd.record():
            loss = (net(x1) * net(x2)).sum()
        loss.backward()
    ga, gb = _grads(a), _grads(b)
    for k in ga:
        np.testing.assert_allclose(gb[k], ga[k], rtol=1e-5, atol=1e-7, err_msg=k)
    assert len(next(iter(b._cached.values())).bound) == 2


def test_grad_req_add_accumulates():
    a, b = _pair()
    x = _x(7)
    for net in (a, b):
        net.collect_params().setattr("grad_req", "add")
        for _ in range(3):
            with autograd.record():
                loss = net(x).sum()
            loss.backward()
    ga, gb = _grads(a), _grads(b)
    for k in ga:
        np.testing.assert_allclose(gb[k], ga[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_dropout_same_masks_and_identity_in_predict_mode():
    a, b = _net(dropout=0.5), _net(dropout=0.5)
    b.hybridize()
    x = _x(8)
    outs = []
    for net in (a, b):
        mx.random.seed(11)
        with autograd.record():
            outs.append(net(x).asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), rtol=1e-6)
    with autograd.record(train_mode=False):
        np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), rtol=1e-6)


def test_reinitialized_parameters_are_picked_up():
    _, b = _pair()
    x = _x(9)
    b(x)
    b.collect_params().initialize(mx.init.Zero(), force_reinit=True)
    assert not b(x).asnumpy().any()


class _Project(nn.HybridBlock):
    """A custom block whose weight's input size is deferred (inferred by the graph)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.w = self.params.get("w", shape=(2, 0), init=mx.init.Constant(2.0),
                                     allow_deferred_init=True)

    def hybrid_forward(self, F, x, w):
        return F.FullyConnected(x, w, no_bias=True, num_hidden=2) + 1


@pytest.mark.parametrize("hybridize", [False, True])
def test_custom_block_deferred_shape_from_symbol_inference(hybridize):
    blk = _Project()
    blk.initialize()
    if hybridize:
        blk.hybridize()
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    expected = np.repeat(x.asnumpy().sum(axis=1, keepdims=True) * 2 + 1, 2, axis=1)
    np.testing.assert_allclose(blk(x).asnumpy(), expected)
    assert blk.w.shape == (2, 3)


def test_export_and_symbol_block(tmp_path):
    net = _net()
    net.hybridize()
    x = _x(10)
    expected = net(x).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / "model"), epoch=3)
    assert os.path.basename(params_file) == "model-0003.params"
    with open(sym_file) as f:
        assert any(n["op"] == "Convolution" for n in json.load(f)["nodes"])
    data = mx.sym.var("data")
    sb = gluon.SymbolBlock(mx.sym.load(sym_file), data)
    arrays = np.load(params_file)
    for name, p in sb.collect_params().items():
        p.shape = arrays["arg:" + name].shape
        p.initialize()
        p.set_data(arrays["arg:" + name])
    np.testing.assert_allclose(sb(x).asnumpy(), expected, rtol=1e-6)
    imported = gluon.SymbolBlock.imports(sym_file, "data", params_file)
    np.testing.assert_allclose(imported(x).asnumpy(), expected, rtol=1e-6)


def test_hybridized_block_rejects_non_arrays():
    _, b = _pair()
    with pytest.raises(ValueError, match="NDArray"):
        b(np.ones((1, 1, 8, 8)))


# -- inputs that are None or lists (MXNet's input formats) ------------------------------------
class _Pair(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=2)

    def hybrid_forward(self, F, a, b=None):
        if isinstance(a, (list, tuple)):
            a = F.add_n(*a)
        out = self.dense(a)
        return out if b is None else out * b


@pytest.mark.parametrize("hybridize", [False, True])
def test_none_and_list_inputs_give_the_imperative_results(hybridize):
    rng = np.random.default_rng(3)
    x, y, s = (rng.standard_normal(sh).astype(np.float32) for sh in [(4, 2), (4, 2), (4, 3)])
    net = _Pair()
    net.initialize()
    w, b = net.dense.weight.data().asnumpy(), net.dense.bias.data().asnumpy()
    if hybridize:
        net.hybridize()
    X, Y, S = mx.nd.array(x), mx.nd.array(y), mx.nd.array(s)
    np.testing.assert_allclose(net(X).asnumpy(), x @ w.T + b, rtol=1e-5)
    np.testing.assert_allclose(net(X, None).asnumpy(), x @ w.T + b, rtol=1e-5)
    X.attach_grad()
    with autograd.record():
        out = net(X)
    out.backward()
    np.testing.assert_allclose(X.grad.asnumpy(), np.ones((4, 3)) @ w, rtol=1e-5)
    np.testing.assert_allclose(net([X, Y], S).asnumpy() if not hybridize else
                               _fresh_hybrid(net, [X, Y], S).asnumpy(),
                               ((x + y) @ w.T + b) * s, rtol=1e-5)


def _fresh_hybrid(net, *args):
    net.hybridize()       # a new argument structure needs a new graph, as in MXNet
    return net(*args)


def test_hybridized_input_checks_name_the_problem():
    net = _Pair()
    net.initialize()
    net.hybridize()
    with pytest.raises(ValueError, match="input must be an NDArray or a Symbol"):
        net(None, None)
    with pytest.raises(ValueError, match="mix NDArrays and Symbols"):
        net(mx.nd.ones((1, 2)), mx.sym.var("b"))
    with pytest.raises(ValueError, match="input 1 is int"):
        net(mx.nd.ones((1, 2)), 1)
    with pytest.raises(ValueError, match="on one context"):
        net(mx.nd.ones((1, 2), ctx=mx.cpu(1)), mx.nd.ones((1, 3), ctx=mx.cpu(2)))
    net(mx.nd.ones((1, 2)))
    with pytest.raises(ValueError, match="argument structure"):
        net([mx.nd.ones((1, 2))], mx.nd.ones((1, 3)))
    assert net(mx.nd.ones((1, 2)), None).shape == (1, 3)   # a trailing None: the default


def test_symbol_block_on_symbols_composes_its_graph():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Activation("relu"))
    net.initialize()
    data = mx.sym.var("data")
    sblock = gluon.SymbolBlock(net(data), data, params=net.collect_params())
    out = sblock(mx.sym.var("other") * 2)
    assert out.list_arguments()[0] == "other"
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    exe = out.bind(mx.cpu(), {"other": mx.nd.array(x),
                              **{k: p.data() for k, p in net.collect_params().items()}})
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), net(mx.nd.array(2 * x)).asnumpy(),
                               rtol=1e-5)


def test_register_op_hook_sees_each_operator_of_the_hybridized_graph():
    from xprof.runtime.base import py_str

    seen = []

    def hook(name, opname, array):
        seen.append((py_str(name), py_str(opname), array.shape))

    model = mx.gluon.nn.HybridSequential(prefix="dense_")
    with model.name_scope():
        model.add(mx.gluon.nn.Dense(2))
        model.add(mx.gluon.nn.Activation("relu"))
    model.initialize()
    model.hybridize()
    model.register_op_hook(hook, monitor_all=True)
    out = model(mx.nd.ones((2, 3, 4)))
    assert seen == [("dense_dense0_fwd_data", "FullyConnected", (2, 3, 4)),
                    ("dense_dense0_fwd_weight", "FullyConnected", (2, 12)),
                    ("dense_dense0_fwd_bias", "FullyConnected", (2,)),
                    ("dense_dense0_fwd_output", "FullyConnected", (2, 2)),
                    ("dense_relu0_fwd_input0", "Activation", (2, 2)),   # MXNet: no input names
                    ("dense_relu0_fwd_output", "Activation", (2, 2))]
    seen.clear()
    model.register_op_hook(hook)        # outputs only
    again = model(mx.nd.ones((2, 3, 4)))
    assert [s[0] for s in seen] == ["dense_dense0_fwd_output", "dense_relu0_fwd_output"]
    np.testing.assert_array_equal(again.asnumpy(), out.asnumpy())
    with pytest.raises(ValueError, match="is not callable"):
        model.register_op_hook("not a function")


@pytest.mark.parametrize("hybridize", [False, True])
def test_blocks_and_their_arrays_are_freed_without_the_cyclic_collector(hybridize):
    """No reference cycle holds a block or the arrays of a call: the engine raises the
    collector's threshold, so arrays held by cycles piled up (24 GB in MXNet's
    test_slice_pooling2d_slice_pooling2d, 1.7 GB more per network it built)."""
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        class Net(gluon.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.dense = nn.Dense(3)
                    self.pool = nn.MaxPool1D()

            def hybrid_forward(self, F, x, extra):
                return self.pool(self.dense(x).expand_dims(axis=1)) + extra.sum()

        net = Net()
        net.initialize()
        if hybridize:
            net.hybridize()
        x, extra = mx.nd.ones((4, 5)), mx.nd.ones((2,))
        x.attach_grad()
        with autograd.record():
            y = net(x, [extra][0])
        y.backward()
        mx.nd.waitall()
        refs = [weakref.ref(o) for o in (net, net.dense, x, extra, y)]
        if hybridize:
            graph = next(iter(net._cached.values()))
            refs += [weakref.ref(graph)] + [weakref.ref(b.exe) for b in graph.bound]
            del graph
        del net, x, extra, y
    finally:
        gc.enable()
    assert [r() for r in refs] == [None] * len(refs)


def test_a_trainer_and_its_parameters_are_freed_without_the_cyclic_collector():
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        net = nn.Dense(2)
        net.initialize()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        with autograd.record():
            loss = net(mx.nd.ones((3, 4))).sum()
        loss.backward()
        trainer.step(3)
        mx.nd.waitall()
        assert net.weight._trainer is trainer
        refs = [weakref.ref(o) for o in (net, trainer, net.weight, net.weight.data(),
                                         net.weight.grad())]
        del net, trainer, loss
    finally:
        gc.enable()
    assert [r() for r in refs] == [None] * len(refs)
