"""mx.mod.Module, its executor group, checkpoints, monitor and callbacks: known answers.

References are computed independently with numpy (a linear map's gradients, SGD steps
by hand) or by the same computation on one context versus several.
"""
from __future__ import annotations

import logging

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.module.executor_group import split_batch


def fc_module(ctxs, hidden=3, batch=6, names=("data",), label_names=None):
    data = mx.sym.Variable("data")
    sym = mx.sym.FullyConnected(data, num_hidden=hidden, name="fc")
    mod = mx.mod.Module(sym, names, label_names, context=ctxs)
    mod.bind(data_shapes=[("data", (batch, 4))])
    return mod


def fixed_params(hidden=3):
    rng = np.random.default_rng(1)
    w = rng.normal(size=(hidden, 4)).astype(np.float32)
    b = rng.normal(size=(hidden,)).astype(np.float32)
    return {"fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)}, w, b


def test_split_batch_follows_the_workload():
    assert split_batch(6, [1, 1]) == [slice(0, 3), slice(3, 6)]
    assert split_batch(5, [1, 1]) == [slice(0, 2), slice(2, 5)] or \
        split_batch(5, [1, 1]) == [slice(0, 3), slice(3, 5)]
    assert split_batch(8, [3, 1]) == [slice(0, 6), slice(6, 8)]
    with pytest.raises(ValueError, match="cannot be split"):
        split_batch(1, [1, 1])


@pytest.mark.parametrize("ctxs", [[mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]])
def test_forward_backward_and_gradients_match_numpy(ctxs):
    mod = fc_module(ctxs)
    params, w, b = fixed_params()
    mod.init_params(arg_params=params)
    x = np.arange(24, dtype=np.float32).reshape(6, 4) / 10
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=True)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), x @ w.T + b, rtol=1e-5)
    parts = mod.get_outputs(merge_multi_context=False)[0]
    assert [p.shape for p in parts] == ([(6, 3)] if len(ctxs) == 1 else [(3, 3), (3, 3)])
    mod.backward([mx.nd.ones((6, 3))])
    grads = [g.asnumpy() for g in mod._exec_group.grad_arrays[0]]   # fc_weight per ctx
    np.testing.assert_allclose(sum(grads), np.ones((3, 6)) @ x, rtol=1e-5)


def test_layout_puts_the_batch_on_its_axis_and_input_grads():
    a, b, c = (mx.sym.Variable(n, __layout__="TNC") for n in "abc")
    out = mx.sym.Activation(a + 2 * b + 3 * c, act_type="relu", __layout__="TNC")
    net = mx.mod.Module(out, data_names=["b", "c", "a"], label_names=None,
                        context=[mx.cpu(0), mx.cpu(1)])
    shape = (2, 4, 3)
    net.bind(data_shapes=[mx.io.DataDesc(n, shape, layout="TNC") for n in "bca"],
             inputs_need_grad=True)
    net.init_params()
    net.forward(mx.io.DataBatch([mx.nd.ones(shape)] * 3))
    assert [p.shape for p in net.get_outputs(merge_multi_context=False)[0]] == \
        [(2, 2, 3), (2, 2, 3)]
    net.backward([mx.nd.ones(shape)])
    gb, gc, ga = (g.asnumpy() for g in net.get_input_grads())
    assert (ga == 1).all() and (gb == 2).all() and (gc == 3).all() and ga.shape == shape


def test_bind_rejects_a_shape_that_is_not_ints():
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    with pytest.raises(TypeError, match="tuple of ints"):
        mod.bind(data_shapes=[("data", mx.nd.array([10, 10]))])
    assert not mod.binded
    with pytest.raises(ValueError, match="data_names"):
        mod.bind(data_shapes=[("x", (2, 2))])


def test_update_is_sgd_over_the_summed_gradients_and_reshape_keeps_params():
    mod = fc_module([mx.cpu(0), mx.cpu(1)], batch=4)
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    assert mod._update_on_kvstore and mod._kvstore is not None
    for batch, expect in ((4, -1.0), (8, -3.0)):   # rescale_grad stays 1/4
        if batch != 4:
            mod.reshape(data_shapes=[("data", (batch, 4))])
        mod.forward(mx.io.DataBatch([mx.nd.ones((batch, 4))]))
        mod.backward([mx.nd.ones((batch, 3))])
        mod.update()
        assert mod.get_outputs()[0].shape == (batch, 3)
        np.testing.assert_allclose(mod.get_params()[0]["fc_bias"].asnumpy(), expect)


def test_single_context_uses_no_kvstore_and_idx2name():
    mod = fc_module(mx.cpu())
    mod.init_params()
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    assert mod._kvstore is None and mod._updater is not None
    assert mod._optimizer.idx2name == {0: "fc_weight", 1: "fc_bias"}
    assert mod._optimizer.rescale_grad == pytest.approx(1 / 6)


def test_set_params_missing_and_extra():
    mod = fc_module(mx.cpu())
    params, _, _ = fixed_params()
    missing = {"fc_weight": params["fc_weight"]}
    extra = dict(params, other=mx.nd.ones((2,)))
    mod.set_params(params, {})
    mod.set_params(missing, {}, allow_missing=True)
    with pytest.raises(RuntimeError, match="fc_bias"):
        mod.set_params(missing, {})
    mod.set_params(extra, {}, allow_missing=True, allow_extra=True)
    with pytest.raises(ValueError, match="other"):
        mod.set_params(extra, {}, allow_missing=True)


def test_checkpoint_roundtrip_with_optimizer_states(tmp_path):
    prefix = str(tmp_path / "m")
    mod = fc_module(mx.cpu())
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    mod.forward(mx.io.DataBatch([mx.nd.ones((6, 4))]))
    mod.backward([mx.nd.ones((6, 3))])
    mod.update()
    mod.save_checkpoint(prefix, 3, save_optimizer_states=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["m-0003.params", "m-0003.states", "m-symbol.json"]
    saved = mx.nd.load(prefix + "-0003.params")
    assert sorted(saved) == ["arg:fc_bias", "arg:fc_weight"]
    mod2 = mx.mod.Module.load(prefix, 3, load_optimizer_states=True, label_names=None)
    mod2.bind(data_shapes=[("data", (6, 4))])
    mod2.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert mod2.symbol.tojson() == mod.symbol.tojson()
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(v.asnumpy(), mod2.get_params()[0][k].asnumpy())
    for k, v in mod._updater.states.items():
        np.testing.assert_array_equal(v.asnumpy(), mod2._updater.states[k].asnumpy())


def test_predict_cuts_the_padding_and_score():
    mod = fc_module(mx.cpu(), batch=4)
    params, w, b = fixed_params()
    mod.init_params(arg_params=params)
    x = np.random.default_rng(2).normal(size=(10, 4)).astype(np.float32)
    it = mx.io.NDArrayIter(x, batch_size=4)        # 3 batches, the last padded by 2
    np.testing.assert_allclose(mod.predict(it).asnumpy(), x @ w.T + b, rtol=1e-5)
    outs = list(mod.iter_predict(it))
    assert [o[0][0].shape[0] for o in outs] == [4, 4, 2]


def test_fit_learns_and_calls_the_callbacks(tmp_path, caplog):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(80, 5)).astype(np.float32)
    y = (x[:, 0] > x[:, 1]).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"),
                                                     num_hidden=2, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(net)
    seen = []
    with caplog.at_level(logging.INFO):
        mod.fit(it, eval_data=it, num_epoch=30, optimizer_params={"learning_rate": 1.0},
                batch_end_callback=[mx.callback.Speedometer(20, 2),
                                    lambda p: seen.append((p.epoch, p.nbatch))],
                epoch_end_callback=mx.callback.do_checkpoint(str(tmp_path / "c"), 10))
    assert seen[:4] == [(0, 0), (0, 1), (0, 2), (0, 3)] and len(seen) == 120
    assert mod.score(it, "acc")[0][1] > 0.9
    assert "Speed:" in caplog.text and "Validation-accuracy" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["c-0010.params", "c-0020.params", "c-0030.params", "c-symbol.json"]


def test_forward_rebinds_for_a_new_batch_shape():
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    mod.bind(data_shapes=[("data", (1, 10))])
    mod.init_params()
    mod.forward(mx.io.DataBatch([mx.nd.ones((3, 5))]))
    assert mod.get_outputs()[0].shape == (3, 5)
    assert mod.predict(np.ones((2, 2), np.float32)).asnumpy().tolist() == [[2, 2], [2, 2]]


def test_bucketing_module_shares_parameters_and_gradients():
    def sym_gen(key):
        data = mx.sym.Variable("data")
        out = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
        for _ in range(key - 1):
            out = mx.sym.FullyConnected(out, num_hidden=2, weight=mx.sym.Variable("fc_weight"),
                                        bias=mx.sym.Variable("fc_bias"))
        return mx.sym.make_loss(mx.sym.sum(out)), ("data",), None

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=2)
    mod.bind(data_shapes=[("data", (3, 2))], grad_req="add")
    mod.init_params()
    mod.init_optimizer()
    batch = lambda k: mx.io.DataBatch([mx.nd.ones((3, 2))], bucket_key=k,  # noqa: E731
                                      provide_data=[mx.io.DataDesc("data", (3, 2))])
    mod.forward_backward(batch(2))
    g2 = mod._curr_module._exec_group.execs[0].grad_dict["fc_bias"].asnumpy().copy()
    mod.forward_backward(batch(1))
    assert sorted(mod._buckets) == [1, 2]
    one, two = mod._buckets[1]._exec_group.execs[0], mod._buckets[2]._exec_group.execs[0]
    assert one.arg_dict["fc_weight"] is two.arg_dict["fc_weight"]
    assert one.grad_dict["fc_bias"] is two.grad_dict["fc_bias"]
    # bucket 1 is one FC: d sum / d bias = 3 per output, added to bucket 2's gradient
    np.testing.assert_allclose(one.grad_dict["fc_bias"].asnumpy(), g2 + 3.0, rtol=1e-5)


def test_sequential_module_equals_one_module():
    fc1 = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc1")
    fc2 = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc2")
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc1, label_names=None)).add(
        mx.mod.Module(fc2, label_names=None), auto_wiring=True)
    seq.bind(data_shapes=[("data", (4, 5))])
    seq.init_params()
    x = np.random.default_rng(3).normal(size=(4, 5)).astype(np.float32)
    seq.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=True)
    args = {k: v.asnumpy() for k, v in seq.get_params()[0].items()}
    h = x @ args["fc1_weight"].T + args["fc1_bias"]
    ref = h @ args["fc2_weight"].T + args["fc2_bias"]
    np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(), ref, rtol=1e-5)
    seq.backward([mx.nd.ones((4, 2))])
    g = seq._modules[0]._exec_group.grad_arrays[1][0].asnumpy()   # fc1_bias
    np.testing.assert_allclose(g, (np.ones((4, 2)) @ args["fc2_weight"]).sum(0), rtol=1e-5)


def test_monitor_sees_every_node_output_and_gradient():
    x = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc_0")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_0")
    x = mx.sym.make_loss(mx.sym.sum(x), name="out")
    mod = mx.mod.Module(x, label_names=None)
    mod.bind([("data", (1, 2))])
    mon = mx.mon.Monitor(1, stat_func=lambda a: mx.nd.sum(mx.nd.abs(a)), sort=True)
    mod.install_monitor(mon)
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.ones((1, 2))])
    mon.tic()
    mod.forward_backward(batch)
    names = [k for _, k, _ in mon.toc()]
    assert names == sorted(names)
    assert "fc_0_output" in names and "act_0_output" in names
    # fc_0's backward reports a gradient for each of its 3 inputs (data too)
    assert sum(n.startswith("fc_0_backward") for n in names) == 3
    assert {"data", "fc_0_weight", "fc_0_bias"} <= set(names)
    assert mon.toc() == []           # not activated again without tic()


def test_executor_reshape_shares_unchanged_arrays():
    y = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="write")
    small = exe.reshape(x=(3, 4))
    assert small.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    assert small.grad_dict["fc_weight"] is exe.grad_dict["fc_weight"]
    assert small.arg_dict["x"].shape == (3, 4) and small.outputs[0].shape == (3, 4)
    with pytest.raises(ValueError, match="allow_up_sizing"):
        exe.reshape(x=(6, 4))
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    assert big.arg_dict["x"] is not exe.arg_dict["x"]
    assert "Op:FullyConnected, Name=fc" in exe.debug_str()
    assert exe.get_optimized_symbol().tojson() == y.tojson()


def test_monitor_callback_names_are_bytes_and_bulk_is_off():
    data = mx.sym.Variable("data")
    sym = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=2, name="fc"),
                            act_type="relu", name="act")
    exe = sym.simple_bind(mx.cpu(), data=(2, 3))
    got = []
    exe.set_monitor_callback(lambda n, a: got.append((mx.base.py_str(n), a.shape)),
                             monitor_all=True)
    exe.forward(is_train=False)
    # Activation has no input names in MXNet (its unary macro): "act_input0", as MXNet names it
    assert got == [("data", (2, 3)), ("fc_data", (2, 3)), ("fc_weight", (2, 3)),
                   ("fc_weight", (2, 3)), ("fc_bias", (2,)), ("fc_bias", (2,)),
                   ("fc_output", (2, 2)), ("act_input0", (2, 2)), ("act_output", (2, 2))]


def test_model_checkpoint_helpers_and_bad_files(tmp_path):
    sym = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    args = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    mx.model.save_checkpoint(str(tmp_path / "p"), 7, sym, args, {})
    s2, a2, x2 = mx.model.load_checkpoint(str(tmp_path / "p"), 7)
    assert s2.tojson() == sym.tojson() and x2 == {}
    assert a2["fc_weight"].asnumpy().tolist() == [[1, 1, 1], [1, 1, 1]]
    mx.nd.save(str(tmp_path / "bad-0001.params"), {"w": mx.nd.ones((1,))})
    with pytest.raises(ValueError, match="arg:<name>"):
        mx.model.load_params(str(tmp_path / "bad"), 1)
    assert not [p for p in tmp_path.iterdir() if "tmp" in p.name]


def test_amp_imports_and_refuses():
    from xprof.runtime.contrib.amp import amp
    with pytest.raises(NotImplementedError, match="mixed precision"):
        amp.init()


def test_ccsgd_is_sgd():
    opt = mx.optimizer.create("ccsgd", learning_rate=0.5)
    assert isinstance(opt, mx.optimizer.SGD)
    w, g = mx.nd.ones((3,)), mx.nd.ones((3,))
    mx.optimizer.get_updater(opt)(0, g, w)
    np.testing.assert_allclose(w.asnumpy(), 0.5)


def test_init_optimizer_takes_lr_and_wd_mults_of_the_argument_variables_only():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name="fc1", num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=10, wd_mult=0.5)
    for optimizer in ("sgd", mx.optimizer.SGD(learning_rate=1.0)):
        mod = mx.mod.Module(symbol=fc2, label_names=None)
        mod.bind(data_shapes=[("data", (5, 10))])
        mod.init_params(initializer=mx.init.Uniform(1.0))
        mod.init_optimizer(optimizer=optimizer,
                           optimizer_params={"learning_rate": 1.0} if optimizer == "sgd" else None)
        assert mod._optimizer.lr_mult == {"fc1_bias": 1.0, "fc1_weight": 0.0}
        assert mod._optimizer.wd_mult == {"fc2_bias": 0.5, "fc2_weight": 0.5, "fc1_bias": 0.0}
