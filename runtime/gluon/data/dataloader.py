"""``DataLoader``: iterate a Dataset in batches of NDArrays."""
import numbers

import numpy as np

from ...ndarray import ndarray as _nd
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_batchify_fn"]


def _to_nd(array):
    """One NDArray per batch field, keeping the samples' dtype (as MXNet does)."""
    return _nd.from_numpy(np.asarray(array))


def default_batchify_fn(data):
    """Stack a list of samples into a batch: NDArrays/numpy arrays/numbers are stacked
    along a new first axis; tuples are batched field by field (a list of batches)."""
    first = data[0]
    if isinstance(first, _nd.NDArray):
        return _nd.from_numpy(np.stack([d.asnumpy() for d in data]))
    if isinstance(first, tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    if isinstance(first, (np.ndarray, numbers.Number, np.generic)):
        return _to_nd(np.stack([np.asarray(d) for d in data]))
    if isinstance(first, (list,)):
        return _to_nd(np.asarray(data))
    raise ValueError(f"default_batchify_fn: cannot batch samples of type "
                     f"{type(first).__name__}; pass batchify_fn")


class DataLoader:
    """``DataLoader(dataset, batch_size, shuffle=False, last_batch='keep')``.

    Yields one batch per iteration: an NDArray, or a list of NDArrays for datasets of
    tuples (``for data, label in loader``). ``shuffle`` draws a new order each epoch
    from numpy's global generator; ``last_batch`` is 'keep', 'discard' or 'rollover'.
    ``num_workers`` and the other multiprocessing options are accepted and ignored:
    batches are assembled on the calling thread (arrays are copied once per batch).
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None, num_workers=0,
                 pin_memory=False, pin_device_id=0, prefetch=None, thread_pool=False,
                 timeout=120, try_nopython=None):
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("DataLoader: batch_size is required unless batch_sampler "
                                 "is given")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else \
                    SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("DataLoader: shuffle must be False when a sampler is given")
            batch_sampler = BatchSampler(sampler, batch_size,
                                         last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or \
                last_batch is not None:
            raise ValueError("DataLoader: batch_size, shuffle, sampler and last_batch must "
                             "not be given together with batch_sampler")
        self._batch_sampler = batch_sampler
        self._batchify_fn = batchify_fn
        self._num_workers = num_workers

    def __iter__(self):
        dataset = self._dataset
        fast = self._batchify_fn is None
        for indices in self._batch_sampler:
            if fast:
                batch = dataset._get_batch(indices)
                if batch is not None:
                    if isinstance(batch, tuple):
                        yield [_to_nd(b) for b in batch]
                    else:
                        yield _to_nd(batch)
                    continue
            samples = [dataset[i] for i in indices]
            fn = self._batchify_fn or default_batchify_fn
            yield fn(samples)

    def __len__(self):
        return len(self._batch_sampler)
