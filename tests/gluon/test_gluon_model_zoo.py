"""Tests of runtime/gluon/model_zoo/: every family builds, initializes, trains one step,
hybridizes (same outputs), names its parameters as MXNet does, and ``pretrained=True``
either loads a local file or says how to."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.gluon.model_zoo import get_model, vision


@pytest.mark.parametrize("name,size", [("resnet18_v1", 32), ("resnet18_v2", 32),
                                       ("resnet50_v1", 32), ("mobilenet0.25", 32),
                                       ("vgg11_bn", 32), ("alexnet", 67)])
def test_model_trains_a_step_and_hybridizes(name, size):
    mx.random.seed(0)
    net = get_model(name, classes=4)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.default_rng(0).standard_normal((2, 3, size, size)))
    label = mx.nd.array([1, 3])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    with mx.autograd.record():
        loss = loss_fn(net(x), label)
    loss.backward()
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    trainer.step(2)
    changed = [k for k, p in net.collect_params().items()
               if not np.array_equal(before[k], p.data().asnumpy())]
    assert any(k.endswith("weight") for k in changed)
    with mx.autograd.train_mode():     # batch statistics (one step leaves the running
        mx.random.seed(5)              # ones far from them); the same dropout masks
        imperative = net(x).asnumpy()
        net.hybridize()
        mx.random.seed(5)
        hybrid = net(x).asnumpy()
    assert imperative.shape == (2, 4) and np.isfinite(imperative).all()
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-4, atol=1e-5)
    assert net(x).shape == (2, 4)               # predict mode, hybridized


def test_bottleneck_v2_in_training_mode_hybridizes_alike():
    net = vision.resnet50_v2(classes=3)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.default_rng(1).standard_normal((2, 3, 32, 32)))
    with mx.autograd.train_mode():                  # batch statistics
        imperative = net(x).asnumpy()
        net.hybridize()
        hybrid = net(x).asnumpy()
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-4, atol=1e-5)


def test_resnet18_v1_structure_and_parameter_names_follow_mxnet():
    net = vision.resnet18_v1()
    names = list(net._collect_params_with_prefix())
    assert len(names) == 102
    assert names[:6] == ["features.0.weight", "features.1.gamma", "features.1.beta",
                         "features.1.running_mean", "features.1.running_var",
                         "features.4.0.body.0.weight"]
    assert "features.5.0.downsample.0.weight" in names and names[-1] == "output.bias"
    assert net.output.weight.shape == (1000, 512)
    assert len(vision.mobilenet1_0()._collect_params_with_prefix()) == 137
    assert len(vision.vgg16()._collect_params_with_prefix()) == 32


def test_every_constructor_and_get_model_name():
    for n in (18, 34, 50, 101, 152):
        for v in (1, 2):
            assert callable(getattr(vision, f"resnet{n}_v{v}"))
    for n in (11, 13, 16, 19):
        assert isinstance(getattr(vision, f"vgg{n}_bn")(), vision.VGG)
    assert isinstance(get_model("MobileNet0.5"), vision.MobileNet)
    assert isinstance(mx.gluon.model_zoo.vision.get_model("alexnet"), vision.AlexNet)
    with pytest.raises(ValueError, match="'resnet7' is not in xprof's model zoo"):
        get_model("resnet7")


def test_pretrained_raises_a_clear_error_or_loads_a_local_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match=r"cannot download weights.*load_parameters"):
        vision.resnet18_v1(pretrained=True)
    src = vision.alexnet(classes=3)
    src.initialize()
    src(mx.nd.ones((1, 3, 67, 67)))
    path = str(tmp_path / "alexnet.params")
    src.save_parameters(path)
    for root in (path, str(tmp_path)):          # the file itself, or the folder
        net = vision.alexnet(classes=3, pretrained=True, root=root)
        np.testing.assert_array_equal(net.output.weight.data().asnumpy(),
                                      src.output.weight.data().asnumpy())
    with pytest.raises(ValueError, match="looked for"):
        vision.vgg11(pretrained=True, root=str(tmp_path))
    # MXNet's default root, $MXNET_HOME/models, with the name MXNet downloads it under
    models = tmp_path / "home" / "models"
    models.mkdir(parents=True)
    src.save_parameters(str(models / "alexnet-44335d1f.params"))
    net = vision.alexnet(classes=3, pretrained=True)
    np.testing.assert_array_equal(net.output.weight.data().asnumpy(),
                                  src.output.weight.data().asnumpy())
