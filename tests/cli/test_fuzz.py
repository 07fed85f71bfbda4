"""Arbitrary JSON events never crash the checker, the stats reader or the normalizer.

Why: all three face files from other tools; a malformed event must become a
violation (or be skipped), never a traceback.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.mxcli.streaming.checker import Checker
from xprof.mxcli.analysis.stats_report import stats_report
from xprof.mxcli.analysis.stats_processors import Options
from xprof.traces.model import Builder
from xprof.traces.model import from_events
from cli_helpers import normalize

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=False), st.text(max_size=4))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)), max_leaves=6)
fields = {
    "ph": st.one_of(st.sampled_from(list("BEXiICbnestfMPRSO")), json_values),
    "ts": st.one_of(st.floats(min_value=0, max_value=100, allow_nan=False), json_values),
    "dur": st.one_of(st.floats(min_value=0, max_value=50, allow_nan=False), json_values),
    "pid": st.one_of(st.integers(0, 2), json_values),
    "tid": st.one_of(st.integers(0, 2), json_values),
    "name": st.one_of(st.sampled_from(["a", "b", "process_name", "thread_name"]), json_values),
    "cat": st.one_of(st.sampled_from(["c", "Custom Operator", "Device Storage"]), json_values),
    "id": st.one_of(st.integers(0, 3), json_values),
    "id2": json_values, "bp": st.one_of(st.just("e"), json_values), "s": json_values,
    "args": json_values,
}
events = st.lists(st.one_of(st.fixed_dictionaries({}, optional=fields), json_values), max_size=25)


@settings(max_examples=200, deadline=None)
@given(events)
def test_no_crash(evs):
    checker = Checker()
    checker.check_top({"displayTimeUnit": "ms"})
    checker.check_batch(0, evs, False)
    checker.finish()
    checker2 = Checker()
    checker2.check_batch(0, evs, True)
    checker2.finish()
    for group_by in ("name", "layer"):   # the statistics of the Trace, by every view
        tl = from_events(evs, Builder(links="pairs", records="times", keys=True))
        stats_report(tl, Options(group_by=group_by, by_process=True))
    normalize(evs, {}, domains=("c",), since_ms=0.001, until_ms=1, name_glob="*")
    normalize(evs, {})


# dependency records and sync points with integers anywhere, 2^70 included: explain's
# timeline, the latency section, the marked copy and diff skip what is no record
huge = st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
dep_events = st.lists(st.one_of(
    st.fixed_dictionaries({"name": st.sampled_from(["op", "op2"]), "cat": st.just("operator"),
                           "ph": st.just("X"), "ts": st.floats(0, 100, allow_nan=False),
                           "dur": st.floats(0, 10, allow_nan=False), "pid": st.just(0),
                           "tid": st.integers(0, 2),
                           "args": st.fixed_dictionaries({"dep": st.lists(huge, min_size=3,
                                                                          max_size=6)})}),
    st.fixed_dictionaries({"name": st.just("WaitForVar"), "cat": st.just("operator"),
                           "ph": st.just("i"), "s": st.just("t"),
                           "ts": st.floats(0, 100, allow_nan=False), "pid": st.just(0),
                           "tid": st.just(0),
                           "args": st.fixed_dictionaries({"wait": st.lists(huge, max_size=3),
                                                          "waited": huge})})), max_size=12)


@settings(max_examples=150, deadline=None)
@given(dep_events)
def test_huge_integers_in_dependency_records_never_crash(evs):
    import json
    import tempfile

    from xprof.mxcli.analysis.diff import diff
    from xprof.mxcli.analysis.explain import analyze
    from xprof.mxcli.analysis.mark import chunks
    from xprof.mxcli.analysis.latency import rows_of

    doc = {"traceEvents": [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 0,
                            "args": {"name": "main"}}] + evs}
    tl = from_events(doc["traceEvents"])
    analysis = analyze(tl) if len(tl.start) else None
    rows_of(tl)
    if analysis is None:
        return
    analysis.to_dict()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(json.dumps(doc))
    try:
        b"".join(chunks(f.name, analyze(f.name)))
        diff(*[_run(f.name)] * 2)
    finally:
        import os
        os.unlink(f.name)


def _run(path):
    from xprof.mxcli.streaming.pair import load_run
    return load_run(path)
