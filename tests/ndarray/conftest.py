"""Test-only operators (registered once, under names no real operator uses) and a
profiling helper for the NDArray tests.

``_xprof_test_gate``: copies its input after waiting on the ``event`` param; heavy, so
under ThreadedEngine it runs on a worker and the test decides when it finishes.
``_xprof_test_fail``: its kernel raises ``TestKernelError``.
"""
import contextlib
import json

import pytest

import xprof.runtime as mx
from xprof.runtime.ndarray.ndarray import invoke
from xprof.runtime.ops import registry

HEAVY = 1 << 40


class TestKernelError(RuntimeError):
    __test__ = False


def xprof_test_gate_kernel(data, event=None):
    assert event.wait(60), "test gate never opened"
    return data.copy()


def xprof_test_failing_kernel(data, message="kernel failed"):
    raise TestKernelError(message)


if "_xprof_test_gate" not in registry.registry:
    registry.defop("_xprof_test_gate", xprof_test_gate_kernel,
                   cost=lambda in_shapes, **_: HEAVY, params={"event": None})
    registry.defop("_xprof_test_fail", xprof_test_failing_kernel,
                   params={"message": "kernel failed"})


def gated(x, event):
    """A copy of ``x`` that is written only once ``event`` is set."""
    return invoke("_xprof_test_gate", (x,), {"event": event})


def failing(x, message="kernel failed"):
    return invoke("_xprof_test_fail", (x,), {"message": message})


@pytest.fixture
def test_ops():
    return type("TestOps", (), {"gated": staticmethod(gated), "failing": staticmethod(failing),
                                "Error": TestKernelError, "HEAVY": HEAVY})


class Trace:
    def __init__(self, doc):
        self.doc = doc
        self.events = doc["traceEvents"]
        self.thread_names = {e["tid"]: e["args"]["name"] for e in self.events
                             if e.get("ph") == "M" and e["name"] == "thread_name"}
        # in the order they ran (a trace need not list events by time)
        self.ops = sorted((e for e in self.events if e.get("ph") == "X" and e["cat"] == "operator"),
                          key=lambda e: e["ts"])

    def names(self):
        return [e["name"] for e in self.ops]

    def thread_of(self, name):
        return [self.thread_names[e["tid"]] for e in self.ops if e["name"] == name]


@pytest.fixture
def profile(tmp_path):
    """``with profile() as trace_box: ...`` records imperative operators; after the
    block, ``trace_box.trace`` is the parsed trace file."""
    @contextlib.contextmanager
    def run():
        path = tmp_path / "p.json"
        box = type("Box", (), {})()
        mx.profiler.set_config(profile_imperative=True, profile_api=False,
                               profile_memory=False, filename=str(path))
        mx.profiler.set_state("run")
        try:
            yield box
            mx.nd.waitall()
        finally:
            mx.profiler.set_state("stop")
            mx.profiler.dump()
        box.trace = Trace(json.loads(path.read_text()))
    return run
