"""Blocks, names, parameters, deferred initialization, initializers and the profile
attributes a layer gives its ops."""
import csv
import glob
import math
import os

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn
from xprof.runtime.gluon.block import reset_name_counters


def _net(prefix="net_"):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Conv2D(6, 3), nn.Flatten(), nn.Dense(8, activation="relu"), nn.Dense(3))
    return net


# -- names ---------------------------------------------------------------------------
def test_names_follow_mxnet_prefix_counters():
    net = _net()
    names = [b.name for b in net._children.values()]
    assert names == ["net_conv0", "net_pool0", "net_conv1", "net_flatten0", "net_dense0",
                     "net_dense1"]
    assert list(net.collect_params().keys()) == [
        "net_conv0_weight", "net_conv0_bias", "net_conv1_weight", "net_conv1_bias",
        "net_dense0_weight", "net_dense0_bias", "net_dense1_weight", "net_dense1_bias"]
    assert net[0].act.name == "net_conv0_relu"
    assert list(net.collect_params(".*dense1.*").keys()) == ["net_dense1_weight",
                                                              "net_dense1_bias"]


def test_global_counters_without_a_scope():
    reset_name_counters()
    a, b, c = nn.Dense(2), nn.Dense(2), nn.Conv2D(1, 1)
    assert (a.name, b.name, c.name) == ("dense0", "dense1", "conv0")
    assert a.weight.name == "dense0_weight" and c.bias.name == "conv0_bias"
    assert nn.Dense(2, prefix="fc_").name == "fc"


def test_sequential_indexing_and_len():
    net = _net()
    assert len(net) == 6
    assert isinstance(net[1], nn.MaxPool2D)
    sub = net[:2]
    assert len(sub) == 2 and sub[0] is net[0]


def test_plain_block_with_registered_children():
    class Model(gluon.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.body = nn.Dense(4, in_units=3)
                self.scale = self.params.get("scale", shape=(1,), init=mx.init.One())

        def forward(self, x):
            return self.body(x) * self.scale.data()

    m = Model(prefix="model_")
    m.initialize()
    assert set(m.collect_params().keys()) == {"model_scale", "model_dense0_weight",
                                              "model_dense0_bias"}
    x = mx.nd.ones((2, 3))
    assert m(x).shape == (2, 4)
    with pytest.raises(TypeError):
        m.body = 3


# -- parameters ------------------------------------------------------------------------------
def test_deferred_initialization_gets_shapes_at_first_forward():
    net = _net()
    net.initialize(mx.init.Xavier())
    w = net[0].weight
    assert w.shape == (4, 0, 3, 3)
    with pytest.raises(gluon.DeferredInitializationError):
        w.data()
    net(mx.nd.ones((2, 3, 10, 10)))
    assert w.shape == (4, 3, 3, 3)
    assert net[2].weight.shape == (6, 4, 3, 3)
    assert net[4].weight.shape == (8, 6 * 2 * 2)
    assert net[5].weight.shape == (3, 8)
    assert w.data().shape == (4, 3, 3, 3) and w.grad().shape == (4, 3, 3, 3)


def test_uninitialized_parameter_error_is_clear():
    d = nn.Dense(2, in_units=3)
    with pytest.raises(RuntimeError, match="initialize"):
        d(mx.nd.ones((1, 3)))


def test_known_shapes_initialize_immediately_and_bias_is_zero():
    mx.random.seed(0)
    d = nn.Dense(50, in_units=40)
    d.initialize(mx.init.Xavier())
    w = d.weight.data().asnumpy()
    limit = math.sqrt(3.0 / ((40 + 50) / 2))
    assert w.shape == (50, 40)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
    assert abs(w.mean()) < 0.05
    assert not d.bias.data().asnumpy().any()


@pytest.mark.parametrize("init,check", [
    (mx.init.Zero(), lambda w: not w.any()),
    (mx.init.One(), lambda w: (w == 1).all()),
    (mx.init.Constant(0.5), lambda w: (w == 0.5).all()),
    (mx.init.Uniform(0.07), lambda w: np.abs(w).max() <= 0.07 and w.std() > 0.03),
    (mx.init.Normal(0.01), lambda w: 0.008 < w.std() < 0.012),
    (mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2),
     lambda w: abs(w.std() - math.sqrt(2 / 100)) < 0.02),
])
def test_initializers(init, check):
    d = nn.Dense(100, in_units=100)
    d.initialize(init)
    assert check(d.weight.data().asnumpy())
    assert not d.bias.data().asnumpy().any()


def test_initializer_by_name_and_seed_reproducibility():
    def weights():
        mx.random.seed(7)
        d = nn.Dense(5, in_units=4)
        d.initialize("xavier")
        return d.weight.data().asnumpy()
    np.testing.assert_array_equal(weights(), weights())
    with pytest.raises(ValueError, match="not known"):
        mx.init.create("no-such-init")


def test_force_reinit_and_own_initializer_wins():
    d = nn.Dense(3, in_units=2, weight_initializer=mx.init.One())
    d.initialize(mx.init.Zero())
    assert (d.weight.data().asnumpy() == 1).all()
    d.weight.set_data(np.full((3, 2), 4.0))
    d.initialize(mx.init.Zero())                     # already initialized: kept
    assert (d.weight.data().asnumpy() == 4).all()
    d.collect_params().initialize(mx.init.Zero(), force_reinit=True)
    assert (d.weight.data().asnumpy() == 1).all()


def test_parameter_dict_setattr_zero_grad_and_grad_req():
    net = _net()
    net.initialize()
    x = mx.nd.ones((2, 3, 10, 10))
    with autograd.record():
        y = net(x).sum()
    y.backward()
    params = net.collect_params()
    assert any(p.grad().asnumpy().any() for p in params.values())
    params.zero_grad()
    assert not any(p.grad().asnumpy().any() for p in params.values())
    params.setattr("grad_req", "add")
    for _ in range(2):
        with autograd.record():
            y = net(x).sum()
        y.backward()
    g2 = net[5].bias.grad().asnumpy()
    np.testing.assert_allclose(g2, 2 * np.ones(3) * 2)     # batch of 2, twice
    params.setattr("grad_req", "null")
    with pytest.raises(RuntimeError, match="null"):
        net[5].bias.grad()
    params.setattr("lr_mult", 0.5)
    assert net[0].weight.lr_mult == 0.5


def test_set_data_and_save_load_parameters(tmp_path):
    a, b = _net("a_"), _net("b_")
    for n in (a, b):
        n.initialize(mx.init.Normal(1.0))
        n(mx.nd.ones((1, 3, 10, 10)))
    path = str(tmp_path / "p.params")
    a.save_parameters(path)
    b.load_parameters(path)
    x = mx.nd.array(np.random.default_rng(0).standard_normal((2, 3, 10, 10)))
    np.testing.assert_array_equal(a(x).asnumpy(), b(x).asnumpy())
    with pytest.raises(ValueError):
        a[0].weight.set_data(np.zeros((1, 1)))


# -- what a layer tells the profiler ------------------------------------------------------------
def _step(net, batch=2):
    x = mx.nd.ones((batch, 3, 10, 10))
    label = mx.nd.array(np.arange(batch) % 3)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                          "momentum": 0.9})
    with autograd.record():
        loss = loss_fn(net(x), label)
    loss.backward()
    trainer.step(batch)
    return trainer


def test_imperative_ops_carry_their_layer_name(profile):
    net = _net()
    net.initialize()
    _step(net)
    mx.nd.waitall()
    with profile() as p:
        _step(net)
    ops = p.events("operator")
    by = {}
    for e in ops:
        by.setdefault(e["name"], []).append(e.get("args", {}).get("name"))
    assert sorted(by["Convolution"]) == ["net_conv0", "net_conv1"]
    assert sorted(by["_backward_Convolution"]) == ["net_conv0", "net_conv1"]
    assert by["Activation"].count("net_conv0_relu") == 1
    assert sorted(by["FullyConnected"]) == ["net_dense0", "net_dense1"]
    # the Trainer's updates aggregated as MXNet 1.9.1's: 4 weights per multi_sgd_mom_update
    n = len(net.collect_params())
    assert len(by["multi_sgd_mom_update"]) == -(-n // 4) and "sgd_mom_update" not in by
    assert len(by["log_softmax"]) == 1
    assert by["log_softmax"][0].startswith("softmaxcrossentropyloss")
    assert by["_backward_log_softmax"] == by["log_softmax"]


def test_hybridized_ops_carry_node_names(profile, monkeypatch):
    net = _net()
    net.initialize()
    net.hybridize()
    _step(net)
    mx.nd.waitall()
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "0")
    with profile() as p:
        _step(net)
    names = {(e["name"], e.get("args", {}).get("name")) for e in p.events("operator")}
    assert ("Convolution", "net_conv0_fwd") in names
    assert ("Convolution", "net_conv1_fwd") in names
    assert ("_backward_Convolution", "net_conv1_fwd") in names
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "1")
    with profile() as p:
        _step(net)
    segments = [e for e in p.events("operator") if e["name"].startswith("[Convolution")]
    assert len(segments) == 1
    assert "net_conv0_fwd" in segments[0]["args"]["nodes"]


def test_memory_allocations_are_named_after_the_layer(tmp_path):
    net = _net()
    net.initialize()
    net(mx.nd.ones((2, 3, 10, 10)))
    prefix = str(tmp_path / "mem")
    try:
        mx.profiler.set_config(profile_all=True, profile_memory=True,
                               memory_profile_filename_prefix=prefix,
                               filename=str(tmp_path / "t.json"))
        mx.profiler.set_state("run")
        with autograd.record():
            net(mx.nd.ones((2, 3, 10, 10)))
        mx.nd.waitall()
        mx.profiler.set_state("stop")
        mx.profiler.dump()
    finally:
        mx.profiler.set_state("stop")
        mx.profiler.set_config()
    files = glob.glob(prefix + "-pid_*.csv")
    assert files, os.listdir(tmp_path)
    with open(files[0]) as f:
        attrs = [row["Attribute Name"] for row in csv.DictReader(f)]
    assert "net_conv0:Convolution" in attrs
    assert "net_conv1:Convolution" in attrs
    assert "net_conv0_relu:Activation" in attrs
    assert "net_dense1:FullyConnected" in attrs


def test_scalar_ops_in_a_layer_carry_its_name_when_not_recording(profile):
    blk = nn.HybridLambda(lambda F, x: x * 3, prefix="triple_")
    x = mx.nd.ones((4,))
    with profile() as p:
        y = blk(x)
        z = x * 2                         # outside any layer: no name
    np.testing.assert_array_equal(y.asnumpy(), [3] * 4)
    z.wait_to_read()
    ops = [(e["name"], e.get("args", {}).get("name")) for e in p.events("operator")]
    assert ("_mul_scalar", "triple") in ops
    assert ("_mul_scalar", None) in ops


# -- channels-last layouts: transposes around the channels-first operators ----------------
@pytest.mark.parametrize("n, first, last", [(1, "NCW", "NWC"), (2, "NCHW", "NHWC"),
                                            (3, "NCDHW", "NDHWC")])
def test_channels_last_conv_and_pool_match_channels_first(n, first, last):
    rng = np.random.default_rng(n)
    shape_first = (2, 3) + (6,) * n
    x = rng.standard_normal(shape_first).astype(np.float32)
    conv_cls = {1: nn.Conv1D, 2: nn.Conv2D, 3: nn.Conv3D}[n]
    ref = conv_cls(4, 3, layout=first, in_channels=3)
    cl = conv_cls(4, 3, layout=last, in_channels=3)
    ref.initialize()
    cl.initialize()
    assert cl.weight.shape == (4,) + (3,) * n + (3,)
    w = ref.weight.data().asnumpy()
    cl.weight.set_data(np.moveaxis(w, 1, -1))
    cl.bias.set_data(ref.bias.data())
    to_last = (0,) + tuple(range(2, n + 2)) + (1,)
    xl = mx.nd.array(x.transpose(to_last))
    for hybrid in (False, True):
        if hybrid:
            cl.hybridize()
        xl.attach_grad()
        with mx.autograd.record():
            out = cl(xl)
        out.backward()
        want = ref(mx.nd.array(x)).asnumpy().transpose(to_last)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
        xf = mx.nd.array(x)
        xf.attach_grad()
        with mx.autograd.record():
            ref(xf).backward()
        np.testing.assert_allclose(xl.grad.asnumpy(), xf.grad.asnumpy().transpose(to_last),
                                   rtol=1e-4, atol=1e-5)
    pool_cls = {1: nn.MaxPool1D, 2: nn.MaxPool2D, 3: nn.MaxPool3D}[n]
    got = pool_cls(2, layout=last)(xl).asnumpy()
    np.testing.assert_allclose(got, pool_cls(2)(mx.nd.array(x)).asnumpy().transpose(to_last))
    with pytest.raises(ValueError, match=f"use '{first}' or '{last}'"):
        pool_cls(2, layout="NCXW")


def test_reflection_pad_2d_matches_numpy_and_its_gradient():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    layer = nn.ReflectionPad2D(2)
    want = np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)], mode="reflect")
    np.testing.assert_array_equal(layer(mx.nd.array(x)).asnumpy(), want)
    g = rng.standard_normal(want.shape).astype(np.float32)
    xa = mx.nd.array(x)
    xa.attach_grad()
    layer.hybridize()
    with mx.autograd.record():
        out = layer(xa)
    out.backward(mx.nd.array(g))
    # each input element's gradient: the sum of the output elements that copy it
    idx = np.arange(x.size).reshape(x.shape)
    src = np.pad(idx, [(0, 0), (0, 0), (2, 2), (2, 2)], mode="reflect")
    expect = np.bincount(src.ravel(), weights=g.ravel(), minlength=x.size).reshape(x.shape)
    np.testing.assert_allclose(xa.grad.asnumpy(), expect, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="batch or channel axis"):
        nn.ReflectionPad2D((1, 1, 0, 0, 1, 1, 1, 1))


@pytest.mark.parametrize("hybridize", [False, True])
def test_layer_norm_with_the_wrong_channels_is_an_mxnet_error(hybridize):
    layer = nn.LayerNorm(in_channels=10)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    with pytest.raises(mx.base.MXNetError, match="gamma has shape"):
        layer(mx.nd.ones((2, 11)))


@pytest.mark.parametrize("size, n, axis", [(33, 4, 1), (33, 15, 1), (128, 8, 0), (10, 3, 0)])
def test_split_data_uneven_slices_follow_numpy_array_split(size, n, axis):
    shape = [4, 4]
    shape[axis] = size
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    got = gluon.utils.split_data(mx.nd.array(x), n, axis, even_split=False)
    want = np.array_split(x, n, axis=axis)
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)
    if size % n:
        with pytest.raises(ValueError, match="cannot be split evenly"):
            gluon.utils.split_data(mx.nd.array(x), n, axis)


# -- Block behaviours MXNet programs rely on ----------------------------------------------
def test_summary_counts_parameters_and_shows_output_shapes(capsys):
    net = nn.Sequential()
    net.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3), nn.BatchNorm(in_channels=2))
    net.initialize()
    net.summary(mx.nd.ones((5, 4)))
    out = capsys.readouterr().out
    assert "Dense-1" in out and "(5, 3)" in out and "(5, 2)" in out
    # 4*3+3 + 3*2+2 + BatchNorm gamma/beta (trainable) 4 and its statistics 4
    assert "Trainable params: 27" in out and "Non-trainable params: 4" in out
    hnet = nn.HybridSequential()
    hnet.add(nn.Dense(2, in_units=4))
    hnet.initialize()
    hnet.hybridize()
    with pytest.raises(AssertionError, match="non-hybridized"):
        hnet.summary(mx.nd.ones((1, 4)))


def test_shared_parameters_merge_unknown_dimensions():
    a = nn.Dense(5, in_units=4, prefix="shared_")
    b = nn.Dense(5, prefix="shared_", params=a.collect_params())   # (5, 0) asked
    assert b.weight is a.weight and a.weight.shape == (5, 4)
    with pytest.raises(ValueError, match="incompatible"):
        nn.Dense(6, prefix="shared_", params=a.collect_params())


def test_deduplicated_save_loads_into_shared_parameters(tmp_path):
    class Two(gluon.Block):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.first = nn.Dense(2, in_units=2)
                self.second = nn.Dense(2, in_units=2, params=self.first.collect_params())
    net = Two()
    net.initialize()
    path = str(tmp_path / "dedup.params")
    net.save_parameters(path, deduplicate=True)
    assert sorted(mx.nd.load(path)) == ["first.bias", "first.weight"]
    other = Two()
    other.load_parameters(path)          # second.* are the same Parameters: not missing
    np.testing.assert_array_equal(other.second.weight.data().asnumpy(),
                                  net.first.weight.data().asnumpy())


def test_legacy_save_params_and_saved_dtypes(tmp_path):
    net = nn.HybridSequential(prefix="")
    net.add(nn.Dense(3, in_units=2, prefix="dense0_"))
    net.initialize()
    path = str(tmp_path / "legacy.params")
    with pytest.warns(DeprecationWarning):
        net.save_params(path)
    assert sorted(mx.nd.load(path)) == ["dense0_bias", "dense0_weight"]
    fresh = nn.HybridSequential(prefix="")
    fresh.add(nn.Dense(3, in_units=2, prefix="dense0_"))
    with pytest.warns(DeprecationWarning):
        fresh.load_params(path)
    np.testing.assert_array_equal(fresh[0].weight.data().asnumpy(),
                                  net[0].weight.data().asnumpy())
    net.cast("float16")
    net.save_parameters(path)
    net.cast("float32")
    net.load_parameters(path, cast_dtype=True, dtype_source="saved")
    assert net[0].weight.dtype == np.float16
    with pytest.raises(ValueError, match="dtype_source='mine'"):
        net.load_parameters(path, dtype_source="mine")


def test_new_child_makes_the_cached_graph_stale():
    net = nn.HybridSequential()
    net.add(nn.Dense(10, flatten=False))
    net.hybridize()
    net.initialize()
    assert net(mx.nd.ones((2, 3, 5))).shape == (2, 3, 10)
    net.add(nn.Flatten())
    assert net(mx.nd.ones((2, 3, 5))).shape == (2, 30)


def test_container_and_sequential_warnings():
    class Listed(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2)]
    with pytest.warns(UserWarning, match="unregistered container with Blocks"):
        Listed().collect_params()
    seq = nn.Sequential()
    seq.add(nn.Dense(2))
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        seq.hybridize()
