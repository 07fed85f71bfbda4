"""A dump never removes events it wrote before (issue #40 point 9, #39's profiler
rules): after a finished ``dump()``, a later dump to the same file keeps every event
already written, on one time base, with ids and variable numbers that do not collide,
and the file stays a valid trace; ``dumps()`` keeps the finished sessions' statistics
until ``dumps(reset=True)``, as MXNet 1.9.1 and 2.0.0b1 do."""
import collections
import json
import os
import subprocess
import sys

import pytest

import xprof.runtime as mx

import proftools as pt
import _util_custom  # noqa: F401 - registers ObsPlusOne

P = mx.profiler


def _conv_step():
    """A small CNN step (the guide's cells 4-6 in miniature): Convolution forward and
    backward."""
    x = mx.nd.ones((2, 3, 8, 8))
    w = mx.nd.ones((4, 3, 3, 3)) * 0.1
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
        loss = (y * y).sum()
    loss.backward()
    mx.nd.waitall()


def _written(doc):
    """Every event but the metadata, as comparable tuples (a multiset)."""
    return collections.Counter(
        json.dumps(e, sort_keys=True) for e in doc["traceEvents"] if e["ph"] != "M")


def _validate(path):
    p = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate", path],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and " 0 errors" in p.stdout, (p.stdout, p.stderr)


def _first_session(prof, **cfg):
    prof.start(profile_all=True, **cfg)
    _conv_step()
    mx.nd.Custom(mx.nd.ones((3,)), op_type="ObsPlusOne").wait_to_read()
    prof.stop()
    path = P.dump()   # finished
    first = pt.load(path)
    assert pt.name_counts(first)[("operator", "Convolution")] >= 1
    return path, first


@pytest.mark.parametrize("between", ["nothing", "dumps(reset=True)", "an empty run/stop"])
def test_a_second_dump_keeps_every_event_of_the_first(prof, between):
    path, first = _first_session(prof)
    if between == "dumps(reset=True)":
        P.dumps(reset=True)
    elif between == "an empty run/stop":
        P.set_state("run")
        P.set_state("stop")
    P.dump()
    second = pt.load(path)
    assert not _written(first) - _written(second), "a later dump removed events"
    pt.check_document(second)
    _validate(path)


def test_the_guides_cells_7_to_9_keep_the_cnn_trace_and_its_statistics(prof):
    """Cell 7 ``dump()``; cell 8 ``set_state('run')``, ``set_state('stop')``,
    ``print(profiler.dumps())``; cell 9 ``dump(finished=False)``: the table still
    shows the CNN's operators (MXNet's too) and the file still holds its events (MXNet's
    holds them in a file no reader parses)."""
    path, first = _first_session(prof, aggregate_stats=True, continuous_dump=True)
    P.set_state("run")
    P.set_state("stop")
    table = P.dumps()
    assert "Convolution" in table and "_backward_Convolution" in table
    P.dump(finished=False)
    doc = pt.load(path)
    names = pt.name_counts(doc)
    assert names[("operator", "Convolution")] >= 1
    assert names[("operator", "_backward_Convolution")] >= 1
    assert not _written(first) - _written(doc)
    pt.check_document(doc)
    _validate(path)


def test_statistics_are_kept_until_dumps_reset(prof):
    _first_session(prof, aggregate_stats=True)
    for _ in range(2):   # sessions after it add to them
        P.set_state("run")
        mx.nd.ones((4,)).exp().wait_to_read()
        P.set_state("stop")
    counts = pt.stat_counts(prof.stats(), "operator")
    assert counts["Convolution"] >= 1 and counts["exp"] == 2
    assert "Convolution" in P.dumps(reset=True)
    assert "Convolution" not in P.dumps() and "exp" not in P.dumps()


def test_a_later_session_goes_on_after_the_earlier_ones_events(prof):
    """One time base, and nothing numbered twice: flow arrows, custom-op call spans,
    variables of dependency records."""
    path, first = _first_session(prof)
    P.set_state("run")
    _conv_step()
    mx.nd.Custom(mx.nd.ones((3,)), op_type="ObsPlusOne").wait_to_read()
    P.set_state("stop")
    P.dump()
    doc = pt.load(path)
    old = _written(first)
    new = [e for e in doc["traceEvents"]
           if e["ph"] != "M" and json.dumps(e, sort_keys=True) not in old]
    assert pt.name_counts({"traceEvents": new})[("operator", "Convolution")] >= 1
    end_first = max(e["ts"] + e.get("dur", 0) for e in pt.events(first) if "ts" in e)
    assert min(e["ts"] for e in new if "ts" in e) >= end_first
    for ph in ("s", "b"):
        ids = [e["id"] for e in doc["traceEvents"] if e["ph"] == ph]
        assert len(ids) >= 2 and len(ids) == len(set(ids)), ph
    def numbers(events):
        return {abs(v) for e in events if e["ph"] == "X" for v in
                e.get("args", {}).get("dep", [])[3:]}
    assert min(numbers(new)) > max(numbers(pt.events(first)))
    names = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    assert len(names) == len({(e["name"], e["pid"], e["tid"]) for e in names})
    pt.check_document(doc)
    _validate(path)


def test_set_config_starts_a_new_profile(prof):
    path, _ = _first_session(prof)
    prof.start(profile_imperative=True)
    mx.nd.ones((4,)).exp().wait_to_read()
    doc = prof.finish()
    names = {e["name"] for e in pt.events(doc, "X")}
    assert "exp" in names and "Convolution" not in names


def test_a_file_replaced_by_someone_else_is_not_written_back(prof):
    path, _ = _first_session(prof)
    os.remove(path)
    P.set_state("run")
    mx.nd.ones((4,)).exp().wait_to_read()
    P.set_state("stop")
    doc = pt.load(P.dump())
    names = {e["name"] for e in pt.events(doc, "X")}
    assert "exp" in names and "Convolution" not in names
