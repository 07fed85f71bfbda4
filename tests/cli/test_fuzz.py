"""Arbitrary JSON events never crash the checker, the stats reader or the normalizer.

Why: all three face files from other tools; a malformed event must become a
violation (or be skipped), never a traceback.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.cli.readers.checker import Checker
from xprof.cli.readers.chrome import StatsCollector
from xprof.cli.readers.normalize import normalize

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
    collector = StatsCollector()
    collector.feed(evs)
    collector.finish()
    normalize(evs, {}, domains=("c",), since_ms=0.001, until_ms=1, name_glob="*")
    normalize(evs, {})
