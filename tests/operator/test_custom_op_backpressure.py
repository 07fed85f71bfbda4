"""Backpressure: a caller racing ahead of the custom-op pool waits (briefly) for it, so
thousands of calls are never in flight at once; it can never hang the caller."""
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
        _seen.append(custom._pool.jobs.qsize())
        if not _gate.is_set():
            _gate.wait(10)
        self.assign(out_data[0], req[0], in_data[0] + 1)


@mx.operator.register("BackpressureProbe")
class _ProbeProp(MyAddOneProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Probe()


@pytest.fixture
def small_queue(threaded_engine, monkeypatch):
    monkeypatch.setattr(custom._pool, "max_queued", 4)
    _seen.clear()
    yield
    _gate.set()


def test_the_queue_of_waiting_calls_stays_bounded(small_queue):
    _gate.set()
    x = mx.nd.ones((3,))
    outs = [mx.nd.Custom(x, op_type="BackpressureProbe") for _ in range(200)]
    mx.nd.waitall()
    assert all((o.asnumpy() == 2).all() for o in outs)
    # 4 waiting calls at most, a little more only if a 50 ms wait ran out on a busy machine
    assert len(_seen) == 200 and max(_seen) < 12, max(_seen)


def test_a_forward_waiting_for_the_caller_does_not_hang_it(small_queue):
    """Every forward blocks until the caller opens the gate after pushing 20 calls: the
    caller's waits for the queue are bounded, so it gets there."""
    _gate.clear()
    x = mx.nd.ones((2,))
    outs = [mx.nd.Custom(x, op_type="BackpressureProbe") for _ in range(20)]
    _gate.set()
    np.testing.assert_array_equal(np.stack([o.asnumpy() for o in outs]), np.full((20, 2), 2))


def test_nested_calls_from_pool_threads_are_never_throttled(small_queue, monkeypatch):
    monkeypatch.setattr(custom._pool, "max_queued", 1)
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
