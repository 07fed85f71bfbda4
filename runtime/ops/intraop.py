"""Intra-op parallelism: a large matrix product split over a few threads.

MXNet's oneDNN kernels run one convolution on every core (OpenMP). xprof's engine gives
OpenBLAS one thread per engine worker (``runtime/engine``: more BLAS threads than cores
spin against each other, 5-10x slower on a loaded machine), so a convolution on the
critical path of a CNN step, which is a chain of ops, used one core of two. Here a large
product is cut into ``XPROF_INTRAOP_THREADS`` parts (default: the number of cores, at
most 4), each a single-threaded BLAS call, one on the calling thread and the others on
helper threads (numpy releases the GIL inside BLAS). When the other cores are idle the
product takes about 1/parts of the time; when they are busy the parts queue like any
thread, with no spinning. Two independent products (a convolution's weight and data
gradients) can run side by side the same way (:func:`together`).

Helpers are plain daemon threads fed by a queue; a forked child (a DataLoader worker)
starts its own on first use. ``XPROF_INTRAOP_THREADS=1`` turns this off.
"""
import os
import queue
import threading

import numpy as np

from .. import _env

# products smaller than this (multiply-adds) are not worth a hand-off (~20-40 us)
MIN_MACS = 4_000_000


def _parts():
    n = _env.get_int("INTRAOP_THREADS", 0)
    return n if n > 0 else max(1, min(4, os.cpu_count() or 1))


class _Helpers:
    """``n`` daemon threads running ``(fn, args, box)`` jobs; a job's result or error
    goes in ``box`` and its event is set."""

    def __init__(self):
        self.pid = None
        self.jobs = None
        self.lock = threading.Lock()

    def submit(self, fn, *args):
        if self.pid != os.getpid():   # first use, or a forked child: threads of its own
            with self.lock:
                if self.pid != os.getpid():
                    self.jobs = queue.SimpleQueue()
                    for i in range(PARTS - 1):
                        threading.Thread(target=self._run, args=(self.jobs,), daemon=True,
                                         name=f"xprof intra-op {i}").start()
                    self.pid = os.getpid()
        box = [threading.Event(), None, None]
        self.jobs.put((fn, args, box))
        return box

    @staticmethod
    def _run(jobs):
        _local.helper = True   # a job never splits again (it would wait on its own queue)
        while True:
            fn, args, box = jobs.get()
            try:
                box[1] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
                box[2] = e
            box[0].set()

    @staticmethod
    def wait(box):
        box[0].wait()
        if box[2] is not None:
            raise box[2]
        return box[1]


PARTS = _parts()
_helpers = _Helpers()
_local = threading.local()


def matmul(a, b, out):
    """``a @ b`` (2-D) into ``out``, cut along the larger of the result's two axes into
    :data:`PARTS` products when it is large."""
    m, k = a.shape
    n = b.shape[1]
    if PARTS < 2 or m * n * k < MIN_MACS or getattr(_local, "helper", False):
        return np.matmul(a, b, out=out)
    rows = m >= n
    size = m if rows else n
    cuts = [size * i // PARTS for i in range(PARTS + 1)]
    pieces = [(a[s:e], b, out[s:e]) if rows else (a, b[:, s:e], out[:, s:e])
              for s, e in zip(cuts, cuts[1:]) if e > s]
    boxes = [_helpers.submit(_matmul_into, *p) for p in pieces[1:]]
    _matmul_into(*pieces[0])
    for box in boxes:
        _helpers.wait(box)
    return out


def _matmul_into(a, b, out):
    np.matmul(a, b, out=out)


def together(first, second):
    """Run ``first()`` on a helper and ``second()`` here; return both results."""
    if PARTS < 2 or getattr(_local, "helper", False):
        return first(), second()
    box = _helpers.submit(first)
    try:
        two = second()
    finally:
        one = _helpers.wait(box)
    return one, two
