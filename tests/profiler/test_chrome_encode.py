"""The trace encoder: complete events written by numpy (and byte templates) must read
back exactly as the recorded slices, whatever the names (quotes, backslashes, ``%``,
non-ASCII) and timestamps; and the column helpers they use."""
import json

import numpy as np
import orjson
from hypothesis import given, settings, strategies as st

from xprof.runtime.profiler import chrome, columns, recorder as R

BASE = 10**12

names = st.text(min_size=1, max_size=12)
slices = st.lists(st.tuples(names, st.sampled_from(["operator", "API", "my \"domain\""]),
                            st.integers(0, 10**13), st.integers(0, 10**10)),
                  max_size=30)


def _buffer(slices=(), events=(), tid=3):
    """A thread buffer holding complete ``slices`` [(name, cat, t0, t1)] and ``events``."""
    buf = R.ThreadBuffer(tid, "test thread", 1000)
    for name, cat, t0, t1 in slices:
        buf.slices.extend((R.key_ids(cat)[name], t0, t1))
    buf.events.extend(events)
    return buf


def _snap(*bufs):
    return [(b, len(b.events), len(b.slices)) for b in bufs]


@settings(max_examples=60, deadline=None)
@given(slices)
def test_complete_events_read_back_exactly(items):
    """Whatever the names and the digit counts of ts and dur (events are grouped by
    them), every slice comes back once, exactly."""
    buf = _buffer([(name, cat, BASE + t0, BASE + t0 + dur) for name, cat, t0, dur in items])
    data = chrome.encode(_snap(buf), BASE, "proc", {"k": "v"})
    for doc in (orjson.loads(data), json.loads(data)):   # two independent JSON parsers
        assert doc["displayTimeUnit"] == "ms" and doc["otherData"] == {"k": "v"}
        got = sorted((e["name"], e["cat"], e["pid"], e["tid"], e["ts"], e["dur"])
                     for e in doc["traceEvents"] if e["ph"] == "X")
        assert got == sorted((name, cat, chrome.PID, 3, t0 / 1000.0, dur / 1000.0)
                             for name, cat, t0, dur in items)


def test_events_before_the_session_base_are_left_out():
    buf = _buffer([("old", "operator", BASE - 5, BASE + 5),
                   ("new", "operator", BASE + 7, BASE + 9)],
                  [(R.XA, "old args", "operator", BASE - 5, BASE + 5, {"a": "1"})])
    doc = orjson.loads(chrome.encode(_snap(buf), BASE, "proc", {}))
    assert [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"] == ["new"]


def test_metadata_comes_first_and_untracked_buffers_get_no_thread_track():
    counters = R.ThreadBuffer(9, "counters", 1000, track=False)
    counters.events.append((R.C, "Memory: cpu/0", "Device Storage", BASE + 1, 64))
    buf = _buffer([("a", "operator", BASE + 2, BASE + 3)])
    doc = orjson.loads(chrome.encode(_snap(counters, buf), BASE, "proc", {}))
    phases = [e["ph"] for e in doc["traceEvents"]]
    assert phases[:3] == ["M", "M", "M"] and "M" not in phases[3:]
    named = {e["tid"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert named == {3}
    (c,) = [e for e in doc["traceEvents"] if e["ph"] == "C"]
    assert c["args"] == {"Memory: cpu/0": 64} and c["ts"] == 0.001


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(names, st.dictionaries(names, st.text(max_size=5), max_size=2),
                          st.integers(0, 10**9)), min_size=1, max_size=10))
def test_slices_with_args_keep_their_args(items):
    plain, with_args = [], []
    for i, (name, args, dur) in enumerate(items):
        plain.append((name, "operator", BASE + 10 * i, BASE + 10 * i + dur))
        with_args.append((R.XA, name, "operator", BASE + 10 * i + 1,
                          BASE + 10 * i + 1 + dur, args))
    doc = json.loads(chrome.encode(_snap(_buffer(plain, with_args)), BASE, "p", {}))
    got = sorted((e["ts"], e["name"], e["dur"], e.get("args"))
                 for e in doc["traceEvents"] if e["ph"] == "X")
    want = sorted([((t0 - BASE) / 1000.0, name, (t1 - t0) / 1000.0, None)
                   for name, _, t0, t1 in plain]
                  + [((ev[3] - BASE) / 1000.0, ev[1], (ev[4] - ev[3]) / 1000.0, ev[5])
                     for ev in with_args], key=lambda r: r[0])
    assert got == want


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 2**62), min_size=1, max_size=40), st.integers(0, 3))
def test_digits_are_written_exactly_right_aligned(values, extra_width):
    v = np.array(values, dtype=np.int64)
    assert columns.ndigits(v).tolist() == [len(str(x)) for x in values]
    width = max(len(str(x)) for x in values) + extra_width
    out = np.zeros((len(values), width), dtype=np.uint8)
    columns.write_digits(out, v)
    assert [bytes(row).decode() for row in out] == [str(x).rjust(width) for x in values]


def test_each_threads_slices_are_in_time_order_parents_first():
    """Recorded as they end (children first), written by start, the longer first at
    equal starts, with the slices kept as tuples (args, sub-operators) merged in."""
    buf = _buffer([("child", "operator", BASE + 20, BASE + 30),
                   ("parent", "API", BASE + 10, BASE + 40),
                   ("same start, shorter", "API", BASE + 50, BASE + 51),
                   ("same start, longer", "API", BASE + 50, BASE + 60)],
                  [(R.XA, "with args", "operator", BASE + 15, BASE + 16, {"k": "v"}),
                   (R.SUB, "Op::_plus_scalar", "Custom Operator", BASE + 45, BASE + 46,
                    BASE + 44, None, 0, "Op")])
    doc = json.loads(chrome.encode(_snap(buf), BASE, "p", {}))
    names = [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"]
    assert names == ["parent", "with args", "child", "Op::_plus_scalar",
                     "same start, longer", "same start, shorter"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 10**12)), max_size=60))
def test_summaries_per_key_match_a_plain_loop(pairs):
    expected = {}
    for k, d in pairs:
        c, t, lo, hi = expected.get(k, (0, 0, d, d))
        expected[k] = (c + 1, t + d, min(lo, d), max(hi, d))
    key = np.array([k for k, _ in pairs], dtype=np.int64)
    dur = np.array([d for _, d in pairs], dtype=np.int64)
    got = {k: (c, t, lo, hi) for k, c, t, lo, hi in columns.summarize(key, dur)}
    assert got == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=6))
def test_slice_table_converts_each_prefix_once_and_stays_right(chunks):
    """``columns.table`` keeps what it converted; reading longer prefixes, shorter
    ones, and after ``recorder.clear`` always gives the rows of the list."""
    buf = _buffer()
    t = 0
    for n in chunks:
        for _ in range(n):
            t += 1
            buf.slices.extend((t % 3, BASE + t, BASE + 2 * t))
        m = len(buf.slices)
        want = np.array(buf.slices, dtype=np.int64).reshape(-1, 3)
        assert columns.table(buf, m).tolist() == want.tolist()
        assert columns.table(buf, m // 6 * 3).tolist() == want[:m // 6].tolist()
        if n % 2:
            R.clear([(buf, 0, m // 2 // 3 * 3)])
            left = np.array(buf.slices, dtype=np.int64).reshape(-1, 3)
            assert columns.table(buf, len(buf.slices)).tolist() == left.tolist()


def test_padding_is_dropped_when_names_differ_much_in_length():
    """Fixed-length records pad short heads; when that padding would be a noticeable
    part of the trace it is removed, so the file stays compact."""
    long = "_backward_MyAddOne::CopyCPU2CPU" * 2
    buf = _buffer([(long if i % 10 == 0 else "x", "operator", BASE + 10 * i, BASE + 10 * i + 3)
                   for i in range(100)])
    data = chrome.encode(_snap(buf), BASE, "p", {})
    assert b"  " not in data and b"\0" not in data
    got = [e["name"] for e in json.loads(data)["traceEvents"] if e["ph"] == "X"]
    assert got == [long if i % 10 == 0 else "x" for i in range(100)]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 700), st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**32))
def test_drop_nul_equals_the_boolean_mask(n, width, layouts, seed):
    """Rows grouped by layout (NULs in the same places) lose their NULs as the mask
    drops them, whichever way drop_nul takes (grouped rows, or the mask for many
    layouts)."""
    rng = np.random.default_rng(seed)
    where_nul = rng.random((layouts, width)) < 0.3
    layout = rng.integers(0, layouts, n)
    mat = rng.integers(1, 256, (n, width), dtype=np.uint8)
    mat[where_nul[layout]] = 0
    flat = mat.reshape(-1)
    assert columns.drop_nul(mat, layout).tobytes() == flat[flat != 0].tobytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 10**15), min_size=1, max_size=4), min_size=1,
                max_size=200))
def test_layout_keys_are_equal_exactly_when_the_columns_are(rows):
    width = max(len(r) for r in rows)
    cols = np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64).T
    key = columns.layout_key(list(cols))
    tuples = [tuple(c) for c in cols.T.tolist()]
    for i in range(len(rows)):
        for j in range(i + 1, min(len(rows), i + 20)):
            assert (key[i] == key[j]) == (tuples[i] == tuples[j])
    assert key.min() == 0 and key.max() == len(set(tuples)) - 1
