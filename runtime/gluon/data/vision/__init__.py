"""``gluon.data.vision``: MNIST-style datasets and image folders from local files, and
image transforms."""
from .datasets import (MNIST, DatasetNotFoundError, FashionMNIST,  # noqa: F401
                       ImageFolderDataset, read_idx)
from . import transforms  # noqa: F401

__all__ = ["MNIST", "FashionMNIST", "ImageFolderDataset", "DatasetNotFoundError", "read_idx",
           "transforms"]
