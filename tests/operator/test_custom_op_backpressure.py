"""Backpressure: a caller racing ahead of the custom-op pool waits (briefly) for its calls
to complete, so thousands of calls are never in flight at once; it can never hang the
caller, and the count of calls in flight comes back to zero however calls end."""
import threading

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import operator as custom

from customop_defs import MyAddOneProp

_seen = []        # queue lengths seen by forward
_gate = threading.Event()


class _Probe(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        _seen.append(custom._pool.in_flight)
        if not _gate.is_set():
            _gate.wait(10)
        self.assign(out_data[0], req[0], in_data[0] + 1)


@mx.operator.register("BackpressureProbe")
class _ProbeProp(MyAddOneProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Probe()


@pytest.fixture
def small_queue(threaded_engine, monkeypatch):
    monkeypatch.setattr(custom._pool, "max_in_flight", 4)
    _seen.clear()
    yield
    _gate.set()


def test_the_calls_in_flight_stay_bounded(small_queue):
    _gate.set()
    x = mx.nd.ones((3,))
    outs = [mx.nd.Custom(x, op_type="BackpressureProbe") for _ in range(200)]
    mx.nd.waitall()
    assert all((o.asnumpy() == 2).all() for o in outs)
    # 4 calls in flight at most, a few more only if a 50 ms wait ran out on a busy machine
    assert len(_seen) == 200 and max(_seen) < 12, max(_seen)
    assert custom._pool.in_flight == 0


def test_a_forward_waiting_for_the_caller_does_not_hang_it(small_queue):
    """Every forward blocks until the caller opens the gate after pushing 20 calls: the
    caller's waits for the queue are bounded, so it gets there."""
    _gate.clear()
    x = mx.nd.ones((2,))
    outs = [mx.nd.Custom(x, op_type="BackpressureProbe") for _ in range(20)]
    _gate.set()
    np.testing.assert_array_equal(np.stack([o.asnumpy() for o in outs]), np.full((20, 2), 2))


def test_nested_calls_from_pool_threads_are_never_throttled(small_queue, monkeypatch):
    monkeypatch.setattr(custom._pool, "max_in_flight", 1)
    _gate.set()

    class Outer(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            ys = [mx.nd.Custom(in_data[0], op_type="BackpressureProbe") for _ in range(5)]
            self.assign(out_data[0], req[0], mx.nd.add_n(*ys))

    @mx.operator.register("BackpressureOuter")
    class OuterProp(_ProbeProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Outer()

    x = mx.nd.ones((2,))
    outs = [mx.nd.Custom(x, op_type="BackpressureOuter") for _ in range(6)]
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), [10, 10])


class _Failing(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise RuntimeError("forward failed on purpose")


@mx.operator.register("BackpressureFailing")
class _FailingProp(MyAddOneProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Failing()


def test_failed_and_skipped_calls_leave_nothing_in_flight(small_queue):
    """A forward that raises completes its call; a call whose input failed upstream is
    never handed to the pool. Neither may leave the count up (it would throttle every
    later caller)."""
    _gate.set()
    x = mx.nd.ones((2,))
    bad = [mx.nd.Custom(x, op_type="BackpressureFailing") for _ in range(10)]
    skipped = [mx.nd.Custom(b, op_type="BackpressureProbe") for b in bad]
    for arr in bad + skipped:
        with pytest.raises(Exception):
            arr.asnumpy()
    assert custom._pool.in_flight == 0
    np.testing.assert_array_equal(mx.nd.Custom(x, op_type="BackpressureProbe").asnumpy(),
                                  [2, 2])
