"""Another process's flushes in this profile (runtime/profiler/process_tracks.py):
slice keys and thread ids translated, times on this process's clock (moved only when
the two processes' clocks differ), one track group per process in the trace."""
import os
import time
from time import perf_counter_ns

from xprof.runtime.profiler import process_tracks as pt, records, recorder as R


def _flush(t, keys, buffers, clock=None):
    return {"clock": clock or (perf_counter_ns(), time.time_ns()), "keys": keys,
            "buffers": buffers}


def test_keys_and_thread_ids_are_translated():
    proc = pt.Process("DataLoader worker 9", "pid 1")
    t = perf_counter_ns()
    sub = (records.SUB_OPERATOR, "Op::_plus", "Custom Operator", t + 5, t + 6, t + 4, 7,
           t + 1, "Op")
    proc.ingest(_flush(t, {900001: ("__getitem__", "DataLoader")},
                       [(0, "main thread", 0, True, [], [900001, t, t + 10]),
                        (7, "custom op worker 0", 200, True, [sub], [])]))
    assert proc.offset_ns == 0                       # one clock on one machine
    main, pool = [b for b in R.buffers if getattr(b, "process", None) is proc]
    assert main.name == "main thread" and pool.name == "custom op worker 0"
    key = R.key_ids("DataLoader")["__getitem__"]
    assert main.slices == [key, t, t + 10]
    (got,) = pool.events
    assert got[6] == pool.tid and got[3:6] == sub[3:6]   # the call's thread, here
    # a second flush reuses the keys and buffers it learned
    proc.ingest(_flush(t, {}, [(0, "main thread", 0, True, [], [900001, t + 20, t + 30])]))
    assert main.slices == [key, t, t + 10, key, t + 20, t + 30]
    assert proc.flushes == 2


def test_a_different_clock_is_aligned_by_the_wall_clock():
    proc = pt.Process("elsewhere")
    perf, wall = perf_counter_ns(), time.time_ns()
    # that process's monotonic clock reads 5 s more than ours at the same wall time
    proc.ingest(_flush(0, {900002: ("x", "DataLoader")},
                       [(0, "main thread", 0, True,
                         [records.counter("Memory: cpu/0", "Device Storage",
                                          perf + 5_000_000_000, 64)],
                         [900002, perf + 5_000_000_000, perf + 5_000_001_000])],
                       clock=(perf + 5_000_000_000, wall)))
    assert abs(proc.offset_ns + 5_000_000_000) < 50_000_000
    (buf,) = [b for b in R.buffers if getattr(b, "process", None) is proc]
    assert abs(buf.slices[1] - perf) < 50_000_000 and buf.slices[2] - buf.slices[1] == 1000
    assert abs(buf.events[0][3] - perf) < 50_000_000


def test_perf_counter_is_one_clock_across_processes():
    """A forked child's (perf_counter_ns, time_ns) offset equals the parent's."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, repr(pt._clock_pair()).encode())
        os._exit(0)
    os.close(w)
    child = eval(os.read(r, 200).decode())
    os.close(r)
    os.waitpid(pid, 0)
    parent = pt._clock_pair()
    delta = (child[1] - child[0]) - (parent[1] - parent[0])
    assert abs(delta) <= pt.SAME_CLOCK_NS


def test_op_records_keys_pushers_and_stamps_are_translated():
    """A worker's op record names its op by the worker's slice key (with input shapes)
    and its pusher by the worker's thread id: both become this process's, and every
    time stamp it has moves with the clock (None stays None)."""
    proc = pt.Process("DataLoader worker 8")
    perf, wall = perf_counter_ns(), time.time_ns()
    far = perf + 2_000_000_000    # the worker's clock reads 2 s more
    op = records.op_dep("stack", "operator", far + 10, far + 20, far + 2, far + 5, 3,
                        (1,), (2,), 900010)
    inline = records.op_dep("_plus_scalar", "operator", far + 30, far + 40, None, None,
                            None, (2,), (4,), 900011)
    proc.ingest(_flush(0, {900010: ("stack", "operator", ((2, 3), (2, 3))),
                           900011: ("_plus_scalar", "operator")},
                       [(0, "main thread", 0, True, [], []),
                        (3, "engine worker 0", 100, True, [op, inline], [])],
                       clock=(far, wall)))
    main, worker = [b for b in R.buffers if getattr(b, "process", None) is proc]
    got, got_inline = worker.events
    assert got[10] == R.shaped_keys[("stack", ((2, 3), (2, 3)))]
    assert R.shaped_key_sigs()[got[10]] == ((2, 3), (2, 3))
    assert got_inline[10] == R.key_ids("operator")["_plus_scalar"]
    assert got[7] == worker.tid                       # pushed by that thread, here
    assert abs(got[3] - (perf + 10)) < 50_000_000
    assert [got[4] - got[3], got[3] - got[5], got[3] - got[6]] == [10, 8, 5]
    assert got_inline[5:8] == (None, None, None)
