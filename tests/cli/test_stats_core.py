"""The shared aggregator (traces/stats.py): numbers, ordering, JSON schema, text."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.traces import stats as S



def _stats():
    return S.aggregate(
        [("operator", "conv", 3000.0), ("operator", "conv", 1000.0),   # total 4, avg 2, min 1, max 3
         ("operator", "relu", 500.0), ("operator", "relu", 500.0),
         ("operator", "relu", 500.0),                                   # total 1.5, count 3
         ("operator", "add", 2500.0),                                   # total 2.5, min=max=2.5
         ("API", "invoke", 10.0)],
        [("Device Storage", "Memory: cpu/0", 2_000_000, True),
         ("Device Storage", "Memory: cpu/0", 1_000_000, True),
         ("Device Storage", "Memory: gpu/0", 5_000_000, True)])


def test_module_is_the_runtime_file():
    from xprof.mxcli import stats as stats_cmd

    assert S.__file__.replace("\\", "/").endswith("traces/stats.py")
    assert stats_cmd.SORT_KEYS == S.SORT_KEYS == ("total", "self", "avg", "min", "max", "count")


def test_units_and_fields():
    obj = S.to_json_obj(_stats())
    assert obj["Unit"] == {"Time": "ms", "Memory": "kB"}
    assert obj["Time"]["operator"]["conv"] == {"Count": 2, "Total": 4.0, "Self": 4.0, "Min": 1.0,
                                               "Max": 3.0, "Avg": 2.0}
    assert obj["Memory"]["Device Storage"]["Memory: cpu/0"] == {
        "Count": 2, "Min": 1000.0, "Max": 2000.0, "Avg": 1500.0}
    assert "Counter" not in obj
    assert isinstance(obj["Time"]["operator"]["relu"]["Count"], int)


def test_counter_section_only_with_plain_counters():
    st = S.aggregate([], [("MXNET_C_API", "calls", 3, False), ("MXNET_C_API", "calls", 5, False)])
    obj = S.to_json_obj(st)
    assert list(obj) == ["Time", "Memory", "Counter", "Unit"]
    assert obj["Counter"]["MXNET_C_API"]["calls"] == {"Count": 2, "Min": 3, "Max": 5, "Avg": 4.0}


def test_domains_sorted_alphabetically():
    assert list(S.to_json_obj(_stats())["Time"]) == ["API", "operator"]


EXPECTED_ORDER = {
    # name: total, avg, min, max, count  -> conv (4, 2, 1, 3, 2), relu (1.5, .5, .5, .5, 3), add (2.5 x4, 1)
    ("total", False): ["conv", "add", "relu"],
    ("total", True): ["relu", "add", "conv"],
    ("avg", False): ["add", "conv", "relu"],
    ("avg", True): ["relu", "conv", "add"],
    ("min", False): ["add", "conv", "relu"],
    ("min", True): ["relu", "conv", "add"],
    ("max", False): ["conv", "add", "relu"],
    ("max", True): ["relu", "add", "conv"],
    ("count", False): ["relu", "conv", "add"],
    ("count", True): ["add", "conv", "relu"],
}


@pytest.mark.parametrize("sort_by,ascending", sorted(EXPECTED_ORDER))
def test_sort_orders(sort_by, ascending):
    obj = S.to_json_obj(_stats(), sort_by, ascending)
    assert list(obj["Time"]["operator"]) == EXPECTED_ORDER[(sort_by, ascending)]
    text = S.render_text(_stats(), sort_by, ascending)
    rows = [line.split()[0] for line in text.splitlines()
            if line.split() and line.split()[0] in ("conv", "relu", "add")]
    assert rows == EXPECTED_ORDER[(sort_by, ascending)]


@pytest.mark.parametrize("ascending", [False, True])
def test_ties_broken_by_name_in_both_directions(ascending):
    st = S.aggregate([("d", n, 1000.0) for n in ("b", "c", "a")])
    for key in S.SORT_KEYS:
        assert list(S.to_json_obj(st, key, ascending)["Time"]["d"]) == ["a", "b", "c"]


def test_memory_total_sorts_by_max():
    obj = S.to_json_obj(_stats(), "total")
    assert list(obj["Memory"]["Device Storage"]) == ["Memory: gpu/0", "Memory: cpu/0"]
    obj = S.to_json_obj(_stats(), "count")
    assert list(obj["Memory"]["Device Storage"]) == ["Memory: cpu/0", "Memory: gpu/0"]


def test_check_sort_message():
    with pytest.raises(ValueError, match=r"sort_by='x' is not one of total, self, avg, min, max, count"):
        S.check_sort("x")
    with pytest.raises(ValueError):
        S.to_json_obj(_stats(), "bogus")
    with pytest.raises(ValueError):
        S.render_text(_stats(), "bogus")


def test_merge_and_empty():
    a = S.aggregate([("d", "x", 1000.0)])
    b = S.aggregate([("d", "x", 3000.0), ("e", "y", 1.0)], [("m", "Memory: z", 10, True)])
    assert S.Stats().empty() and not a.empty()
    a.merge(b)
    count, total, lo, hi = a.time["d"]["x"]
    assert (count, S.to_ms(total), S.to_ms(lo), S.to_ms(hi)) == (2, 4.0, 1.0, 3.0)
    assert "e" in a.time and a.memory["m"]["Memory: z"][0] == 1


def test_text_columns_align_for_long_names():
    long = "a_really_long_operator_name_" * 3
    st = S.aggregate([("operator", long, 1500.0), ("operator", "x", 25.0)])
    lines = S.render_text(st).splitlines()
    assert lines[0] == "operator"
    header = lines[2]
    assert header.split() == ["Name", "Count", "Total", "(ms)", "Self", "(ms)", "%", "Min", "(ms)",
                              "Max", "(ms)", "Avg", "(ms)"]
    rows = lines[4:6]
    # every right-aligned column ends at the same offset as its header
    for col in ("Count", "Total (ms)", "Avg (ms)"):
        end = header.index(col) + len(col)
        for row in rows:
            assert row[end - 1] != " " and (len(row) == end or row[end] == " ")
    assert S.render_text(S.Stats()) == "No profiling records.\n"


def test_text_memory_section_headers():
    text = S.render_text(_stats())
    assert "Name           Count  Min (kB)  Max (kB)  Avg (kB)" in text
    assert "Total (ms)" in text


finite = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=1, max_size=50))
def test_avg_within_min_max_and_counts_exact(durations):
    st_ = S.aggregate([("d", "n", d) for d in durations])
    row = S.to_json_obj(st_)["Time"]["d"]["n"]
    assert row["Count"] == len(durations)
    assert row["Min"] <= row["Avg"] <= row["Max"]
    assert math.isclose(row["Total"], round(sum(durations) / 1000.0, 6), rel_tol=1e-9, abs_tol=2e-6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2 ** 40), min_size=1, max_size=30))
def test_memory_avg_within_min_max(values):
    st_ = S.aggregate([], [("Device Storage", "Memory: cpu/0", v, True) for v in values])
    row = S.to_json_obj(st_)["Memory"]["Device Storage"]["Memory: cpu/0"]
    assert row["Count"] == len(values)
    assert row["Min"] <= row["Avg"] <= row["Max"]
    assert row["Max"] == round(max(values) / 1000, 3)
