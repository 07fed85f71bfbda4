"""The trace encoder's exact bytes, pinned: two fixed snapshots (one with dependency
records, one without) must encode to the files under ``golden/``.

The other encoder tests read the trace back through JSON parsers, so they do not see a
change of bytes that parses the same (padding, spacing, member order, number
spelling). These pin the bytes, so that the bulk writer can be made faster without
changing the file: each snapshot mixes what the writer treats differently (plain
slices with short and long heads, shaped slices, op records with and without ``Input
Dims``, pushed by another thread or not, with 0 to 4 variables; sub-operators with
and without dependency records and their flow arrows; custom-op call spans, counters,
sync points, instants, async pairs, slices with args; records begun before the
session; a thread of another process's track group).

A deliberate change of the trace format regenerates the files:
``python tests/profiler/test_chrome_encode_bytes.py`` (then check the diff).
"""
import json
import os
import sys

from xprof.runtime.profiler import chrome, recorder as R, records

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
BASE = 5 * 10**12
OTHER = {"xprof_version": "test", "clock": "perf_counter_ns"}


class _Process:
    """Another process's track group, as the encoder reads one (name, labels)."""

    def __init__(self, name, labels):
        self.name, self.labels = name, labels


def _buffer(tid, name, track=True, process=None):
    buf = R.ThreadBuffer(tid, name, 100 + tid, track)
    buf.process = process
    return buf


def _slice(buf, cat, name, t0, t1, dims=None):
    """A plain slice (under its shaped key when ``dims`` is given)."""
    key = R.key_ids(cat)[name] if dims is None else R.shaped_keys[(name, dims)]
    buf.slices.extend((key, BASE + t0, BASE + t1))


def _op(buf, name, t0, t1, t_push, t_ready, pusher, reads, writes, dims=None):
    """An op record (times relative to BASE; a stamp of 0 or None: not stamped)."""
    key = R.key_ids(records.OPERATOR)[name] if dims is None else R.shaped_keys[(name, dims)]
    stamp = (lambda t: t if not t else BASE + t)
    buf.events.append(records.op_dep(name, records.OPERATOR, BASE + t0, BASE + t1,
                                     stamp(t_push), stamp(t_ready), pusher, tuple(reads),
                                     tuple(writes), key))


def _with_dependencies():
    main, worker = _buffer(0, "main thread"), _buffer(3, "engine worker 0")
    counters = _buffer(9, "counters", track=False)
    child = _buffer(11, "DataLoader worker 0 main thread",
                    process=_Process("DataLoader worker 0", "pid 4242"))
    _slice(main, records.API, "old", -50, 40)                       # before the session
    _op(main, "_plus_scalar", -30, 20, -40, -35, None, [901], [902], ((100, 100),))
    for i in range(40):   # the bulk: API slices around their ops, shaped and not
        t = 1000 + 997 * i
        _slice(main, records.API, "_plus_scalar" if i % 3 else "FullyConnected", t,
               t + 300 + 17 * i)
        _op(main, "_plus_scalar" if i % 3 else "FullyConnected", t + 20, t + 250 + i,
            t + 10 if i % 2 else 0, t + 15 if i % 4 == 1 else None, None if i % 5 else 3,
            [900 + i % 7, 950][:1 + i % 2], [1000 + i] * (i % 3 != 2),
            ((100, 100),) if i % 3 else ((8, 100), (64, 100), (64,)))
    _op(main, "no dims", 50_000, 50_010, 49_000, 49_500, 3, [], [])
    _op(main, "late push", 51_000, 51_010, 51_005, 51_007, None, [901], [902, 903, 904])
    _slice(main, records.OPERATOR, "Convolution", 52_000, 52_100, ((1, 3, 8, 8), (4, 3, 3, 3)))
    main.events += [
        records.slice_with_args("with args", records.OPERATOR, BASE + 53_000, BASE + 53_002,
                                {"kernel": "(3, 3)", "q\"uote": "é"}),
        records.sub_operator("MyAddOne::_plus_scalar", records.CUSTOM_OPERATOR,
                             BASE + 54_010, BASE + 54_020, BASE + 54_001, 0, BASE + 54_000,
                             "MyAddOne", BASE + 54_005, (901,), (1100,)),
        records.sub_operator("MyAddOne::_copy", records.CUSTOM_OPERATOR, BASE + 54_030,
                             BASE + 54_040, BASE + 54_025, 0, BASE + 54_000, "MyAddOne")[:9],
        records.call_span("MyAddOne", records.CUSTOM_OPERATOR, BASE + 53_990, BASE + 53_996,
                          BASE + 54_000, BASE + 54_050, BASE + 54_080, 12, 20, 7),
        records.sync("WaitForVar", records.OPERATOR, BASE + 55_000, BASE + 55_400, (1100,)),
        records.sync("WaitForAll", records.OPERATOR, BASE + 56_000, BASE + 56_010, None),
        records.instant("marker", "xprof", BASE + 56_500, "p"),
        records.async_begin("task", "my domain", BASE + 57_000, 1),
        records.async_end("task", "my domain", BASE + 58_000, 1),
    ]
    _slice(main, records.API, "MyAddOne::pure_python", 54_000, 54_050)
    for i in range(12):   # a worker: pushed by the main thread, equal starts
        t = 2000 + 1500 * i
        _op(worker, "_mul_scalar", t, t + 900 - 30 * i, t - 100, t - 40, 0, [1000 + i],
            [1200 + i], ((100, 100),))
        _slice(worker, records.OPERATOR, "nested", t, t + 10)
    counters.events += [records.counter("Memory: cpu/0", "Device Storage", BASE + 10, 40000),
                        records.counter("Memory: cpu/0", "Device Storage", BASE + 900, 0)]
    _slice(child, records.API, "__getitem__", 500, 800)
    _op(child, "_div_scalar", 600, 700, 590, 595, None, [7], [8], ((3, 3),))
    return [main, worker, counters, child]


def _without_dependencies():
    main, other = _buffer(0, "main thread"), _buffer(1, "names far apart in length")
    for i in range(30):   # near-equal heads: padded with spaces
        t = 100 + 10_007 * i
        _slice(main, records.API, "_plus_scalar", t, t + 5 + 113 * i)
        _slice(main, records.OPERATOR, "_plus_scalar", t + 2, t + 4 + 111 * i)
    for i in range(30):   # short and very long heads (and shaped ones): padding dropped
        t = 10 ** 9 + 7 * i
        _slice(other, records.OPERATOR, "_backward_MyAddOne::CopyCPU2CPU" * 2 if i % 10 == 0
               else "x", t, t + 3 + i ** 4)
        _slice(other, records.OPERATOR, "_plus_scalar", t + 1, t + 2, ((100, 100),) * (i % 3))
    main.events.append(records.counter("loss", "my domain", BASE + 20, 0.25))
    return [main, other]


CASES = {"with_dependencies": _with_dependencies, "without_dependencies": _without_dependencies}


def _encoded(case):
    bufs = CASES[case]()
    return chrome.encode([(b, len(b.events), len(b.slices)) for b in bufs], BASE, "proc",
                         OTHER)


def _golden(case):
    return os.path.join(GOLDEN, case + ".json")


def _check(case):
    data = _encoded(case)
    json.loads(data)   # (still a JSON document)
    with open(_golden(case), "rb") as f:
        want = f.read()
    assert data == want, f"{case}: the encoder's bytes differ from {_golden(case)}"


def test_a_snapshot_with_dependency_records_encodes_to_the_pinned_bytes():
    _check("with_dependencies")


def test_a_snapshot_without_dependency_records_encodes_to_the_pinned_bytes():
    _check("without_dependencies")


def test_the_pinned_traces_hold_what_the_snapshots_do():
    """The golden files are the traces meant (not whatever the encoder wrote once)."""
    with open(_golden("with_dependencies"), "rb") as f:
        events = json.load(f)["traceEvents"]
    xs = [e for e in events if e["ph"] == "X"]
    assert not [e for e in xs if e["name"] == "old" or e["ts"] < 0]
    deps = [e for e in xs if "dep" in e.get("args", {})]
    assert len(deps) == 40 + 2 + 1 + 12 + 1   # main's ops, the sub-operator, worker, child
    first = next(e for e in deps if e["name"] == "FullyConnected")
    assert first["args"]["Input Dims"] == [[8, 100], [64, 100], [64]]
    late = next(e for e in deps if e["name"] == "late push")
    assert late["args"]["dep"][:3] == [0, 0, 0] and len(late["args"]["dep"]) == 7
    assert {e["ph"] for e in events} >= {"M", "X", "C", "i", "b", "e", "s", "f"}
    assert {e["pid"] for e in events} == {0, 1}
    with open(_golden("without_dependencies"), "rb") as f:
        data = f.read()
    assert b"  " in data and b"\0" not in data   # space padding kept where it is small


def test_a_long_session_writes_the_bytes_the_boolean_mask_does(monkeypatch):
    """Thousands of rows of few layouts: the NULs go by grouped rows
    (``columns.drop_nul``), and the trace is byte for byte the one the plain mask
    gives (the pinned snapshots are too short to take that path)."""
    bufs = []
    for rounds in (8000, 40):
        buf = _buffer(len(bufs) + 20, f"thread {len(bufs)}")
        for i in range(rounds):
            t = 1000 + 797 * i
            _slice(buf, records.API, "_plus_scalar" if i % 4 else "broadcast_add", t,
                   t + 300 + (i * 7919) % 600)
            _op(buf, "_plus_scalar" if i % 4 else "broadcast_add", t + 20,
                t + 250 + (i * 104_729) % 5000, t + 10 if i % 2 else 0,
                t + 15 if i % 4 == 1 else None, None if i % 5 else 3,
                [900 + i % 7, 950][:1 + i % 2], [1000 + i % 50],
                ((100, 100),) if i % 4 else ((8, 100), (64, 100)))
        bufs.append(buf)
    snap = [(b, len(b.events), len(b.slices)) for b in bufs]
    grouped = chrome.encode(snap, BASE, "proc", OTHER)
    monkeypatch.setattr(chrome.columns, "drop_nul",
                        lambda mat, layout: mat.reshape(-1)[mat.reshape(-1) != 0])
    for b in bufs:
        b.ops = b.converted = None
    assert grouped == chrome.encode(snap, BASE, "proc", OTHER)
    assert len(json.loads(grouped)["traceEvents"]) > 16000


if __name__ == "__main__":   # regenerate after a deliberate format change
    os.makedirs(GOLDEN, exist_ok=True)
    for name in CASES:
        with open(_golden(name), "wb") as f:
            f.write(_encoded(name))
        print("wrote", _golden(name), file=sys.stderr)
