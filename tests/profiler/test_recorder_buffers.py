"""Per-thread buffers of threads that have ended: their events reach the dump and
dumps (never lost), then the buffers are released, so a program that keeps starting
short-lived threads does not keep memory for each."""
import gc
import threading
import tracemalloc

import xprof.runtime as mx
from xprof.runtime.profiler import recorder as R

import proftools as pt


def _short_lived_threads(n, target):
    for _ in range(n):
        t = threading.Thread(target=target)
        t.start()
        t.join()


def test_ended_threads_events_are_in_dump_and_dumps_then_released(prof):
    x = mx.nd.ones((4,))
    before = len(R.buffers)
    prof.start(profile_all=True, aggregate_stats=True)
    _short_lived_threads(1000, lambda: (x + 1).wait_to_read())
    assert len(R.buffers) >= before + 1000   # kept while they hold events
    doc = prof.finish()
    assert pt.name_counts(doc)[("operator", "_plus_scalar")] == 1000
    assert pt.stat_counts(prof.stats(), "operator")["_plus_scalar"] == 1000
    assert len(R.buffers) <= before + 5      # written: released


def test_memory_does_not_grow_with_the_number_of_ended_threads(prof):
    x = mx.nd.ones((4,))

    def retained_after(n):
        prof.start(profile_all=True, aggregate_stats=True)
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        _short_lived_threads(n, lambda: (x + 1).wait_to_read())
        prof.finish()
        prof.stats()      # the finished session's events, aggregated
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - start

    tracemalloc.start()
    try:
        retained_after(200)   # warm-up: keys, caches
        small, large = retained_after(500), retained_after(2500)
    finally:
        tracemalloc.stop()
    # was ~770 bytes per thread (a buffer, its lists and the finished session's parts)
    assert (large - small) / 2000 < 40, (small, large)


def test_buffers_of_threads_that_recorded_nothing_are_released():
    before = len(R.buffers)
    _short_lived_threads(1000, R.current_buffer)   # registers a buffer, records nothing
    assert len(R.buffers) < before + 200
