"""Gluon under ``npx.set_np()`` (MXNet 2): parameters, data and batches are np arrays;
MXNet 2's names (``device=``, ``reset_device``, ``gluon.metric``, shapes with -1); the
Trainer's stale-gradient rule."""
import threading

import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon, np, npx
from xprof.runtime.gluon import nn
from xprof.runtime.gluon.data.vision import transforms


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def test_parameters_and_results_are_np_arrays(np_mode):
    net = nn.Dense(3)
    net.initialize()
    y = net(np.ones((2, 4)))
    for a in (net.weight.data(), net.weight.grad(), net.bias.data(), y):
        assert isinstance(a, np.ndarray), type(a)
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(np.ones((2, 4))), np.array([0, 2]))
    loss.backward()
    assert isinstance(loss, np.ndarray) and loss.shape == (2,)


def test_legacy_mode_keeps_ndarrays():
    net = nn.Dense(3)
    net.initialize()
    y = net(mx.nd.ones((2, 4)))
    assert type(net.weight.data()) is mx.nd.NDArray and type(y) is mx.nd.NDArray


@pytest.mark.parametrize("workers", [0, 2])
def test_batches_are_np_arrays_whichever_thread_makes_them(np_mode, workers):
    data = gluon.data.ArrayDataset(onp.arange(12, dtype="float32").reshape(6, 2),
                                   onp.arange(6, dtype="int32"))
    loader = gluon.data.DataLoader(data, batch_size=4, num_workers=workers,
                                   thread_pool=True)
    batches = list(loader)
    assert all(isinstance(a, np.ndarray) for b in batches for a in b)
    onp.testing.assert_array_equal(batches[0][1].asnumpy(), [0, 1, 2, 3])
    assert batches[0][1].dtype == onp.int32


def test_the_loop_thread_decides_not_the_worker(np_mode):
    """set_np is per thread: a batch made on a worker thread is still an np array."""
    seen = []
    data = gluon.data.SimpleDataset([onp.ones((2,), "float32")] * 4)
    loader = gluon.data.DataLoader(data, batch_size=2, num_workers=1, thread_pool=True,
                                   batchify_fn=lambda s: (seen.append(mx.util.is_np_array()),
                                                          mx.nd.array(onp.stack(s)))[1])
    out = list(loader)
    assert seen and not any(seen)              # the worker thread is not in np mode
    assert all(isinstance(b, np.ndarray) for b in out)


def test_transforms_return_the_class_they_are_given(np_mode):
    img = np.array(onp.full((4, 6, 3), 255, "uint8"))
    t = transforms.Compose([transforms.Resize(8, keep_ratio=True), transforms.CenterCrop(4),
                            transforms.ToTensor()])
    out = t(img)
    assert isinstance(out, np.ndarray) and out.shape == (3, 4, 4)
    onp.testing.assert_allclose(out.asnumpy(), 1.0)
    nd_out = t(mx.nd.array(onp.full((4, 6, 3), 255, "uint8"), dtype="uint8"))
    assert type(nd_out) is mx.nd.NDArray


def test_parameter_shapes_with_minus_one():
    p = gluon.Parameter("w", shape=(5, -1), allow_deferred_init=True)
    assert p.shape == (5, 0)                       # MXNet 1.x writes unknown as 0
    with mx.util.np_shape(True):
        assert p.shape == (5, -1) and "(5, -1)" in repr(p)   # MXNet 2 as -1
    p.shape = (5, 7)
    assert p.shape == (5, 7)
    with pytest.raises(ValueError, match="negative dimension"):
        gluon.Parameter("v", shape=(2, -3))
    with mx.util.np_shape(True):
        assert repr(nn.Dense(5)) == "Dense(-1 -> 5, linear)"


def test_device_names(tmp_path, np_mode):
    net = nn.Dense(2, in_units=3)
    net.initialize(device=mx.cpu(0))
    assert net.weight.list_device() == [mx.cpu(0)]
    assert net.weight.data(device=mx.cpu(0)) is net.weight.data()
    path = str(tmp_path / "d.params")
    net.save_parameters(path)
    other = nn.Dense(2, in_units=3)
    other.load_parameters(path, device=mx.cpu(1))
    assert other.weight.list_device() == [mx.cpu(1)]
    onp.testing.assert_array_equal(other.weight.data().asnumpy(),
                                   net.weight.data().asnumpy())
    other.reset_device(mx.cpu(0))
    assert other.weight.data().device == mx.cpu(0)
    assert mx.device.num_gpus() == 0 and mx.device.current_device() == mx.cpu()


def test_symbol_block_imports_checks_the_files(tmp_path, np_mode):
    net = nn.HybridSequential()
    net.add(nn.Dense(2, in_units=3))
    net.initialize()
    net.hybridize()
    net(np.ones((1, 3)))
    sym, params = net.export(str(tmp_path / "m"))
    data = dict(onp.load(params))
    extra = str(tmp_path / "extra.params")
    with open(extra, "wb") as f:
        onp.savez(f, **data, **{"arg:unused": onp.zeros(1)})
    with pytest.raises(ValueError, match="unused.*ignore_extra"):
        nn.SymbolBlock.imports(sym, ["data"], extra)
    nn.SymbolBlock.imports(sym, ["data"], extra, ignore_extra=True)
    missing = str(tmp_path / "missing.params")
    key = next(k for k in data if k.endswith("bias"))
    with open(missing, "wb") as f:
        onp.savez(f, **{k: v for k, v in data.items() if k != key})
    with pytest.raises(ValueError, match="allow_missing"):
        nn.SymbolBlock.imports(sym, ["data"], missing)
    block = nn.SymbolBlock.imports(sym, ["data"], missing, allow_missing=True)
    block.collect_params()[key.split(":")[1]].initialize()


def test_gluon_metric_is_mx_metric():
    assert gluon.metric.Accuracy is mx.metric.Accuracy
    acc = gluon.metric.create("acc")
    acc.update([np.array([1, 0])], [np.array([[0.2, 0.8], [0.9, 0.1]])])
    assert acc.get() == ("accuracy", 1.0)


def test_a_stale_gradient_is_refused_or_skipped(np_mode):
    net = nn.Dense(1, in_units=2)
    net.initialize(mx.init.One())
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 1.0, "wd": 0.5})
    with pytest.raises(UserWarning, match=f"Parameter `{net.weight.name}`.*"
                                          "ignore_stale_grad=True"):
        trainer.step(1)
    trainer.step(1, ignore_stale_grad=True)       # nothing fresh: nothing updated
    onp.testing.assert_array_equal(net.weight.data().asnumpy(), [[1, 1]])
    with autograd.record():
        y = net(np.ones((1, 2)))
    y.backward()
    trainer.step(1)
    onp.testing.assert_allclose(net.weight.data().asnumpy(), [[-0.5, -0.5]])
    trainer.step(1, ignore_stale_grad=True)       # stale again after the step
    onp.testing.assert_allclose(net.weight.data().asnumpy(), [[-0.5, -0.5]])


def test_set_np_is_per_thread(np_mode):
    seen = []
    t = threading.Thread(target=lambda: seen.append(mx.util.is_np_array()))
    t.start()
    t.join()
    assert seen == [False] and mx.util.is_np_array()


def test_mxnet_2_activation_and_container_layers():
    npx.set_np()
    try:
        import math
        x = np.array([-1.5, -0.2, 0.0, 0.7, 2.0])
        xs = x.asnumpy().astype("float64")
        erf = onp.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in xs])
        tanh = 0.5 * xs * (1 + onp.tanh(0.7978845608 * (xs + 0.044715 * xs ** 3)))
        onp.testing.assert_allclose(nn.GELU(approximation="erf")(x).asnumpy(), erf,
                                    rtol=1e-5)
        onp.testing.assert_allclose(nn.GELU(approximation="tanh")(x).asnumpy(), tanh,
                                    rtol=1e-5)
        onp.testing.assert_allclose(nn.GELU()(x).asnumpy(), tanh, rtol=1e-5)  # 1.x's
        with pytest.raises(ValueError):
            nn.GELU(approximation="exact")
        onp.testing.assert_allclose(nn.SiLU()(x).asnumpy(), xs / (1 + onp.exp(-xs)),
                                    rtol=1e-5)
        for cls in (nn.Concatenate, nn.HybridConcatenate):
            net = cls(axis=1)
            net.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=4))
            net.initialize()
            assert net(np.ones((5, 4))).shape == (5, 5)
        const = onp.arange(6.0, dtype="float32").reshape(2, 3)

        class WithConstant(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.c = gluon.Constant(const)

            def forward(self, x):
                return x + self.c.data()
        block = WithConstant()
        block.initialize()
        onp.testing.assert_allclose(block(np.ones((2, 3))).asnumpy(), const + 1)
    finally:
        npx.reset_np()


def test_pixel_shuffle_in_nn_is_contribs():
    from xprof.runtime.gluon.contrib import nn as contrib_nn
    for name in ("PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"):
        if hasattr(contrib_nn, name):        # (issue 45's layers, branch examples)
            assert getattr(nn, name) is getattr(contrib_nn, name)
        else:
            with pytest.raises(AttributeError):
                getattr(nn, name)
