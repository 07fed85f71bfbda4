"""``gluon.data.vision``: MNIST-style datasets from local files, and image transforms."""
from .datasets import MNIST, DatasetNotFoundError, FashionMNIST, read_idx  # noqa: F401
from . import transforms  # noqa: F401

__all__ = ["MNIST", "FashionMNIST", "DatasetNotFoundError", "read_idx", "transforms"]
