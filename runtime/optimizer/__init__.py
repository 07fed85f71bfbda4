"""``mx.optimizer``: MXNet 1.x's optimizers over the engine's ops.

``optimizer`` holds the base class, the registry (``create``, ``register``) and the
``Updater``; ``sgd`` the SGD family (SGD, NAG, Signum, SGLD, DCASGD); ``adaptive`` the
per-coordinate ones (Adam, RMSProp, AdaGrad, AdaDelta, Adamax, Nadam, FTML, Ftrl);
``lamb`` LAMB. The same fused update ops are ``mx.nd.sgd_update`` & co (see
:mod:`..ndarray._update`).
"""
from ..ops import optim as _optim
from ..ops import registry as _registry
from .adaptive import FTML, AdaDelta, AdaGrad, Adam, Adamax, Ftrl, Nadam, RMSProp
from .lamb import LAMB
from .optimizer import Optimizer, Updater, create, get_updater, register
from .sgd import DCASGD, NAG, SGD, SGLD, Signum, Test, ccSGD

__all__ = ["Optimizer", "SGD", "ccSGD", "NAG", "Signum", "SGLD", "DCASGD", "Adam", "RMSProp",
           "AdaGrad", "AdaDelta", "Adamax", "Nadam", "FTML", "Ftrl", "LAMB", "Updater",
           "get_updater", "create", "register"]

# MXNet spells these in lower case too
sgd, nag, signum, sgld, dcasgd = SGD, NAG, Signum, SGLD, DCASGD
adam, rmsprop, adagrad, adadelta, adamax, nadam, ftml, ftrl = (
    Adam, RMSProp, AdaGrad, AdaDelta, Adamax, Nadam, FTML, Ftrl)
lamb = LAMB
assert set(_optim.UPDATE_OPS) <= set(_registry.registry)
