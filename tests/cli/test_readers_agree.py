"""Every reader applies the per-event rules of ``xprof.traces.rules`` (issue #25): the same
file gives the same threads and the same slice ends to ``stats``, ``explain``'s timeline,
``validate``'s checker and ``xprof trace`` (one file or merged).

Before the rules were written once, thread id ``1`` and ``true`` were one thread to
``stats`` and two to ``xprof trace A B``, and ``stats`` ended a slice at
``rint((ts + dur) * 1000)`` while ``validate`` ended it at ``rint(ts * 1000) +
rint(dur * 1000)``. The expected figures below are worked out by hand from the events.
"""
from __future__ import annotations

import json

from cli_helpers import X, check_events, cli, normalize, write_trace

from xprof.traces.batch import Batch
from xprof.mxcli.analysis.stats_collector import StatsCollector
from xprof.mxcli.analysis.timeline import Builder


def _one_thread_events():
    # a [0, 10] us on (pid 1, tid 1); b [8, 13] us on (pid 1, tid true): the same thread
    # under the rule (Python equality), so b overlaps the end of a by 3 us; c on
    # (pid true, tid 1), the same thread again
    return [X("a", 0, 10, pid=1, tid=1), X("b", 8, 5, pid=1, tid=True),
            X("c", 20, 3, pid=True, tid=1)]


def _stats(events, tmp_path):
    path = write_trace(tmp_path / "t.json", events)
    res = cli("stats", path, "--format", "json")
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)["Time"]["operator"]


def test_tid_1_and_true_are_one_thread_to_stats(tmp_path):
    rows = _stats(_one_thread_events(), tmp_path)
    # a's self time: 10 us minus b's part inside a (8..10): 8 us; on two threads it is 10
    assert rows["a"]["Self"] == 0.008


def test_tid_1_and_true_are_one_thread_to_the_timeline():
    b = Builder()
    b.feed(Batch(_one_thread_events()))
    tl = b.finish()
    assert len(tl.threads) == 1


def test_tid_1_and_true_are_one_thread_to_the_checker():
    res = check_events(_one_thread_events())
    nesting = [v for v in res.violations if v.rule == "nesting"]
    assert len(nesting) == 1 and "ends 3 us after it" in nesting[0].message


def test_tid_1_and_true_are_one_thread_to_trace_and_to_merge(tmp_path):
    doc, _ = normalize(_one_thread_events())
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert len({(e["pid"], e["tid"]) for e in slices}) == 1
    path = write_trace(tmp_path / "t.json", _one_thread_events())
    out = tmp_path / "m.json"
    res = cli("trace", path, path, "-o", out, "--force")
    assert res.exit_code in (0, 1), res.stderr
    merged = [e for e in json.loads(out.read_text())["traceEvents"] if e["ph"] == "X"]
    # two inputs: two processes, one thread each (before: four processes)
    assert len({e["pid"] for e in merged}) == 2
    assert len({(e["pid"], e["tid"]) for e in merged}) == 2


def _end_events(pairs=False):
    # parent: ts 1.0005 us (1000.5 ns, half to even: 1000), dur 3.0005 us (3000.5: 3000),
    # so it ends at 4000 ns (rint of the float sum 4.001 us would say 4001);
    # child: 2000 ns + 2001 ns = 4001 ns, 1 ns past its parent's end
    events = [X("parent", 1.0005, 3.0005), X("child", 2, 2.001)]
    if pairs:   # a B/E pair elsewhere sends stats' batch through its per-event path
        events += [{"ph": "B", "name": "p", "cat": "other", "ts": 10, "pid": 0, "tid": 2},
                   {"ph": "E", "ts": 11, "pid": 0, "tid": 2}]
    return events


def test_a_slice_ends_at_the_same_ns_for_stats_checker_and_timeline(tmp_path):
    res = check_events(_end_events())
    nesting = [v for v in res.violations if v.rule == "nesting"]
    assert len(nesting) == 1 and "ends 0.001 us after it" in nesting[0].message

    b = Builder()
    b.feed(Batch(_end_events()))
    tl = b.finish()
    ends = {tl.names[n]: int(e) for n, e in zip(tl.name, tl.end)}
    assert ends["parent"] == 4000 and ends["child"] == 4001

    for pairs in (False, True):   # stats' column path and its per-event path
        collector = StatsCollector()
        collector.feed(Batch(_end_events(pairs)))
        stats = collector.finish()
        # the child overlaps its parent's end: only its 2000 ns inside count as the
        # parent's inner time (were the parent to end at 4001 ns: all 2001 ns)
        assert stats.inner["operator"]["parent"] == 2000 * 1000   # ps
        assert stats.span[1] == (11_000 if pairs else 4001)       # the child's end


def test_integer_epoch_times_give_the_same_span_to_stats_and_the_timeline():
    # MXNet 1.x writes integer microseconds since 1970: float64 ns would round them to
    # 256 ns; the rule keeps integer times exact (ns = us * 1000) in every reader
    t = 1795996628459005
    events = [X("op", t, 7), X("op", t + 10, 3, tid=2),
              {"ph": "B", "name": "step", "cat": "operator", "ts": t - 3, "pid": 0, "tid": 3},
              {"ph": "E", "ts": t + 21, "pid": 0, "tid": 3}]
    collector = StatsCollector()
    collector.feed(Batch(events))
    span = collector.finish().span
    assert list(span) == [(t - 3) * 1000, (t + 21) * 1000]
    for batch in (events[:2], events):   # the timeline's column path and its careful one
        b = Builder()
        b.feed(Batch(batch))
        tl = b.finish()
        assert int(tl.start.min()) == (t - 3 if len(batch) > 2 else t) * 1000
        assert int(tl.end.max()) == (t + 21 if len(batch) > 2 else t + 13) * 1000


def test_an_end_before_its_begin_closes_it_for_every_reader(tmp_path):
    # the first E closes the B (backwards: the pair is dropped), so the second E has no
    # B to close; before, xprof trace kept the B open and paired it with the second E
    events = [{"ph": "B", "name": "a", "cat": "operator", "ts": 5, "pid": 0, "tid": 1},
              {"ph": "E", "ts": 4, "pid": 0, "tid": 1},
              {"ph": "E", "ts": 8, "pid": 0, "tid": 1},
              X("b", 10, 1)]
    assert "a" not in _stats(events, tmp_path)
    b = Builder()
    b.feed(Batch(events))
    tl = b.finish()
    assert [tl.names[n] for n in tl.name] == ["b"]
    rules = [v.rule for v in check_events(events).violations]
    assert rules == ["e-before-b", "e-without-b"]
    doc, notes = normalize(events)
    assert [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"] == ["b"]
    assert notes == ["dropped 3 malformed or unmatched events"]
