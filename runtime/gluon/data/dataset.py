"""Datasets: indexable collections of samples, with lazy transforms."""
import numpy as np

from ...ndarray import ndarray as _nd

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Abstract dataset: ``__getitem__(idx)`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def transform(self, fn, lazy=True):
        """A dataset whose samples are ``fn(*sample)`` (``fn(sample)`` for
        non-tuple samples); ``lazy=False`` applies it to every sample now."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Apply ``fn`` to the first element of each sample only (the data, not the
        label)."""
        return self.transform(_TransformFirst(fn), lazy)

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true."""
        return SimpleDataset([self[i] for i in range(len(self)) if fn(self[i])])

    def take(self, count):
        """The first ``count`` samples (all if ``count`` is None)."""
        n = len(self) if count is None else min(int(count), len(self))
        return _SubsetDataset(self, range(n))

    def shard(self, num_shards, index):
        """Shard ``index`` of ``num_shards`` contiguous pieces."""
        if not 0 <= index < num_shards:
            raise ValueError(f"shard: index {index} is not in [0, {num_shards})")
        n = len(self)
        size, extra = divmod(n, num_shards)
        start = index * size + min(index, extra)
        end = start + size + (1 if index < extra else 0)
        return _SubsetDataset(self, range(start, end))

    def sample(self, sampler):
        return _SubsetDataset(self, list(sampler))

    def _get_batch(self, indices):
        """Samples ``indices`` stacked: a numpy array for plain samples, a tuple of
        them for tuple samples; or None when this dataset cannot do that faster than
        one sample at a time."""
        return None


class SimpleDataset(Dataset):
    """A dataset over any indexable (a list, a numpy array...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]

    def _get_batch(self, indices):
        if isinstance(self._data, np.ndarray):
            return self._data[np.asarray(indices)]
        return None


class _SubsetDataset(Dataset):
    def __init__(self, dataset, indices):
        self._dataset = dataset
        self._indices = list(indices)

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]

    def _get_batch(self, indices):
        return self._dataset._get_batch([self._indices[i] for i in indices])


class _TransformFirst:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)

    def _get_batch(self, indices):
        # Vectorized only for transform_first with a transform that accepts a batch
        # (ToTensor, Normalize, Compose of those): same values, one call per batch.
        fn = self._fn
        if not isinstance(fn, _TransformFirst) or not getattr(fn._fn, "_batchable", False):
            return None
        base = self._data._get_batch(indices)
        if base is None:
            return None
        if isinstance(base, tuple):
            return (fn._fn(base[0]),) + base[1:]
        return fn._fn(base)


class ArrayDataset(Dataset):
    """Samples ``(a[i], b[i], ...)`` from arrays of equal length (one array gives
    plain samples ``a[i]``). NDArray inputs give NDArray samples, numpy inputs numpy
    samples (as in MXNet)."""

    def __init__(self, *args):
        if not args:
            raise ValueError("ArrayDataset needs at least one array")
        self._length = len(args[0])
        self._data = []
        self._is_nd = []
        for i, a in enumerate(args):
            if len(a) != self._length:
                raise ValueError(f"ArrayDataset: all arrays must have the same length; "
                                 f"array 0 has {self._length}, array {i} has {len(a)}")
            is_nd = isinstance(a, _nd.NDArray)
            self._is_nd.append(a.__class__ if is_nd else None)   # the samples' class
            if is_nd:
                a = a.asnumpy()
            elif isinstance(a, list):
                a = np.asarray(a)
            self._data.append(a)

    def __len__(self):
        return self._length

    def _item(self, k, idx):
        v = self._data[k][idx]
        cls = self._is_nd[k]
        if cls is not None:
            return _nd.from_numpy(np.asarray(v), cls=cls)
        return v

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._item(0, idx)
        return tuple(self._item(k, idx) for k in range(len(self._data)))

    def _get_batch(self, indices):
        if not all(isinstance(d, np.ndarray) for d in self._data):
            return None
        idx = np.asarray(indices)
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(d[idx] for d in self._data)


class RecordFileDataset(Dataset):
    """Not supported: RecordIO files need MXNet's recordio reader."""

    def __init__(self, filename):
        raise ValueError("RecordFileDataset (RecordIO files) is not supported by xprof's "
                         "runtime; convert the data to numpy arrays and use ArrayDataset")
