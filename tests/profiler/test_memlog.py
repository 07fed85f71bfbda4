"""The memory log's records of an array (``ndarray/memlog.py``): the allocation as it is
made, the release when the array's release object is freed; the C one
(``_memrecord.c``) makes the records the Python one does."""
import os
import sys
from time import perf_counter_ns

import pytest

from xprof.runtime.ndarray import memlog
from xprof.runtime.profiler import memory


def _check(allocated, log):
    n0 = len(log)
    t0 = perf_counter_ns()
    rel = allocated(0, 4096)
    t1 = perf_counter_ns()
    added = log[n0:]
    assert added[:2] == [0, 4096] and len(added) == 3 and t0 <= added[2] <= t1
    assert rel.entry == (0, -4096, -1)
    del rel   # (freed now: its reference count)
    assert log[n0 + 3:] == [0, -4096, -1]
    rel = allocated(0, 8)
    try:
        raise KeyError("kept")
    except KeyError as e:
        del rel   # (a free while an exception is handled leaves it as it was)
        assert sys.exc_info()[1] is e
    assert log[n0 + 6:n0 + 8] == [0, 8] and log[n0 + 9:] == [0, -8, -1]
    del log[n0:]


def test_the_python_records():
    _check(memlog._allocated, memory.log)   # (the process's log: device 0, removed after)


def test_the_native_records_are_the_python_ones():
    if not memlog.NATIVE:
        if os.environ.get("XPROF_REQUIRE_NATIVE") == "1":
            pytest.fail("runtime/profiler/_memrecord.c was not built")
        pytest.skip("runtime/profiler/_memrecord.c not built")
    from xprof.runtime.profiler._memrecord import MemLog
    log = []
    _check(MemLog(log.extend).allocated, log)
    with pytest.raises(TypeError, match="2 arguments"):
        memlog.allocated(1)
