"""NDArray operators through the engine: their profiled names, asynchrony, which thread
runs them, freeing arrays with pending ops, and errors raised inside kernels."""
import gc
import re
import threading
import traceback
import weakref

import numpy as np
import pytest

import xprof.runtime as mx

from threadtools import run_in_threads


def _gate(engine):
    gate = threading.Event()
    if engine.name == "NaiveEngine":   # ops run inside push there: never block
        gate.set()
    return gate


# -- operator names ------------------------------------------------------------------
def test_operator_names_in_profile(engine, profile):
    with profile() as box:
        x = mx.nd.zeros((4, 4))               # _zeros
        y = mx.nd.ones((4, 4))                # _ones
        x + 1                                 # _plus_scalar
        x + y                                 # broadcast_add (MXNet 1.x, any shapes)
        x + mx.nd.ones((1, 4))                # broadcast_add (and _ones)
        1 - x                                 # _rminus_scalar
        x - 1                                 # _minus_scalar
        2 * x                                 # _mul_scalar
        x / y                                 # broadcast_div
        1 / (y + 1)                           # _rdiv_scalar
        -x                                    # _mul_scalar (MXNet: x * -1.0)
        x.copyto(y)                           # CopyCPU2CPU
        x.copy()                              # CopyCPU2CPU (MXNet: copyto(ctx))
        mx.nd.dot(x, y)                       # dot
        x.sum(axis=0)                         # sum
        x.reshape((16,))                      # Reshape (a view in MXNet: no op)
        x[1:3]                                # slice
        mx.nd.full((2,), 3.0)                 # _full
        mx.nd.arange(3)                       # _arange
    names = box.trace.names()
    for expected in ["_zeros", "_ones", "_plus_scalar", "broadcast_add",
                     "_rminus_scalar", "_minus_scalar", "_mul_scalar", "broadcast_div",
                     "_rdiv_scalar", "CopyCPU2CPU", "dot", "sum",
                     "Reshape", "slice", "_full", "_arange"]:
        assert expected in names, (expected, names)
    assert names.count("_zeros") == 1
    # the engine's own bookkeeping never shows up as an operator
    assert not [n for n in names if re.search(r"(?i)free|delete|wait|seed", n)]


def test_exact_operator_sequence(engine, profile):
    with profile() as box:
        x = mx.nd.zeros((3,))
        y = x + 1
        z = x + y
        w = 1 - z
        v = -w
        v.copyto(x)
    assert box.trace.names() == ["_zeros", "_plus_scalar", "broadcast_add",
                                 "_rminus_scalar", "_mul_scalar", "CopyCPU2CPU"]
    np.testing.assert_array_equal(x.asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(v.asnumpy(), [0, 0, 0])


def test_copyto_context_and_array_are_named(engine, profile):
    x = mx.nd.array([1, 2])                     # from numpy: no engine op
    with profile() as box:
        y = x.copyto(mx.cpu(1))
        mx.nd.array([3, 4])
    assert box.trace.names() == ["CopyCPU2CPU"]
    np.testing.assert_array_equal(y.asnumpy(), [1, 2])


# -- asynchrony -------------------------------------------------------------------------
def test_big_dot_push_returns_before_result_is_ready(threaded_engine, test_ops):
    """Pushing a 2000x2000 dot returns while the result is not computed yet: every
    worker is held busy, so the dot cannot have run when the call returns."""
    eng = threaded_engine
    gates = [threading.Event() for _ in range(eng.num_workers)]
    blockers = [test_ops.gated(mx.nd.zeros((1,)), g) for g in gates]
    a = mx.nd.ones((2000, 2000))
    b = mx.nd.ones((2000, 2000)) * 0.5
    c = mx.nd.dot(a, b)                     # returns at once
    assert c.shape == (2000, 2000)
    assert c._data is None                  # not computed
    assert c._var.writer or c._var.queue    # a write to c is pending in the engine
    assert eng.pending() >= 1
    for g in gates:
        g.set()
    col = c[:, 0].asnumpy()
    np.testing.assert_array_equal(col, np.full(2000, 1000.0, np.float32))
    assert not (c._var.writer or c._var.queue)
    for blk in blockers:
        blk.wait_to_read()


def test_dependent_op_on_pending_input_returns_immediately(engine, test_ops):
    gate = _gate(engine)
    x = test_ops.gated(mx.nd.arange(4), gate)
    y = (x + 1) * 2                      # both pushed while x is not written yet
    z = y.sum()
    if engine.name == "ThreadedEngine":
        assert x._data is None and y._data is None and z._data is None
    gate.set()
    assert z.asscalar() == 2 * (1 + 2 + 3 + 4)


def test_heavy_op_on_worker_cheap_op_on_main_thread(threaded_engine, profile):
    a = mx.nd.ones((200, 200))
    a.wait_to_read()
    with profile() as box:
        heavy = mx.nd.dot(a, a)          # cost 8e6 >= inline threshold -> a worker
        cheap = a + 1                    # ready input, small -> runs inline here
        heavy.wait_to_read()
        cheap.wait_to_read()
    trace = box.trace
    assert re.fullmatch(r"engine worker \d+", trace.thread_of("dot")[0])
    assert trace.thread_of("_plus_scalar") == ["main thread"]
    worker_tids = {tid for tid, name in trace.thread_names.items()
                   if name.startswith("engine worker")}
    dot_event = [e for e in trace.ops if e["name"] == "dot"][0]
    assert dot_event["tid"] in worker_tids


def test_naive_engine_runs_everything_on_main_thread(profile):
    import xprof.runtime.engine as engine_mod
    engine_mod.set_engine_type("NaiveEngine")
    try:
        a = mx.nd.ones((200, 200))
        with profile() as box:
            mx.nd.dot(a, a)
            a + 1
        assert set(box.trace.thread_of("dot") + box.trace.thread_of("_plus_scalar")) \
            == {"main thread"}
    finally:
        engine_mod.set_engine_type("ThreadedEngine")


def test_results_read_from_other_threads(engine):
    """Arrays made on one thread are read correctly from others (sync points are
    thread-safe)."""
    x = mx.nd.arange(1000)
    outs = {}

    def work(i):
        y = (x * i + 1).sum()
        outs[i] = y.asscalar()

    errors = run_in_threads(work, 6, timeout=60)
    assert errors == []
    for i in range(6):
        assert outs[i] == i * 499500 + 1000


# -- freeing arrays -------------------------------------------------------------------------
def test_free_array_while_op_using_it_is_pending(engine, test_ops, profile):
    gate = _gate(engine)
    with profile() as box:
        x = test_ops.gated(mx.nd.ones((64, 64)), gate)   # x is written later
        y = x * 3 + 1                                    # pending reads of x
        x_ref = weakref.ref(x)
        del x
        gc.collect()
        gate.set()
        out = y.asnumpy()
        mx.nd.waitall()
    np.testing.assert_array_equal(out, np.full((64, 64), 4, np.float32))
    gc.collect()
    assert x_ref() is None, "the array was not released after its ops finished"
    names = box.trace.names()
    assert names == ["_ones", "_xprof_test_gate", "_mul_scalar", "_plus_scalar"], names


def test_freeing_many_temporaries_is_safe(engine):
    x = mx.nd.ones((32,))
    for _ in range(200):
        x = (x + 1) * 1          # each old x is dropped while ops on it may be pending
    np.testing.assert_array_equal(x.asnumpy(), np.full(32, 201, np.float32))


# -- errors in ops --------------------------------------------------------------------------
def test_shape_errors_are_raised_at_call_time(engine):
    a, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 5))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 5\)"):
        mx.nd.dot(a, b)
    with pytest.raises(ValueError):
        a + b
    mx.nd.waitall()                 # nothing was pushed, nothing pending
    np.testing.assert_array_equal((a + 1).asnumpy(), np.full((2, 3), 2))


def _frames(exc):
    return [f.name for f in traceback.extract_tb(exc.__traceback__)]


@pytest.mark.parametrize("sync", ["asnumpy", "wait_to_read", "asscalar"])
def test_kernel_error_reaches_sync_point_with_traceback(engine, test_ops, sync):
    x = mx.nd.ones((1,))
    y = test_ops.failing(x, "bad kernel")       # the call itself does not raise
    with pytest.raises(test_ops.Error, match="bad kernel") as info:
        getattr(y, sync)()
    assert "xprof_test_failing_kernel" in _frames(info.value)
    mx.nd.waitall()                              # reported already: not raised again
    np.testing.assert_array_equal((x + 1).asnumpy(), [2])   # the engine keeps working


def test_kernel_error_propagates_to_dependents(engine, test_ops):
    gate = _gate(engine)
    x = test_ops.gated(mx.nd.ones((3,)), gate)
    y = test_ops.failing(x)
    z = (y + 1).sum()
    w = x * 2                       # does not depend on the failure
    gate.set()
    with pytest.raises(test_ops.Error) as info:
        z.asnumpy()
    assert "xprof_test_failing_kernel" in _frames(info.value)
    with pytest.raises(test_ops.Error):
        y.asnumpy()
    np.testing.assert_array_equal(w.asnumpy(), [2, 2, 2])
    mx.nd.waitall()


def test_kernel_error_reported_by_waitall_once(engine, test_ops):
    x = mx.nd.ones((2,))
    test_ops.failing(x, "unseen failure")
    with pytest.raises(test_ops.Error, match="unseen failure") as info:
        mx.nd.waitall()
    assert "xprof_test_failing_kernel" in _frames(info.value)
    mx.nd.waitall()
    np.testing.assert_array_equal((x * 5).asnumpy(), [5, 5])


def test_overwriting_failed_array_clears_error(engine, test_ops):
    x = mx.nd.ones((2,))
    y = test_ops.failing(x)
    with pytest.raises(test_ops.Error):
        y.wait_to_read()
    y[:] = 4                       # a successful write replaces the failure
    np.testing.assert_array_equal(y.asnumpy(), [4, 4])
    mx.nd.waitall()
