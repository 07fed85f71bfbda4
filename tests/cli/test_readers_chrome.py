"""The ``Trace`` load's two paths agree (``traces/builder.py``): a batch's ``X`` events taken
as columns (numpy) give exactly the statistics (``analysis/trace_stats.py``) of the
event-by-event path (``Builder._feed_careful``), whatever the batch holds: well-formed
xprof events, MXNet's B/E pairs, malformed values, integer times near the float64
limits, unhashable ids."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.mxcli.analysis.trace_stats import time_stats
from xprof.traces.batch import Batch
from xprof.traces.model import Builder
from xprof.traces.tracefile import TraceReader

_TIMES = st.one_of(
    st.floats(0, 1e7, allow_nan=False).map(lambda v: round(v, 3)),
    st.integers(0, 10**7),
    st.sampled_from([0, 0.5, -1, 2**53, 2**53 // 1000 + 7, 9.1e12, 1e16, math.nan, math.inf,
                     None, "3", True, [1]]))
_LABELS = st.one_of(st.sampled_from(["conv", "relu", "dot", "A::b", ""]), st.none(),
                    st.integers(0, 3))
_IDS = st.one_of(st.integers(0, 3), st.sampled_from(["w0", None, 1.5, True, [1], {"a": 1}]))


@st.composite
def _event(draw):
    ph = draw(st.sampled_from(["X"] * 8 + ["B", "E", "C", "b", "e", "i", "M"]))
    ev = {"ph": ph, "name": draw(_LABELS), "cat": draw(_LABELS), "ts": draw(_TIMES),
          "pid": draw(_IDS), "tid": draw(_IDS)}
    if ph == "X":
        ev["dur"] = draw(_TIMES)
    elif ph == "C":
        ev["args"] = {"v": draw(st.integers(0, 100))}
    elif ph in "be":
        ev["id"] = draw(st.integers(0, 2))
    elif ph == "M":
        ev.update(name="process_name", args={"name": draw(_LABELS)})
    return ev


def _result(stats):
    return stats.time, stats.inner, stats.span, stats.memory, stats.counter


def _builder():
    return Builder(links="pairs", records="times")


def _finish(builder):
    return _result(time_stats(builder.finish())[0])


def _by_events(events):
    b = _builder()
    b._note_pids(events)
    b._feed_careful(events)
    return _finish(b)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_event(), st.just(7)), max_size=40), st.integers(1, 12))
def test_columns_and_events_give_the_same_statistics(events, batch):
    b = _builder()
    for k in range(0, len(events), batch):
        b.feed(Batch(events[k:k + batch]))
    assert _finish(b) == _by_events(events)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["conv", "relu", "dot"]), st.integers(0, 3),
                          st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 3)),
                          st.floats(0, 100, allow_nan=False).map(lambda v: round(v, 3))),
                min_size=1, max_size=60))
def test_well_formed_batches_take_the_column_path(rows):
    events = [{"ph": "X", "name": n, "cat": "operator", "pid": 0, "tid": t, "ts": ts, "dur": d}
              for n, t, ts, d in rows]
    b = _builder()
    b._feed_careful = None            # the per-event path must not be needed
    b.feed(Batch(events))
    b._feed_careful = Builder._feed_careful.__get__(b)
    assert _finish(b) == _by_events(events)


def _both_ways(path):
    b = _builder()
    events = []
    for batch, _ in TraceReader(path).batches():
        b.feed(Batch(batch))
        events.extend(batch)
    return _finish(b), _by_events(events)


def test_fixture_traces_read_the_same_both_ways(traces_dir):
    """MXNet 1.x (B/E pairs) and PyTorch fixtures, in their real batches."""
    paths = sorted(traces_dir.glob("*.json"))
    assert len(paths) >= 3
    for path in paths:
        columns, events = _both_ways(path)
        assert columns == events, path.name


def test_an_xprof_trace_reads_the_same_both_ways(tmp_path):
    from test_run_view_report import run_sample

    trace, _ = run_sample("custom_op_breakdown.py", tmp_path)
    columns, events = _both_ways(trace)
    assert columns == events and columns[0]["Custom Operator"]


def test_a_slice_too_long_for_int64_picoseconds_is_skipped_not_a_traceback(tmp_path):
    from cli_helpers import cli_subprocess, write_trace

    trace = write_trace(tmp_path / "t.json", [
        {"ph": "X", "name": "huge", "cat": "c", "ts": 0, "dur": 2 ** 53, "pid": 0, "tid": 0},
        {"ph": "X", "name": "ok", "cat": "c", "ts": 0, "dur": 5, "pid": 0, "tid": 0}])
    res = cli_subprocess("stats", trace, "--format", "json")
    assert res.returncode == 0, res.stderr
    assert "huge" not in res.stdout and '"ok"' in res.stdout


def test_a_batch_and_its_view_are_freed_without_the_garbage_collector():
    """Readers run with gc disabled: a Batch and its cached view must form no cycle."""
    import gc
    import weakref

    from xprof.traces.batch import Batch

    class Event(dict):
        pass

    ev = Event(ph="X", name="a", cat="c", ts=0.0, dur=1.0, pid=0, tid=0)
    alive = weakref.ref(ev)
    batch = Batch([ev, {"ph": "C", "name": "m", "ts": 0, "args": {"m": 1}}])
    _builder().feed(batch)
    assert batch.view().xs == [ev]
    was = gc.isenabled()
    gc.disable()
    try:
        del batch, ev
        assert alive() is None
    finally:
        if was:
            gc.enable()
