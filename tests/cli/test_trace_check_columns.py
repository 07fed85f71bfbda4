"""``xprof trace`` checks its output from the normalizer's columns; reading the output back
must give the same verdict.

Why: the check decides whether OUT is replaced, and the column path skips decoding
the events its reader found plain (``normalize.py`` decides that while reading, the
checker's rules about one event's own fields, mirrored). Here both paths run on the
same input and must agree on every violation, the counts and the bytes written:
arbitrary events (hypothesis), the MXNet/PyTorch fixtures, seeded mutations of them,
and hand-written events that break each per-event rule.
"""
from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import TRACES
from mutations import NASTY, mutate
from xprof.mxcli.streaming.checker import Checker
from xprof.mxcli.streaming.normalize import Normalizer
from xprof.traces.tracefile import TraceError, TraceReader
from xprof.mxcli.trace import checked_output

TOP = {"displayTimeUnit": "ms"}


def _run(batches, decode, **filters):
    norm = Normalizer()
    for batch in batches:
        norm.feed(copy.deepcopy(batch))
    norm.finish(**filters)
    checker = Checker()
    out = b"".join(checked_output(norm, TOP, checker, lambda done: None, decode))
    plain = int(np.count_nonzero(norm.output_columns(0, norm.count())["plain"]))
    return (out, checker.events, checker.errors, checker.warnings, checker.violations), plain


def both_agree(events, batches=None, **filters):
    """The two checks' results (asserted equal) and how many events were plain;
    ``batches``: the events as the reader gave them (several feeds)."""
    batches = batches or [events]
    (by_columns, plain), (by_decoding, _) = _run(batches, False, **filters), _run(batches, True, **filters)
    assert by_columns[1:] == by_decoding[1:]
    assert by_columns[0] == by_decoding[0]
    return by_decoding, plain


# mostly well-formed events, so that pairing, nesting and binding are exercised; some
# fields take values that break a rule
nasty = st.sampled_from(NASTY)
fields = {
    "ph": st.one_of(st.sampled_from(list("XXXBEiICbenstfP")), nasty),
    "ts": st.one_of(st.sampled_from([0, 1, 1.5, 2, 3, 5, 8]), st.floats(0, 10), nasty),
    "dur": st.one_of(st.sampled_from([0, 0.5, 1, 2, 4]), nasty),
    "pid": st.one_of(st.integers(0, 1), nasty),
    "tid": st.one_of(st.integers(0, 2), nasty),
    "name": st.one_of(st.sampled_from(["a", "b", "thread_name"]), nasty),
    "cat": st.one_of(st.sampled_from(["c", "Custom Operator"]), nasty),
    "id": st.one_of(st.integers(0, 3), nasty),
    "id2": st.sampled_from([{"local": 1}, {"global": "g"}, 5]),
    "bp": st.sampled_from(["e", "x", None]),
    "s": st.sampled_from(["t", "p", "g", "x", None]),
    "args": st.one_of(st.just({"v": 1}), st.just({}), st.just({"v": "x"}), nasty),
}
common = {"ph": fields["ph"], "ts": fields["ts"], "pid": fields["pid"], "tid": fields["tid"],
          "name": fields["name"], "cat": fields["cat"]}
optional = {k: v for k, v in fields.items() if k not in common}
events = st.lists(st.fixed_dictionaries(common, optional=optional), max_size=30)


@settings(max_examples=300, deadline=None)
@given(events, st.sampled_from([{}, {"domains": ("c",)}, {"name_glob": "a"},
                                {"since_ms": 0.002, "until_ms": 0.005}]))
def test_arbitrary_events_get_the_same_verdict_both_ways(evs, filters):
    both_agree(evs, **filters)


def _step(k):
    """A valid imperative step: nested slices, a counter, a flow arrow, an async pair."""
    t = 10.0 * k
    return [
        {"name": "api", "cat": "API", "ph": "X", "ts": t, "dur": 5.0, "pid": 0, "tid": 0},
        {"name": "op", "cat": "operator", "ph": "X", "ts": t + 1, "dur": 2, "pid": 0, "tid": 1},
        {"name": "Memory", "cat": "Device Storage", "ph": "C", "ts": t + 2, "pid": 0, "args": {"v": k}},
        {"name": "call", "cat": "Custom Operator", "ph": "X", "ts": t, "dur": 4.0, "pid": 0, "tid": 3},
        {"name": "call", "cat": "Custom Operator", "ph": "s", "id": k, "ts": t + 0.5, "pid": 0, "tid": 3},
        {"name": "sub", "cat": "Custom Operator", "ph": "X", "ts": t + 3, "dur": 0.5, "pid": 0, "tid": 1},
        {"name": "call", "cat": "Custom Operator", "ph": "f", "bp": "e", "id": k, "ts": t + 3.25,
         "pid": 0, "tid": 1},
        {"name": "step", "cat": "user", "ph": "b", "id": k, "ts": t, "pid": 0, "tid": 0},
        {"name": "step", "cat": "user", "ph": "e", "id": k, "ts": t + 9.5, "pid": 0, "tid": 0},
        {"name": "mark", "cat": "user", "ph": "i", "s": "t", "ts": t + 6, "pid": 0, "tid": 0},
        {"name": "B", "ph": "B", "ts": t + 6, "pid": 0, "tid": 2},
        {"name": "B", "ph": "E", "ts": t + 7, "pid": 0, "tid": 2},
    ]


def test_a_valid_trace_is_checked_without_decoding_and_passes():
    evs = [e for k in range(300) for e in _step(k)]
    (_, count, errors, warnings, _), plain = both_agree(evs)
    assert (errors, warnings) == (0, 0)
    assert plain == len(evs) - 300   # every event (a B/E pair is one X); the rest is metadata
    assert count == plain + 6        # a name for the process and each of its five tracks


BROKEN = [  # each breaks one rule about an event's own fields (or is not plain for another reason)
    {"name": "x", "ph": "X", "ts": 1, "dur": -1, "pid": 0, "tid": 0},
    {"name": "x", "ph": "X", "ts": 1, "pid": 0, "tid": 0},
    {"name": "x", "ph": "X", "ts": 1, "dur": 1, "pid": 0},
    {"name": "x", "ph": "X", "ts": 1, "dur": 1e17, "pid": 0, "tid": 0},
    {"name": "x", "ph": "X", "ts": -1, "dur": 1, "pid": 0, "tid": 0},
    {"name": "x", "ph": "X", "ts": 1e17, "dur": 1, "pid": 0, "tid": 0},
    {"name": 5, "ph": "X", "ts": 1, "dur": 1, "pid": 0, "tid": 0},
    {"name": "x", "cat": [1], "ph": "X", "ts": 1, "dur": 1, "pid": 0, "tid": 0},
    {"name": "x", "ph": "X", "ts": 1, "dur": 1, "pid": 0, "tid": 0, "args": 3},
    {"name": "c", "ph": "C", "ts": 1, "pid": 0},
    {"name": "c", "ph": "C", "ts": 1, "pid": 0, "args": {}},
    {"name": "c", "ph": "C", "ts": 1, "pid": 0, "args": {"v": "high"}},
    {"name": "c", "ph": "C", "ts": 1, "pid": 0, "args": {"v": True}},
    {"name": "i", "ph": "i", "ts": 1, "pid": 0},
    {"name": "i", "ph": "i", "s": "x", "ts": 1, "pid": 0, "tid": 0},
    {"name": "i", "ph": "I", "s": None, "ts": 1, "pid": 0},
    {"name": "a", "cat": "c", "ph": "b", "ts": 1, "pid": 0},
    {"name": "a", "cat": "c", "ph": "b", "id": None, "ts": 1, "pid": 0},
    {"name": "a", "cat": "c", "ph": "b", "id": 1, "id2": {"local": 1}, "ts": 1, "pid": 0},
    {"name": "a", "ph": "b", "id": 1, "ts": 1, "pid": 0},
    {"name": "", "cat": "c", "ph": "e", "id": 1, "ts": 2, "pid": 0},
    {"name": "a", "cat": "c", "ph": "n", "ts": 1, "pid": 0},
    {"name": "a", "cat": "c", "ph": "b", "id": "str", "ts": 1, "pid": 0},
    {"name": "a", "cat": "c", "ph": "e", "id": "str", "ts": 1, "pid": 0},
    {"name": "f", "cat": "c", "ph": "s", "ts": 1, "pid": 0, "tid": 0},
    {"name": "f", "cat": "c", "ph": "s", "id": 9, "ts": 1, "pid": 0},
    {"name": "f", "cat": "c", "ph": "f", "id": 9, "bp": "x", "ts": 1, "pid": 0, "tid": 0},
    {"name": "f", "cat": "c", "ph": "t", "id": 9, "id2": {"local": 9}, "ts": 1, "pid": 0, "tid": 0},
    {"name": "p", "ph": "P", "ts": 1, "pid": 0, "tid": 0},
    {"name": "z", "ph": "Z", "ts": 1, "pid": 0, "tid": 0},
    {"name": "big", "ph": "i", "s": "g", "ts": 1, "pid": 0, "args": {"n": 2 ** 60}},
]


@pytest.mark.parametrize("bad", BROKEN, ids=[str(i) for i in range(len(BROKEN))])
def test_each_broken_event_among_valid_ones_gets_the_same_verdict(bad):
    evs = [e for k in range(3) for e in _step(k)]
    evs.insert(7, bad)
    evs.insert(len(evs) - 5, dict(bad, ts=21))
    (_, count, errors, warnings, violations), plain = both_agree(evs)
    assert plain < count   # the odd ones were decoded


@pytest.fixture(scope="module")
def real_traces():
    return [(path.name, path.read_bytes()) for path in sorted(TRACES.glob("*.json"))]


def test_mxnet_and_pytorch_traces_get_the_same_verdict(real_traces):
    assert len(real_traces) >= 2
    for name, data in real_traces:
        doc = json.loads(data)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        (_, count, _, _, _), plain = both_agree(evs)
        assert plain > count // 2, name


def test_mutated_real_traces_get_the_same_verdict(real_traces, tmp_path):
    """Read as ``xprof trace`` reads them (the reader replaces lone surrogates, keeps big
    integers, cuts batches); a mutation that leaves no readable trace is counted."""
    sources = [(data, json.loads(data)) for _, data in real_traces]
    compared = 0
    for seed in range(160):
        kind, data = mutate(sources, random.Random(seed))
        path = tmp_path / f"m{seed}.json"
        path.write_bytes(data)
        reader = TraceReader(path, chunk_size=1 << 14)
        try:
            batches = [batch for batch, _ in reader.batches()]
        except TraceError:
            continue
        both_agree(None, batches)
        compared += 1
    assert compared >= 50
