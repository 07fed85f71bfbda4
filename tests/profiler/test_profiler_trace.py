"""The Chrome trace: container, metadata, per-thread nesting, user objects, many threads."""
import collections
import threading

import pytest

import xprof.runtime as mx

import proftools as pt
from threadtools import run_in_threads

P = mx.profiler


def _ops_workload():
    x = mx.nd.ones((64, 64))
    y = x
    for _ in range(20):
        y = mx.nd.dot(y, x) / 64.0
        y = y.relu() + 1
    big = mx.nd.ones((512, 512))
    z = mx.nd.dot(big, big)  # heavy enough for an engine worker
    z.sum().wait_to_read()
    y.wait_to_read()
    mx.nd.waitall()


@pytest.mark.parametrize("kind", ["ThreadedEngine", "NaiveEngine"])
def test_document_and_nesting(prof, on_engine, kind):
    on_engine(kind)
    prof.start(profile_all=True)
    _ops_workload()
    doc = prof.finish()
    pt.check_document(doc)
    pt.check_nesting(doc)
    names = pt.thread_names(doc)
    assert "main thread" in names.values()
    assert len(set(names.values())) == len(names), "two tracks with the same name"
    assert all(e["ph"] in "MXCisfbe" for e in doc["traceEvents"])
    assert doc["otherData"]["engine"] == kind
    # engine bookkeeping is never shown
    assert not [e for e in pt.events(doc, "X") if "Wait" in e["name"] or e["name"] == "Custom"]
    # every X event belongs to a known category
    assert {e["cat"] for e in pt.events(doc, "X")} <= {"operator", "API"}


def test_ops_recorded_on_the_thread_that_ran_them(prof, on_engine):
    eng = on_engine("ThreadedEngine")
    prof.start(profile_imperative=True, profile_api=False, profile_memory=False)
    big = mx.nd.ones((eng.inline_threshold + 1,))
    big.wait_to_read()
    out = big * 2                  # over the inline threshold: runs on a worker
    total = big.sum()              # a small result, but the whole input is read: a worker
    small = mx.nd.ones((4,)) + 1   # cheap and ready: runs inline on the main thread
    out.wait_to_read()
    total.wait_to_read()
    small.wait_to_read()
    doc = prof.finish()
    names = pt.thread_names(doc)
    (mul,) = pt.events(doc, "X", name="_mul_scalar")
    (red,) = pt.events(doc, "X", name="sum")
    (plus,) = pt.events(doc, "X", name="_plus_scalar")
    assert names[mul["tid"]].startswith("engine worker ")
    assert names[red["tid"]].startswith("engine worker ")
    assert names[plus["tid"]] == "main thread"


def test_metadata_events(prof):
    prof.start(profile_all=True)
    mx.nd.ones((4,)).sqrt().wait_to_read()
    doc = prof.finish()
    meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    (proc,) = [e for e in meta if e["name"] == "process_name"]
    assert proc["args"]["name"]
    assert doc["traceEvents"][0] is not None and doc["traceEvents"][0]["ph"] == "M"
    sort_idx = {e["tid"]: e["args"]["sort_index"] for e in meta
                if e["name"] == "thread_sort_index"}
    names = pt.thread_names(doc)
    assert set(sort_idx) == set(names)
    main = [t for t, n in names.items() if n == "main thread"]
    assert sort_idx[main[0]] == min(sort_idx.values())


def test_user_objects(prof):
    prof.start(profile_all=True)
    dom = P.Domain("MyDomain")
    assert str(dom) == "MyDomain"
    task = dom.new_task("task1")
    frame = dom.new_frame("frame1")
    counter = dom.new_counter("ctr", 10)
    marker = dom.new_marker("mark1")
    task.start()
    frame.start()
    counter.increment(5)
    counter.decrement(2)
    counter += 4
    counter -= 1
    counter.set_value(100)
    for scope in ("global", "process", "thread"):
        marker.mark(scope)
    P.Marker(dom, "mark2").mark()
    with P.Event("ev1") as ev:
        assert str(ev) == "ev1"
    frame.stop()
    with dom.new_task("task2"):
        pass
    task.stop()
    doc = prof.finish()
    pt.check_document(doc)
    ctr = [e for e in pt.events(doc, "C") if e["name"] == "ctr"]
    assert [e["args"]["ctr"] for e in ctr] == [10, 15, 13, 17, 16, 100]
    assert all(e["cat"] == "MyDomain" for e in ctr)
    assert counter.value == 100
    marks = [e for e in pt.events(doc, "i") if e["name"] == "mark1"]
    assert [m["s"] for m in marks] == ["g", "p", "t"]
    assert pt.events(doc, "i", name="mark2")[0]["s"] == "p"
    (ev,) = pt.events(doc, "X", name="ev1")
    assert ev["cat"] == "Event"
    for name in ("task1", "frame1", "task2"):
        (b,) = pt.events(doc, "b", name=name)
        (e,) = pt.events(doc, "e", name=name)
        assert b["cat"] == e["cat"] == "MyDomain"
        assert b["id"] == e["id"] and e["ts"] >= b["ts"]
    ids = [e["id"] for e in pt.events(doc, "b")]
    assert len(ids) == len(set(ids))


def test_task_stopped_on_another_thread(prof):
    prof.start(profile_all=True)
    task = P.Domain("D").new_task("handoff")
    task.start()
    t = threading.Thread(target=task.stop)
    t.start()
    t.join()
    doc = prof.finish()
    (b,) = pt.events(doc, "b", name="handoff")
    (e,) = pt.events(doc, "e", name="handoff")
    assert b["id"] == e["id"] and b["tid"] != e["tid"]


@pytest.mark.parametrize("call, word", [
    (lambda: P.Domain(""), "Domain"),
    (lambda: P.Domain(3), "Domain"),
    (lambda: P.Task("not a domain", "t"), "domain"),
    (lambda: P.Frame(None, "f"), "domain"),
    (lambda: P.Counter("d", "c"), "domain"),
    (lambda: P.Marker(object(), "m"), "domain"),
    (lambda: P.Domain("d").new_task(""), "Task"),
    (lambda: P.Domain("d").new_counter("c", "ten"), "ten"),
    (lambda: P.Domain("d").new_counter("c").set_value(True), "True"),
    (lambda: P.Domain("d").new_counter("c").increment(None), "None"),
    (lambda: P.Domain("d").new_marker("m").mark("galaxy"), "galaxy"),
    (lambda: P.Event(""), "Event"),
    (lambda: P.Event("e").stop(), "not started"),
    (lambda: P.Scope(""), "Scope"),
    (lambda: P.Scope(":"), "Scope"),
])
def test_object_bad_arguments(prof, call, word):
    with pytest.raises(ValueError) as info:
        call()
    assert word in str(info.value)


def test_event_started_twice(prof):
    ev = P.Event("twice")
    ev.start()
    with pytest.raises(ValueError, match="already started"):
        ev.start()
    ev.stop()


def test_objects_record_nothing_when_stopped(prof):
    dom = P.Domain("Quiet")
    c = dom.new_counter("c", 1)
    c += 1
    dom.new_marker("m").mark()
    with P.Event("e"):
        pass
    with dom.new_frame("f"):
        pass
    assert c.value == 2
    assert P.dumps() == "No profiling records.\n"


def test_many_threads_nothing_lost(prof):
    n_threads, n_ops = 8, 1000
    prof.start(profile_all=True)
    dom = P.Domain("Threads")
    counter = dom.new_counter("done", 0)
    barrier = threading.Barrier(n_threads)

    def work(i):
        x = mx.nd.ones((4,)) * i
        barrier.wait()
        for _ in range(n_ops):
            y = x + 1
            counter.increment()
        y.wait_to_read()
        with P.Event(f"thread-{i}"):
            pass

    errors = run_in_threads(work, n_threads, "user-{}")
    assert not errors, errors
    prof.stop()
    total = n_threads * n_ops
    st = prof.stats()
    assert st["Time"]["operator"]["_plus_scalar"]["Count"] == total
    assert st["Time"]["API"]["_plus_scalar"]["Count"] == total
    assert st["Counter"]["Threads"]["done"]["Count"] == total + 1
    assert st["Counter"]["Threads"]["done"]["Max"] == total
    assert counter.value == total
    P.dump(finished=True)
    doc = pt.load(prof.path)
    pt.check_document(doc)
    pt.check_nesting(doc)
    counts = pt.name_counts(doc)
    assert counts[("operator", "_plus_scalar")] == total
    assert counts[("API", "_plus_scalar")] == total
    samples = [e["args"]["done"] for e in pt.events(doc, "C") if e["name"] == "done"]
    assert sorted(samples) == list(range(total + 1)), "counter samples lost or repeated"
    names = pt.thread_names(doc)
    per_thread = collections.Counter(names[e["tid"]] for e in pt.events(doc, "X", "API")
                                     if e["name"] == "_plus_scalar")
    assert per_thread == {f"user-{i}": n_ops for i in range(n_threads)}
    for i in range(n_threads):
        (ev,) = pt.events(doc, "X", name=f"thread-{i}")
        assert names[ev["tid"]] == f"user-{i}"


def test_dumps_while_threads_record(prof):
    # A fixed amount of work per thread: "record until the reader is done" made the
    # recording grow without bound on a loaded machine (each stats() call is O(events),
    # so a slow reader let the writers run away: 17 GB seen).
    prof.start(profile_imperative=True, profile_api=False, profile_memory=False)
    n_ops = 3000
    done = []

    def work():
        x = mx.nd.ones((4,))
        for _ in range(n_ops):
            (x + 1).wait_to_read()
        done.append(n_ops)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    last = 0
    while any(t.is_alive() for t in threads):
        count = prof.stats()["Time"].get("operator", {}).get("_plus_scalar", {}).get("Count", 0)
        assert count >= last
        last = count
    for t in threads:
        t.join()
    prof.stop()
    assert prof.stats()["Time"]["operator"]["_plus_scalar"]["Count"] == sum(done) == 2 * n_ops


def test_nesting_checker_rejects_partial_overlap():
    doc = {"traceEvents": [
        {"name": "a", "ph": "X", "ts": 0.0, "dur": 10.0, "pid": 0, "tid": 1},
        {"name": "b", "ph": "X", "ts": 5.0, "dur": 10.0, "pid": 0, "tid": 1},
        {"name": "c", "ph": "X", "ts": 5.0, "dur": 10.0, "pid": 0, "tid": 2},
    ]}
    with pytest.raises(AssertionError, match="overlaps"):
        pt.check_nesting(doc)
    doc["traceEvents"][1]["tid"] = 3
    pt.check_nesting(doc)
