"""Samplers: the order in which a DataLoader visits samples, and how it cuts batches."""
import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]


class Sampler:
    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., length - 1 (from ``start``)."""

    def __init__(self, length, start=0):
        self._length = int(length)
        self._start = int(start)

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh permutation each epoch, from numpy's global generator (as in MXNet:
    ``np.random.seed`` makes it reproducible)."""

    def __init__(self, length):
        self._length = int(length)

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices.tolist())

    def __len__(self):
        return self._length


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of ``batch_size``.

    ``last_batch``: 'keep' yields a short last batch, 'discard' drops it, 'rollover'
    keeps its samples for the start of the next epoch."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in ("keep", "discard", "rollover"):
            raise ValueError(f"last_batch={last_batch!r} must be 'keep', 'discard' or "
                             "'rollover'")
        batch_size = int(batch_size)
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size} must be positive")
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        n = len(self._sampler)
        if self._last_batch == "keep":
            return (n + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return n // self._batch_size
        return (len(self._prev) + n) // self._batch_size
