"""``mx.io``: data iterators for the Module API and MXNet 1.x training loops.

``DataDesc`` names a batch's arrays (name, shape, dtype, layout); ``DataBatch`` is one
batch (``data``, ``label`` lists of NDArrays, ``pad``: how many trailing samples repeat
earlier ones to fill the batch); ``DataIter`` is the protocol (``reset``, ``next``,
``provide_data``, ``provide_label``, iteration). ``NDArrayIter`` batches in-memory
arrays with MXNet's ``last_batch_handle``: ``'pad'`` fills the last batch by wrapping
around to the first samples, ``'discard'`` drops it, ``'roll_over'`` carries its samples
into the first batch of the next epoch. ``CSVIter`` and ``MNISTIter`` read local files
(nothing is downloaded); ``MNISTIter`` as MXNet's C++ one: shuffled once at load unless
``shuffle=False``, pixels / 256, the last partial batch dropped. ``PrefetchingIter``
reads iterators ahead on threads (see its docstring). ``ImageRecordIter`` and
``LibSVMIter`` (MXNet's C++ decoders) raise ``NotImplementedError``; ``mx.image.ImageIter``
reads RecordIO image files.
"""
import gzip
import os
import struct
import threading
from collections import OrderedDict, namedtuple
from time import perf_counter_ns

import numpy as np

from ..context import current_context
from ..ndarray import NDArray
from ..ndarray.ndarray import new_array as _new_array
from ..profiler.observer import flags as _flags, observer as _observer

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "ResizeIter", "CSVIter",
           "MNISTIter", "ImageRecordIter", "LibSVMIter", "ImageRecordUInt8Iter",
           "PrefetchingIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name and shape of one input, with its dtype and layout (``'NCHW'``, ``'NTC'``)."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{np.dtype(self.dtype)},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The axis of ``N`` in ``layout`` (0 when no layout is given)."""
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``[(name, shape)]`` and optional ``[(name, dtype)]``."""
        if types is not None:
            types = dict(types)
            return [DataDesc(n, s, types[n]) for n, s in shapes]
        return [DataDesc(n, s) for n, s in shapes]


class DataBatch:
    """One batch: ``data`` and ``label`` (lists of NDArrays), ``pad``, ``index``."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise ValueError(f"DataBatch: data must be a list of NDArrays, got "
                             f"{type(data).__name__}")
        if label is not None and not isinstance(label, (list, tuple)):
            raise ValueError(f"DataBatch: label must be a list of NDArrays, got "
                             f"{type(label).__name__}")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        shapes = [d.shape for d in self.data] if self.data is not None else None
        lshapes = [d.shape for d in self.label] if self.label is not None else None
        return f"{type(self).__name__}: data shapes: {shapes} label shapes: {lshapes}"


class DataIter:
    """The iterator protocol; subclasses define ``iter_next`` and the ``get*`` methods,
    or ``next`` itself."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        return False

    def getdata(self):
        return None

    def getlabel(self):
        return None

    def getindex(self):
        return None

    def getpad(self):
        return 0


def _as_named(data, default_name, allow_empty, stypes=None):
    """``[(name, numpy array)]`` sorted by name, from an array, a list or a dict;
    ``stypes`` receives the storage type of the sparse ones (csr for a scipy matrix)."""
    if data is None:
        if not allow_empty:
            raise ValueError("NDArrayIter: data must not be None")
        data = []
    if isinstance(data, (np.ndarray, NDArray)) or type(data).__module__.startswith(
            "scipy.sparse"):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not data and not allow_empty:
            raise ValueError("NDArrayIter: data must not be empty")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict((f"_{i}_{default_name}", d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError(f"NDArrayIter: {default_name} must be an NDArray, a numpy array, a "
                        f"list or a dict of them, got {type(data).__name__}")
    out = []
    for k, v in data.items():
        if type(v).__module__.startswith("scipy.sparse"):      # a csr batch, as MXNet's
            stypes[k] = "csr"
            v = v.toarray()
        elif getattr(v, "stype", "default") != "default":
            stypes[k] = v.stype
        out.append((k, v.asnumpy() if isinstance(v, NDArray) else np.asarray(v)))
    return sorted(out, key=lambda kv: kv[0])


def _wrap(values, ctx):
    """An NDArray holding ``values`` (a fresh numpy array nobody else holds), ready."""
    a = _new_array(values.shape, values.dtype, ctx, "io")
    a._data = values
    return a


_LAST_BATCH = ("pad", "discard", "roll_over")


class NDArrayIter(DataIter):
    """Batches of in-memory arrays (see the module docstring for ``last_batch_handle``)."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle="pad", data_name="data", label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(f"NDArrayIter: last_batch_handle={last_batch_handle!r} is not "
                             f"one of {', '.join(_LAST_BATCH)}")
        if int(batch_size) < 1:
            raise ValueError(f"NDArrayIter: batch_size={batch_size!r} must be at least 1")
        self._stypes = {}        # sparse inputs give batches of their storage type
        self.data = _as_named(data, data_name, False, self._stypes)
        self.label = _as_named(label, label_name, True, self._stypes)
        if self._stypes and last_batch_handle != "discard":
            raise NotImplementedError("NDArrayIter: sparse data needs "
                                      "last_batch_handle='discard' (as MXNet's)")
        self.num_data = self.data[0][1].shape[0]
        for name, arr in self.data + self.label:   # MXNet reads only the first num_data
            if arr.shape[0] < self.num_data:
                raise ValueError(f"NDArrayIter: {name} has {arr.shape[0]} samples, "
                                 f"{self.data[0][0]} has {self.num_data}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.idx = np.arange(self.num_data)
        self._leftover = np.zeros(0, dtype=np.int64)
        self._new_epoch()

    def _new_epoch(self):
        if self.shuffle:
            np.random.shuffle(self.idx)
        self._order = np.concatenate([self._leftover, self.idx]).astype(np.int64)
        self._leftover = np.zeros(0, dtype=np.int64)
        self.cursor = -self.batch_size
        self._batch = None
        self._pad = 0

    @property
    def provide_data(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.label]

    def hard_reset(self):
        """Start over, dropping a rolled-over remainder."""
        self._leftover = np.zeros(0, dtype=np.int64)
        self._new_epoch()

    def reset(self):
        self._new_epoch()

    def iter_next(self):
        self.cursor += self.batch_size
        n = len(self._order)
        if self.cursor >= n:
            return False
        end = self.cursor + self.batch_size
        if end <= n:
            self._batch, self._pad = self._order[self.cursor:end], 0
            return True
        if self.last_batch_handle == "discard":
            return False
        if self.last_batch_handle == "roll_over":
            self._leftover = self._order[self.cursor:]
            return False
        pad = end - n
        wrap = np.arange(self.cursor, end) % n
        self._batch, self._pad = self._order[wrap], pad
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self._take(self.data), label=self._take(self.label),
                         pad=self.getpad(), index=None)

    def _take(self, named):
        # the index array makes numpy copy the rows: that copy becomes the batch's
        # array as it is (no second copy; ~4x faster than mx.nd.array per batch)
        batch, ctx = self._batch, current_context()
        t0 = perf_counter_ns() if _flags.api else 0
        out = []
        stypes = getattr(self, "_stypes", {})
        for name, arr in named:
            a = _wrap(arr[batch], ctx)
            out.append(a if name not in stypes else a.tostype(stypes[name]))
            if t0:       # the API event mx.nd.array records for each batch array
                _observer.api("array", t0)
                t0 = perf_counter_ns()
        return out

    def getdata(self):
        return self._take(self.data)

    def getlabel(self):
        return self._take(self.label)

    def getpad(self):
        return self._pad

    def getindex(self):
        return self._batch


class ResizeIter(DataIter):
    """``data_iter`` cut or repeated (resetting it) to ``size`` batches per epoch."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return self.current_batch


def _read_csv(path, shape, dtype):
    if not os.path.isfile(path):
        raise ValueError(f"CSVIter: {path!r} is not a file")
    values = np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)
    return values.reshape((values.shape[0],) + tuple(shape))


class _SingleArrayIter(NDArrayIter):
    """MXNet's C++ iterators: ``getdata()``/``getlabel()`` give one array, not a list."""

    def getdata(self):
        return self._take(self.data)[0]

    def getlabel(self):
        return self._take(self.label)[0]


class CSVIter(_SingleArrayIter):
    """Rows of a local CSV file (``data_csv``, optional ``label_csv``), each reshaped to
    ``data_shape`` / ``label_shape``."""

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, dtype="float32", **_):
        data = _read_csv(data_csv, data_shape, dtype)
        label = (_read_csv(label_csv, label_shape, dtype) if label_csv
                 else np.zeros((data.shape[0],) + tuple(label_shape), dtype))
        super().__init__(data, label, batch_size,
                         last_batch_handle="pad" if round_batch else "discard")


def _read_idx(path):
    """An MNIST idx file (optionally gzipped): magic, dims, then uint8 values."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ValueError(f"MNISTIter: cannot read {path!r}: {e.strerror or e}") from None
    if len(blob) < 4 or blob[0] != 0 or blob[1] != 0 or blob[2] != 8:
        raise ValueError(f"MNISTIter: {path!r} is not an idx file of unsigned bytes")
    ndim = blob[3]
    dims = struct.unpack_from(f">{ndim}I", blob, 4)
    return np.frombuffer(blob, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


class MNISTIter(_SingleArrayIter):
    """MNIST from local idx files (``image``, ``label``; gzipped or not): pixels / 256 as
    MXNet's, (N, 784) with ``flat`` else (N, 1, 28, 28); shuffled once when loaded
    (``shuffle``, default True as MXNet's; ``seed``); the last partial batch dropped."""

    def __init__(self, image, label, batch_size=128, shuffle=True, flat=False, silent=False,
                 seed=0, num_parts=1, part_index=0, **_):
        images = _read_idx(image).astype(np.float32) * np.float32(1.0 / 256.0)
        labels = _read_idx(label).astype(np.float32)
        if images.shape[0] != labels.shape[0]:
            raise ValueError(f"MNISTIter: {image!r} has {images.shape[0]} images, {label!r} "
                             f"{labels.shape[0]} labels")
        n = images.shape[0] // num_parts
        images = images[part_index * n:(part_index + 1) * n]
        labels = labels[part_index * n:(part_index + 1) * n]
        images = images.reshape(len(images), -1) if flat else images.reshape(
            (len(images), 1) + images.shape[1:])
        if shuffle:
            order = np.random.default_rng(seed).permutation(len(images))
            images, labels = images[order], labels[order]
        super().__init__(images, labels, batch_size, last_batch_handle="discard")


def _no_recordio(name):
    def make(*args, **kwargs):
        raise NotImplementedError(f"mx.io.{name}: RecordIO/LibSVM iterators need MXNet's C++ "
                                  "decoders, which xprof does not have; use NDArrayIter, "
                                  "CSVIter, MNISTIter or gluon.data")
    make.__name__ = name
    return make


ImageRecordIter = _no_recordio("ImageRecordIter")
ImageRecordUInt8Iter = _no_recordio("ImageRecordUInt8Iter")
LibSVMIter = _no_recordio("LibSVMIter")

class PrefetchingIter(DataIter):
    """Batches of ``iters`` (one DataIter or a list), each fetched one batch ahead.

    ``mx.io.PrefetchingIter``: one or more iterators read ahead on background threads.
    
    Each wrapped iterator gets a thread that fetches its next batch while the training loop
    works on the current one (a pair of events per iterator: "batch ready", "batch taken").
    Several iterators are zipped: a batch holds their data and labels in order (renamed
    with ``rename_data``/``rename_label``, one dict per iterator). An exception inside an
    iterator's ``next`` reaches the caller at the next ``next()``/``reset()``, with its
    traceback; the threads are daemons and stop with the iterator.
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise ValueError("PrefetchingIter: iters is empty")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in iters]
        self.data_taken = [threading.Event() for _ in iters]
        for taken in self.data_taken:
            taken.set()
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self._errors = [None] * self.n_iter
        self.prefetch_threads = [threading.Thread(target=self._fetch, args=(i,), daemon=True,
                                                  name=f"PrefetchingIter {i}")
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def _fetch(self, i):
        while True:
            self.data_taken[i].wait()
            if not self.started:
                return
            try:
                self.next_batch[i] = self.iters[i].next()
            except StopIteration:
                self.next_batch[i] = None
            except BaseException as e:   # noqa: B902 - handed to the caller's thread
                self.next_batch[i] = None
                self._errors[i] = e
            self.data_taken[i].clear()
            self.data_ready[i].set()

    def __del__(self):
        self.started = False
        for taken in getattr(self, "data_taken", ()):
            taken.set()
        for thread in getattr(self, "prefetch_threads", ()):
            if thread is not threading.current_thread():
                thread.join()

    def _renamed(self, attr, renames):
        if renames is None:
            return sum([getattr(it, attr) for it in self.iters], [])
        return [DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc)
                else DataDesc(r[x[0]], x[1])
                for r, it in zip(renames, self.iters) for x in getattr(it, attr)]

    @property
    def provide_data(self):
        return self._renamed("provide_data", self.rename_data)

    @property
    def provide_label(self):
        return self._renamed("provide_label", self.rename_label)

    def _raise_pending(self):
        for i, err in enumerate(self._errors):
            if err is not None:
                self._errors[i] = None
                raise err

    def reset(self):
        for ready in self.data_ready:
            ready.wait()
        self._raise_pending()
        for it in self.iters:
            it.reset()
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()

    def iter_next(self):
        for ready in self.data_ready:
            ready.wait()
        self._raise_pending()
        batches = self.next_batch
        if batches[0] is None:
            if any(b is not None for b in batches):
                raise ValueError("PrefetchingIter: the iterators have different numbers "
                                 "of batches")
            return False
        if any(b.pad != batches[0].pad for b in batches):
            raise ValueError("PrefetchingIter: the iterators' batches have different pads")
        self.current_batch = DataBatch(sum([b.data for b in batches], []),
                                       sum([b.label for b in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
