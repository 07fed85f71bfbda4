"""The observer is the profiler's one port: what its methods record lands on the calling
thread's track with the given times, and nothing outside the profiler writes records."""
import os
import re
import threading
from time import perf_counter_ns

import xprof.runtime as mx
from xprof.runtime import operator as custom
from xprof.runtime.engine.base import MODE_IMPERATIVE, MODE_SYMBOLIC
from xprof.runtime.profiler.observer import observer

from proftools import REPO, events, load, thread_names


def test_methods_record_on_the_calling_thread(prof):
    prof.start(profile_all=True)
    t0 = perf_counter_ns()

    def work():
        observer.slice("piece", "Mine", t0, t0 + 5000)
        observer.counter("level", "Mine", 3)
        observer.instant("here", "Mine", "t")
        observer.async_begin("job", "Mine", t0, 41)
        observer.async_end("job", "Mine", t0 + 9000, 41)
        observer.api("my_api_call", t0)

    th = threading.Thread(target=work, name="observer test thread")
    th.start()
    th.join()
    doc = prof.finish()
    tid = {name: tid for tid, name in thread_names(doc).items()}["observer test thread"]
    (piece,) = events(doc, "X", "Mine", "piece")
    assert piece["tid"] == tid and piece["dur"] == 5.0
    assert events(doc, "C", "Mine", "level")[0]["args"] == {"level": 3}
    assert events(doc, "i", "Mine", "here")[0]["tid"] == tid
    begin, end = events(doc, "be", "Mine", "job")
    assert begin["id"] == end["id"] == 41
    assert round((end["ts"] - begin["ts"]) * 1000) == 9000    # ns (us floats subtract inexactly)
    (api,) = events(doc, "X", "API", "my_api_call")
    assert api["tid"] == tid


def test_call_begins_and_ends_give_the_pure_python_slice_only_when_profiled(prof):
    prof.start(profile_imperative=True, profile_symbolic=False)
    for mode, expected in ((MODE_IMPERATIVE, 1), (MODE_SYMBOLIC, 0)):
        call = custom.Call(f"ObsCall{mode}", mode)
        observer.call_begins(call)
        assert call.t_start > 0 and call.profiled == bool(expected)
        observer.call_ends(call)
    doc = prof.finish()
    assert len(events(doc, "X", "Custom Operator", "ObsCall2::pure_python")) == 1
    assert events(doc, "X", "Custom Operator", "ObsCall1::pure_python") == []


def test_nothing_outside_the_profiler_writes_records():
    """The engine, the NDArray layer, custom operators and the rest record through the
    observer only: no module outside runtime/profiler reads the recorder's buffers."""
    runtime = os.path.join(REPO, "runtime")
    offenders = []
    pattern = re.compile(r"profiler import recorder|profiler\.recorder|\.slices\b|"
                         r"\._local\b|\.events\(\)|\bR\.(XA|SUB|C|I|AB|AE)\b|key_ids\(")
    for folder, _, files in os.walk(runtime):
        if os.path.join(runtime, "profiler") in folder:
            continue
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                with open(path, encoding="utf-8") as fh:
                    for i, line in enumerate(fh, 1):
                        if pattern.search(line):
                            offenders.append(f"{os.path.relpath(path, REPO)}:{i}: {line.strip()}")
    assert offenders == []


def test_custom_call_events_come_from_the_observer(prof):
    """One Custom call through the real path: its Python slice on the pool thread and
    its sub-operator, tagged with the call, with a flow arrow between them."""
    from _util_custom import register_plus_one   # noqa: F401 - registers ObsPlusOne
    prof.start(profile_all=True)
    x = mx.nd.ones((4, 4))
    y = mx.nd.Custom(x, op_type="ObsPlusOne")
    assert (y.asnumpy() == 2).all()
    doc = prof.finish()
    (pure,) = events(doc, "X", "Custom Operator", "ObsPlusOne::pure_python")
    (sub,) = events(doc, "X", "Custom Operator", "ObsPlusOne::_plus_scalar")
    (finish,) = [f for f in events(doc, "f", "Custom Operator") if f["ts"] == sub["ts"]]
    (start,) = [s for s in events(doc, "s", "Custom Operator") if s["id"] == finish["id"]]
    assert start["name"] == finish["name"] == "ObsPlusOne"
    assert start["tid"] == pure["tid"] and finish["tid"] == sub["tid"] != pure["tid"]
    assert pure["ts"] <= start["ts"] <= pure["ts"] + pure["dur"]
    assert load(prof.path) == doc


def test_the_benchmarks_dependency_switch_records_plain_slices_and_restores(prof, on_engine):
    """observer.dependency_records(False) (a benchmark knob): ops as plain slices with
    their input shapes, no stamps, variables or sync records; True restores it all."""
    from xprof.runtime.profiler import observer as obs

    on_engine("ThreadedEngine")
    x = mx.nd.ones((300, 300))
    x.wait_to_read()
    obs.dependency_records(False)
    try:
        prof.start(profile_all=True)
        y = mx.nd.dot(x, x) + 1      # the dot queued on a worker, the add waits for it
        y.wait_to_read()
        doc = prof.finish()
    finally:
        obs.dependency_records(True)
    ops = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "operator"]
    assert {e["name"] for e in ops} >= {"dot", "_plus_scalar"}
    assert all(set(e["args"]) == {"Input Dims"} for e in ops)
    assert not [e for e in doc["traceEvents"] if e["ph"] == "i" and "wait" in e.get("args", {})]
    prof.start(profile_all=True)
    y = mx.nd.dot(x, x) + 1
    y.wait_to_read()
    doc = prof.finish()
    ops = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "operator"]
    assert ops and all(set(e["args"]) == {"Input Dims", "dep"} for e in ops)
