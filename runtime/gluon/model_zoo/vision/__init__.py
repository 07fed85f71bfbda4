"""``gluon.model_zoo.vision``: ResNet V1/V2, MobileNet, VGG, AlexNet, by name or
constructor (``get_model('resnet18_v1', classes=10)``, ``vision.resnet18_v1()``).

Models are built with MXNet's structure and child names, initialized with
``net.initialize()``, and hybridize. ``pretrained=True`` loads a local file (see
:mod:`._pretrained`): nothing is downloaded.
"""
from . import alexnet as _alexnet, mobilenet as _mobilenet, resnet as _resnet, vgg as _vgg
from .alexnet import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

__all__ = (["get_model"] + _alexnet.__all__ + _mobilenet.__all__ + _resnet.__all__
           + _vgg.__all__)

_MODELS = {name: getattr(_resnet, name) for name in _resnet.__all__
           if name.startswith("resnet")}
_MODELS.update({name: getattr(_vgg, name) for name in _vgg.__all__ if name.startswith("vgg")})
_MODELS.update({"alexnet": _alexnet.alexnet, "mobilenet1.0": _mobilenet.mobilenet1_0,
                "mobilenet0.75": _mobilenet.mobilenet0_75,
                "mobilenet0.5": _mobilenet.mobilenet0_5,
                "mobilenet0.25": _mobilenet.mobilenet0_25})


def get_model(name, **kwargs):
    """The model called ``name`` (case-insensitive), built with ``kwargs``
    (``classes``, ``pretrained``, ``root``, ``ctx`` or MXNet 2's ``device``...)."""
    key = str(name).lower()
    if key not in _MODELS:
        raise ValueError(f"model {name!r} is not in xprof's model zoo; available: "
                         + ", ".join(sorted(_MODELS)))
    return _MODELS[key](**kwargs)
