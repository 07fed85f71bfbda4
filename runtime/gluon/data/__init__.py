"""``gluon.data``: datasets, samplers and the DataLoader."""
from .dataset import ArrayDataset, Dataset, RecordFileDataset, SimpleDataset  # noqa: F401
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler  # noqa: F401
from .batching import default_batchify_fn  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from . import vision  # noqa: F401

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "BatchSampler", "DataLoader",
           "default_batchify_fn", "vision"]
