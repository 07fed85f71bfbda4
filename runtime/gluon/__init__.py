"""``mx.gluon``: MXNet-1.x-shaped imperative/hybrid model API over xprof's engine.

``Block``/``HybridBlock`` and the layers in ``gluon.nn``, ``Parameter`` and
``ParameterDict`` (deferred shape inference), ``gluon.loss``, ``gluon.Trainer`` (one
optimizer update op per parameter), ``gluon.rnn`` (recurrent layers and cells),
``gluon.data`` (datasets, ``DataLoader``, MNIST from local files),
``gluon.model_zoo.vision`` (ResNet, MobileNet, VGG, AlexNet; no download),
``gluon.contrib``, ``gluon.utils`` and ``gluon.metric`` (MXNet 2's name of ``mx.metric``).
"""
from . import parameter  # noqa: F401
from .parameter import (Constant, DeferredInitializationError, Parameter,  # noqa: F401
                        ParameterDict)
from .block import Block, HybridBlock, SymbolBlock  # noqa: F401
from . import nn, loss, data, utils, rnn, model_zoo, contrib, metric  # noqa: F401
from .trainer import Trainer  # noqa: F401

# MXNet 2 has the pixel shuffles in gluon.nn: the contrib layers (issue 45's) are those
for _name in ("PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"):
    if hasattr(contrib.nn, _name):
        setattr(nn, _name, getattr(contrib.nn, _name))

__all__ = ["Block", "HybridBlock", "SymbolBlock", "Parameter", "ParameterDict", "Constant",
           "DeferredInitializationError", "Trainer", "nn", "loss", "data", "utils", "rnn",
           "model_zoo", "contrib", "metric"]
