"""``mx.io.PrefetchingIter``: one or more iterators read ahead on background threads.

Each wrapped iterator gets a thread that fetches its next batch while the training loop
works on the current one (a pair of events per iterator: "batch ready", "batch taken").
Several iterators are zipped: a batch holds their data and labels in order (renamed
with ``rename_data``/``rename_label``, one dict per iterator). An exception inside an
iterator's ``next`` reaches the caller at the next ``next()``/``reset()``, with its
traceback; the threads are daemons and stop with the iterator.
"""
import threading

from . import DataBatch, DataDesc, DataIter

__all__ = ["PrefetchingIter"]


class PrefetchingIter(DataIter):
    """Batches of ``iters`` (one DataIter or a list), each fetched one batch ahead."""

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
