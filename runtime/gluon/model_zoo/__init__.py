"""``gluon.model_zoo``: model definitions (``vision``); no weights are downloaded."""
from . import vision  # noqa: F401

__all__ = ["vision", "get_model"]


def get_model(name, **kwargs):
    """A model of :mod:`.vision` by name (``'resnet18_v1'``, ``'mobilenet1.0'``...)."""
    return vision.get_model(name, **kwargs)
