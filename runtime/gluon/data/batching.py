"""Assembling one batch from a dataset: the work a DataLoader hands to its workers.

``load_batch`` is the same code whether the batch is made on the calling thread, on a
worker thread or in a worker process, so the three give the same batches. While the
profiler records (in a worker: while its parent does), each sample's ``__getitem__``
(transforms included) and each batch's ``batchify`` are slices of category
``DataLoader`` on the thread that ran them (``_get_batch`` for datasets that slice many
samples at once).
"""
import numbers
from time import perf_counter_ns

import numpy as np

from ...ndarray import ndarray as _nd
from .. import _arrays
from ...profiler.observer import flags as _flags, observer as _observer

CATEGORY = "DataLoader"

__all__ = ["default_batchify_fn", "load_batch"]


def _to_nd(array):
    """One array per batch field, keeping the samples' dtype (as MXNet does)."""
    return _arrays.from_numpy(np.asarray(array))


def default_batchify_fn(data):
    """Stack a list of samples into a batch: NDArrays/numpy arrays/numbers are stacked
    along a new first axis; tuples are batched field by field (a list of batches)."""
    first = data[0]
    if isinstance(first, _nd.NDArray):
        return _nd.from_numpy(np.stack([d.asnumpy() for d in data]), cls=first.__class__)
    if isinstance(first, tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    if isinstance(first, (np.ndarray, numbers.Number, np.generic)):
        return _to_nd(np.stack([np.asarray(d) for d in data]))
    if isinstance(first, (list,)):
        return _to_nd(np.asarray(data))
    raise ValueError(f"default_batchify_fn: cannot batch samples of type "
                     f"{type(first).__name__}; pass batchify_fn")


def load_batch(dataset, batchify_fn, indices):
    """The batch of samples ``indices``: ``batchify_fn([dataset[i] for i in indices])``.

    Without a ``batchify_fn``, a dataset that can slice many samples at once (its
    ``_get_batch``: numpy-backed datasets) is asked first, which gives the same values
    as stacking its samples one by one, faster."""
    if _flags.recording:
        return _load_recorded(dataset, batchify_fn, indices)
    if batchify_fn is None:
        get_batch = getattr(dataset, "_get_batch", None)
        batch = get_batch(indices) if get_batch is not None else None
        if batch is not None:
            return _batch_to_nd(batch)
        batchify_fn = default_batchify_fn
    return batchify_fn([dataset[i] for i in indices])


def _batch_to_nd(batch):
    if isinstance(batch, tuple):
        return [_to_nd(b) for b in batch]
    return _to_nd(batch)


def _load_recorded(dataset, batchify_fn, indices):
    """``load_batch`` with its steps recorded as slices."""
    record = _observer.slice
    if batchify_fn is None:
        get_batch = getattr(dataset, "_get_batch", None)
        if get_batch is not None:
            t0 = perf_counter_ns()
            batch = get_batch(indices)
            if batch is not None:
                batch = _batch_to_nd(batch)
                record("_get_batch", CATEGORY, t0, perf_counter_ns())
                return batch
        batchify_fn = default_batchify_fn
    samples = []
    for i in indices:
        t0 = perf_counter_ns()
        samples.append(dataset[i])
        record("__getitem__", CATEGORY, t0, perf_counter_ns())
    t0 = perf_counter_ns()
    batch = batchify_fn(samples)
    record("batchify", CATEGORY, t0, perf_counter_ns())
    return batch


def map_leaves(fn, batch, leaf_type):
    """``batch`` with every ``leaf_type`` inside it (in lists, tuples, named tuples and
    dict values, nested) replaced by ``fn(leaf)``; anything else is kept as it is."""
    if isinstance(batch, leaf_type):
        return fn(batch)
    if isinstance(batch, list):
        return [map_leaves(fn, b, leaf_type) for b in batch]
    if isinstance(batch, tuple):
        items = [map_leaves(fn, b, leaf_type) for b in batch]
        return type(batch)(*items) if hasattr(batch, "_fields") else type(batch)(items)
    if isinstance(batch, dict):
        return type(batch)((k, map_leaves(fn, v, leaf_type)) for k, v in batch.items())
    return batch


def as_in_context(batch, ctx):
    """``batch`` with its NDArrays copied to ``ctx`` (``pin_memory``: MXNet copies
    batches to ``cpu_pinned``)."""
    return map_leaves(lambda a: a.as_in_context(ctx), batch, _nd.NDArray)
