"""``DataLoader``: iterate a Dataset in batches of NDArrays, optionally in workers."""
import operator
import weakref
from time import perf_counter_ns

from ... import context as _context
from ...ndarray.ndarray import NDArray
from ...util import is_np_array
from ...profiler.observer import flags as _flags, observer as _observer
from .batching import CATEGORY, as_in_context, default_batchify_fn, load_batch, map_leaves
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from .worker_pool import ProcessWorkers, ThreadWorkers

__all__ = ["DataLoader", "default_batchify_fn"]

# The slice, on the training loop's thread, for the time it waited for a worker's batch
# (what makes an input-bound loop visible).
WAIT_SLICE = "wait for batch"


class DataLoader:
    """``DataLoader(dataset, batch_size, shuffle=False, last_batch='keep', ...)``, as in
    MXNet 1.x.

    Yields one batch per iteration: an NDArray, or a list of NDArrays for datasets of
    tuples (``for data, label in loader``). ``shuffle`` draws a new order each epoch
    from numpy's global generator; ``last_batch`` is 'keep', 'discard' or 'rollover'.

    ``num_workers > 0`` loads batches (``__getitem__``, transforms, ``batchify_fn``) in
    that many worker processes, forked when the first iteration starts and kept for the
    loader's life (``thread_pool=True``: worker threads). Batches arrive in the
    sampler's order; ``prefetch`` batches (default ``2 * num_workers``) are requested
    ahead of the one the loop waits for; waiting for one batch longer than ``timeout``
    seconds raises ``multiprocessing.TimeoutError``; a worker that dies raises
    ``RuntimeError`` naming it. ``pin_memory=True`` gives batches on
    ``cpu_pinned(pin_device_id)``. ``auto_reload`` (MXNet 1.9.1: prefetch the next
    epoch when one ends) is accepted; the workers live as long as the loader, and an
    epoch's first requests are sent when its iteration starts, either way.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None, num_workers=0,
                 pin_memory=False, pin_device_id=0, prefetch=None, thread_pool=False,
                 timeout=120, try_nopython=None, auto_reload=True):
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
        if not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"DataLoader: timeout={timeout!r} must be a positive number "
                             "of seconds")
        self._batch_sampler = batch_sampler
        self._batchify_fn = batchify_fn
        self._num_workers = max(0, _as_int("num_workers", num_workers))
        self._prefetch = max(0, _as_int("prefetch", prefetch)) if prefetch is not None \
            else 2 * self._num_workers
        self._thread_pool = bool(thread_pool)
        self._timeout = timeout
        self._auto_reload = bool(auto_reload)
        self._pin_ctx = _context.cpu_pinned(pin_device_id) if pin_memory else None
        self._workers = None

    def __iter__(self):
        if self._num_workers == 0:
            batches = self._same_thread_iter()
        else:
            batches = self._workers_iter(self._started_workers())
        if is_np_array():    # asked here, on the loop's thread (see _arrays.py)
            return self._as_np(batches)
        return batches

    @staticmethod
    def _as_np(batches):
        """The batches' arrays as np arrays (no copy, no wait: ``as_np_ndarray``)."""
        for batch in batches:
            yield map_leaves(_np_of, batch, NDArray)

    def _same_thread_iter(self):
        for indices in self._batch_sampler:
            yield self._pinned(load_batch(self._dataset, self._batchify_fn, indices))

    def _pinned(self, batch):
        return batch if self._pin_ctx is None else as_in_context(batch, self._pin_ctx)

    def _started_workers(self):
        workers = self._workers
        if workers is None or workers.broken:
            if self._thread_pool:
                workers = ThreadWorkers(self._num_workers, self._dataset, self._batchify_fn)
            else:
                workers = ProcessWorkers(self._num_workers, self._dataset,
                                         self._batchify_fn, self._pin_ctx)
            workers.start()
            self._workers = workers
            # stopped when the loader is collected, or at exit at the latest
            weakref.finalize(self, workers.stop)
        return workers

    def _workers_iter(self, workers):
        """``prefetch + 1`` batches are requested before the first wait, and each batch
        received is replaced by the next request before the loop gets it, so the
        workers keep working while the loop does."""
        epoch = workers.open_epoch()
        batches = iter(self._batch_sampler)
        sent = received = 0
        pin_here = self._thread_pool
        try:
            for _ in range(self._prefetch + 1):
                indices = next(batches, None)
                if indices is None:
                    break
                workers.submit(epoch, sent, indices)
                sent += 1
            while received < sent:
                t0 = perf_counter_ns()
                batch = workers.receive(epoch, received, self._timeout)
                if _flags.recording:
                    _observer.slice(WAIT_SLICE, CATEGORY, t0, perf_counter_ns())
                received += 1
                indices = next(batches, None)
                if indices is not None:
                    workers.submit(epoch, sent, indices)
                    sent += 1
                yield self._pinned(batch) if pin_here else batch
        finally:
            workers.close_epoch(epoch)

    def __len__(self):
        return len(self._batch_sampler)


def _np_of(array):
    return array.as_np_ndarray()


def _as_int(name, value):
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"DataLoader: {name}={value!r} must be an integer") from None
