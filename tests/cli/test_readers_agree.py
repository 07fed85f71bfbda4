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
from xprof.traces.model import Builder
from xprof.mxcli.analysis.trace_stats import time_stats


def _stats_of(events, careful=False):
    """The statistics of the events' ``Trace`` (``careful``: loaded event by event)."""
    b = Builder(links="pairs", records="times")
    if careful:
        b._note_pids(events)
        b._feed_careful(events)
    else:
        b.feed(Batch(events))
    return time_stats(b.finish())[0]


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

    for pairs in (False, True):   # the load's column path and its per-event path
        stats = _stats_of(_end_events(pairs), careful=pairs)
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
    span = _stats_of(events).span
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


# -- async pairs: one key (rules.async_key) for the Trace and stats' rows ---------------
def _async(ph, name, ts, ident=1, pid=0, cat="user", **more):
    return dict({"ph": ph, "name": name, "cat": cat, "id": ident, "ts": ts, "pid": pid,
                 "tid": 1}, **more)


def _async_events():
    # nested under one key: an e closes the last open b (pairs 2..5 and 0..9); two names
    # under one id are two keys (task x 10..13, task y 11..16); an id2 is an id
    return [X("op", 0, 20), _async("b", "step", 0), _async("b", "step", 2),
            _async("e", "step", 5), _async("e", "step", 9),
            _async("b", "x", 10), _async("b", "y", 11), _async("e", "x", 13),
            _async("e", "y", 16),
            {"ph": "b", "name": "z", "cat": "user", "id2": {"local": 3}, "ts": 1, "pid": 0,
             "tid": 1},
            {"ph": "e", "name": "z", "cat": "user", "id2": {"local": 3}, "ts": 4, "pid": 0,
             "tid": 1}]


def _pairs_of(tl):
    return sorted((tl.names[n], int(e - s)) for n, s, e in
                  zip(tl.async_name, tl.async_start, tl.async_end))


def test_async_pairs_are_the_same_to_the_trace_and_to_stats(tmp_path):
    from xprof.traces.model import from_events

    tl = from_events(_async_events())
    assert _pairs_of(tl) == [("step", 3000), ("step", 9000), ("x", 3000), ("y", 5000),
                             ("z", 3000)]
    path = write_trace(tmp_path / "a.json", _async_events())
    res = cli("stats", path, "--format", "json")
    user = json.loads(res.stdout)["Time"]["user"]
    assert (user["step"]["Count"], user["step"]["Total"]) == (2, 0.012)
    assert (user["x"]["Total"], user["y"]["Total"], user["z"]["Total"]) == (0.003, 0.005, 0.003)
    # event by event or as columns: the same pairs
    assert _stats_of(_async_events()).time["user"] == \
        _stats_of(_async_events(), careful=True).time["user"]


def test_an_async_end_on_another_process_is_no_pair_until_xprof_trace_moves_it(tmp_path):
    # the async key holds the process (Perfetto keeps async tracks per process): the
    # checker reports the end, the Trace and stats pair nothing, and xprof trace moves
    # the end to its begin's process, after which every reader pairs them
    from xprof.traces.model import from_events

    events = [X("op", 0, 20), _async("b", "step", 0), _async("e", "step", 7, pid=1)]
    assert "async-e-pid" in [v.rule for v in check_events(events).violations]
    assert _pairs_of(from_events(events)) == []
    assert "user" not in _stats_of(events).time
    path = write_trace(tmp_path / "t.json", events)
    out = tmp_path / "n.json"
    res = cli("trace", path, "-o", out, "--force")
    assert res.exit_code in (0, 1), res.stderr
    assert json.loads(cli("stats", out, "--format", "json").stdout)["Time"]["user"] == \
        {"step": {"Count": 1, "Total": 0.007, "Self": 0.007, "%": 35.0, "Min": 0.007,
                  "Max": 0.007, "Avg": 0.007}}


# -- group-by and by-process: views of the Trace's columns, the same for every reader ---
def _ranked_events():
    events = []
    for pid, rank in ((7, 0), (9, 1)):
        events.append({"ph": "M", "name": "process_name", "pid": pid,
                       "args": {"name": f"rank {rank}: train.py"}})
        for k in range(6):
            layer = "dense0_fwd" if k % 2 else "dense1_weight"
            events.append(X("dot", k * 10 + rank, 2 + rank + k % 3, pid=pid, tid=1,
                            args={"name": layer, "Input Dims": [[2, 3 + k % 2], [3]]}))
        events.append(X("copy", 100, 4, pid=pid, tid=2))
    return events


def test_group_by_layer_and_shape_agree_with_diff_keys_and_the_columns(tmp_path):
    from xprof.mxcli.analysis.diff import rows_of, run_of
    from xprof.traces.model import from_events

    path = write_trace(tmp_path / "t.json", _ranked_events())
    layer = json.loads(cli("stats", path, "--group-by", "layer", "--format", "json")
                       .stdout)["Time"]["operator"]
    shape = json.loads(cli("stats", path, "--group-by", "shape", "--format", "json")
                       .stdout)["Time"]["operator"]
    # by hand: rank 0's dots last 2,3,4,2,3,4 us, rank 1's one more; odd k: dense0
    assert layer["dense0"]["Total"] == 0.021 and layer["dense1"]["Total"] == 0.021
    assert layer["(no layer)"]["Total"] == 0.008   # the two copies
    assert shape["dot [[2, 3], [3]]"]["Total"] == 0.021
    # diff keys its rows by the same columns: (cat, name, layer, shapes, rank)
    durations = rows_of(run_of(str(path), from_events(_ranked_events()))).durations
    by_shape = {}
    for (cat, name, lay, shapes, rank), ns in durations.items():
        if name == "dot":
            by_shape[shapes] = by_shape.get(shapes, 0) + int(ns.sum())
    assert by_shape == {"[[2, 3], [3]]": 21000, "[[2, 4], [3]]": 21000}
    assert {key[4] for key in durations} == {0, 1}   # ranks from the process names


def test_by_process_tables_add_up_to_the_time_table(tmp_path):
    path = write_trace(tmp_path / "t.json", _ranked_events())
    doc = json.loads(cli("stats", path, "--by-process", "--format", "json").stdout)
    total = doc["Time"]["operator"]["dot"]["Total"]
    per = [doc["Time by process"][f"rank {r}: train.py / operator"]["dot"]["Total"]
           for r in (0, 1)]
    assert per == [0.018, 0.024] and round(sum(per), 6) == total
    assert doc["Rank spread"]["operator"]["dot"]["Slowest"] == "rank 1"


def test_several_files_read_as_their_merge(tmp_path):
    # xprof stats A B --by-process: the tables of `xprof trace A B -o M; xprof stats M`
    events = _ranked_events()
    a = write_trace(tmp_path / "a.json", [e for e in events if e["pid"] == 7],
                    otherData={"rank": 0})
    b = write_trace(tmp_path / "b.json", [e for e in events if e["pid"] == 9],
                    otherData={"rank": 1})
    merged = tmp_path / "m.json"
    assert cli("trace", a, b, "-o", merged).exit_code in (0, 1)
    both = cli("stats", a, b, "--by-process", "--format", "json")
    assert both.exit_code == 0, both.stderr
    one = cli("stats", merged, "--by-process", "--format", "json")
    assert json.loads(both.stdout) == json.loads(one.stdout)
    assert "rank 1: rank 1: train.py / operator" not in both.stdout
    assert set(json.loads(both.stdout)["Time by process"]) == {
        "rank 0: train.py / operator", "rank 1: train.py / operator"}
