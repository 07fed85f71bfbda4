"""profiler.dumps(): exact counts, JSON schema, table layout, every sort order, reset."""
import json

import pytest
from hypothesis import given, settings, strategies as st

import xprof.runtime as mx

import proftools as pt

P = mx.profiler
SORT_KEYS = ("total", "self", "avg", "min", "max", "count")
TIME_FIELDS = ["Count", "Total", "Self", "%", "Min", "Max", "Avg"]
MEM_FIELDS = ["Count", "Min", "Max", "Avg"]


def _workload():
    """Distinct counts per op name (1..4) so count order is fully determined."""
    x = mx.nd.ones((16, 16))
    x.sqrt().wait_to_read()                    # sqrt x1
    for _ in range(2):
        (x + 1).wait_to_read()                 # _plus_scalar x2
    for _ in range(3):
        x.exp().wait_to_read()                 # exp x3
    for _ in range(4):
        (x * 2).wait_to_read()                 # _mul_scalar x4
    dom = P.Domain("Counters")
    dom.new_counter("alpha", 1)
    b, c = dom.new_counter("beta", 50), dom.new_counter("gamma")
    b.increment(25)
    c += 5
    c += 5
    c -= 3
    mx.nd.waitall()


@pytest.fixture
def recorded(prof):
    prof.start(profile_all=True)
    _workload()
    prof.stop()
    return prof


def test_counts_are_exact(prof):
    prof.start(profile_all=True)
    x = mx.nd.ones((5,))
    x.sqrt()
    x + 1
    x + 1
    prof.stop()
    st = prof.stats()
    for domain in ("operator", "API"):
        counts = pt.stat_counts(st, domain)
        assert counts["sqrt"] == 1, (domain, counts)
        assert counts["_plus_scalar"] == 2, (domain, counts)
    table = pt.parse_table(P.dumps())
    rows = dict(pt.table_rows(*table["operator"]))
    assert rows["sqrt"][0] == 1 and rows["_plus_scalar"][0] == 2


def test_counts_match_trace(recorded):
    st = recorded.stats()
    P.dump(finished=False)
    doc = pt.load(recorded.path)
    trace_counts = pt.name_counts(doc)
    for domain, names in st["Time"].items():
        for name, row in names.items():
            assert row["Count"] == trace_counts[(domain, name)], (domain, name)
    assert sum(trace_counts.values()) == sum(r["Count"] for d in st["Time"].values()
                                             for r in d.values())


def test_json_schema(recorded):
    st = recorded.stats()
    # Operator Latency: the dependency/queue/run split of every recorded op (issue 14)
    assert list(st) == ["Time", "Memory", "Counter", "Operator Latency", "Unit"]
    assert set(st["Operator Latency"]) == set(st["Time"]["operator"])
    assert st["Unit"] == {"Time": "ms", "Memory": "kB"}
    assert list(st["Time"]) == sorted(st["Time"]), "domains must be in sorted order"
    assert {"operator", "API"} <= set(st["Time"])
    for domain, names in st["Time"].items():
        for name, row in names.items():
            assert list(row) == TIME_FIELDS, (domain, name, row)
            assert isinstance(row["Count"], int) and row["Count"] >= 1
            assert 0 <= row["Min"] <= row["Avg"] <= row["Max"] <= row["Total"] + 1e-6
            assert 0 <= row["Self"] <= row["Total"] and 0 <= row["%"] <= 100
            assert row["Total"] == pytest.approx(row["Avg"] * row["Count"], rel=1e-3,
                                                 abs=1e-5)
    assert list(st["Memory"]) == ["Device Storage"]
    for section in ("Memory", "Counter"):
        for domain, names in st[section].items():
            for name, row in names.items():
                assert list(row) == MEM_FIELDS
                assert row["Min"] <= row["Avg"] <= row["Max"]
    ctr = st["Counter"]["Counters"]
    assert ctr["alpha"] == {"Count": 1, "Min": 1, "Max": 1, "Avg": 1}
    assert ctr["beta"] == {"Count": 2, "Min": 50, "Max": 75, "Avg": 62.5}
    # gamma: 5, 10, 7 (no initial value, so no sample at creation)
    assert ctr["gamma"]["Count"] == 3 and ctr["gamma"]["Max"] == 10
    assert ctr["gamma"]["Avg"] == pytest.approx(22 / 3, abs=1e-6)


def test_memory_avg_is_a_real_average_in_kb(recorded):
    P.dump(finished=False)
    doc = pt.load(recorded.path)
    values = [e["args"]["Memory: cpu/0"] for e in pt.events(doc, "C", "Device Storage")]
    assert len(values) >= 2
    row = recorded.stats()["Memory"]["Device Storage"]["Memory: cpu/0"]
    assert row["Count"] == len(values)
    assert row["Min"] == pytest.approx(min(values) / 1000, abs=1e-3)
    assert row["Max"] == pytest.approx(max(values) / 1000, abs=1e-3)
    assert row["Avg"] == pytest.approx(sum(values) / len(values) / 1000, abs=1e-3)


def _check_order(items, key, ascending, exact_ties):
    """items: [(name, value)] in displayed order."""
    values = [v for _, v in items]
    expect = sorted(values, reverse=not ascending)
    assert values == expect, (key, ascending, items)
    if exact_ties:
        for (n1, v1), (n2, v2) in zip(items, items[1:]):
            if v1 == v2:
                assert n1 < n2, f"tie not broken by name: {n1} before {n2}"


@pytest.mark.parametrize("ascending", [False, True])
@pytest.mark.parametrize("sort_by", SORT_KEYS)
def test_sort_order_json(recorded, sort_by, ascending):
    st = recorded.stats(sort_by=sort_by, ascending=ascending)
    field = {"total": "Total", "self": "Self", "avg": "Avg", "min": "Min", "max": "Max",
             "count": "Count"}[sort_by]
    for domain, names in st["Time"].items():
        assert len(names) >= 2 or domain not in ("operator", "API")
        _check_order([(n, r[field]) for n, r in names.items()], sort_by, ascending,
                     sort_by == "count")
    # counters and memory have no Total: 'total' sorts them by Max (the peak)
    cfield = "Max" if field in ("Total", "Self") else field
    ctr = st["Counter"]["Counters"]
    _check_order([(n, r[cfield]) for n, r in ctr.items()], sort_by, ascending, True)
    if sort_by == "count":
        order = list(st["Time"]["operator"])
        expect = ["_mul_scalar", "exp", "_plus_scalar", "sqrt"]
        if ascending:
            expect = expect[::-1]
        assert [n for n in order if n in expect] == expect


@pytest.mark.parametrize("ascending", [False, True])
@pytest.mark.parametrize("sort_by", SORT_KEYS)
def test_sort_order_table(recorded, sort_by, ascending):
    text = P.dumps(format="table", sort_by=sort_by, ascending=ascending)
    sections = pt.parse_table(text)
    assert {"operator", "API", "Device Storage", "Counters"} <= set(sections)
    col = {"count": 0, "total": 1, "self": 2, "min": 4, "max": 5, "avg": 6}[sort_by]
    for domain in ("operator", "API"):
        header, dashes, rows = sections[domain]
        assert header.split()[:2] == ["Name", "Count"]
        assert "Total (ms)" in header and "Avg (ms)" in header
        parsed = pt.table_rows(header, dashes, rows)
        assert len(parsed) >= 4
        _check_order([(n, v[col]) for n, v in parsed], sort_by, ascending, sort_by == "count")
    header, dashes, rows = sections["Counters"]
    parsed = pt.table_rows(header, dashes, rows)
    ccol = {"count": 0, "total": 2, "self": 2, "min": 1, "max": 2, "avg": 3}[sort_by]
    _check_order([(n, v[ccol]) for n, v in parsed], sort_by, ascending, True)
    header, dashes, rows = sections["Device Storage"]
    assert "Max (kB)" in header and "Total" not in header
    assert [n for n, _ in pt.table_rows(header, dashes, rows)] == ["Memory: cpu/0"]


def test_table_and_json_agree(recorded):
    st = recorded.stats(sort_by="count")
    sections = pt.parse_table(P.dumps(sort_by="count"))
    assert list(sections)[:2] == sorted(st["Time"])[:2]
    for domain, names in st["Time"].items():
        parsed = pt.table_rows(*sections[domain])
        assert [n for n, _ in parsed] == list(names)
        for (name, cells) in parsed:
            assert cells[0] == names[name]["Count"]
            assert cells[1] == pytest.approx(names[name]["Total"], abs=1e-4)


def test_reset_clears_after_reporting(prof):
    prof.start(profile_all=True)
    x = mx.nd.ones((4,))
    for _ in range(3):
        (x + 1).wait_to_read()
    mx.nd.waitall()
    first = json.loads(P.dumps(format="json", reset=True))
    assert first["Time"]["operator"]["_plus_scalar"]["Count"] == 3
    empty = json.loads(P.dumps(format="json"))
    assert "operator" not in empty["Time"]
    assert P.dumps() == "No profiling records.\n" or "operator" not in P.dumps()
    (x + 1).wait_to_read()
    mx.nd.waitall()
    again = json.loads(P.dumps(format="json"))
    assert again["Time"]["operator"]["_plus_scalar"]["Count"] == 1
    # the trace is not affected by resetting the statistics
    doc = prof.finish()
    assert pt.name_counts(doc)[("operator", "_plus_scalar")] == 4


def test_reset_false_is_repeatable(recorded):
    assert P.dumps(format="json") == P.dumps(format="json")


def test_empty_profile(prof):
    assert P.dumps() == "No profiling records.\n"
    st = json.loads(P.dumps(format="json"))
    assert st == {"Time": {}, "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}}


def test_tasks_and_frames_are_timed(prof):
    prof.start(profile_all=True)
    dom = P.Domain("Work")
    task = dom.new_task("load")
    task.start()
    task.stop()
    with dom.new_frame("step"):
        pass
    with dom.new_frame("step"):
        pass
    with P.Event("whole"):
        pass
    prof.stop()
    st = prof.stats()
    assert pt.stat_counts(st, "Work") == {"load": 1, "step": 2}
    assert pt.stat_counts(st, "Event") == {"whole": 1}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 10**12), min_size=1, max_size=50))
def test_summarized_durations_equal_the_traces_values_added_one_by_one(durs_ns):
    """dumps() summarizes raw integer nanoseconds per name; xprof stats adds the trace's
    microsecond values (``ns`` written as ``<ns>e-3``) one by one, in file order. The
    entries must be equal (integer nanoseconds: no float sum depends on the order)."""
    from xprof.traces import stats as S
    one_by_one, summarized = S.Stats(), S.Stats()
    for ns in reversed(durs_ns):
        one_by_one.add_time("operator", "op", float(f"{ns}e-3"))
    summarized.add_times_ns("operator", "op", len(durs_ns), sum(durs_ns), min(durs_ns),
                            max(durs_ns))
    assert one_by_one.time == summarized.time
