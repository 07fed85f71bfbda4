"""``xprof explain``: the command end to end on trace files (text, JSON, mark-trace, errors)."""
import json

import pytest
from cli_helpers import cli, cli_subprocess, write_trace
from deptrace import meta, op, sync

from xprof.mxcli.streaming.checker import Checker
from xprof.traces.tracefile import TraceReader

KEYS = {"wall_ms", "critical_path_ms", "composition", "critical_path", "by_name", "top_ops",
        "threads", "findings"}
REPLAYED = KEYS | {"what_would_help", "replay"}   # with dependency records (issue #41)


def _chain_trace(tmp_path):
    ev = meta() + [
        op("a1", 1, 0, 0, 1, 101, writes=[1]),
        op("b1", 2, 2, 2, 3, 53, writes=[11]),
        op("a2", 1, 4, 101, 102, 202, reads=[1], writes=[2]),
        op("join", 2, 6, 202, 205, 215, reads=[2, 11], writes=[20]),
        sync(0, 7, 220, "all"),
        {"name": "MyOp", "cat": "Custom Operator", "ph": "s", "id": 41, "ts": 3, "pid": 0,
         "tid": 2},
        {"name": "MyOp", "cat": "Custom Operator", "ph": "f", "bp": "e", "id": 41, "ts": 4,
         "pid": 0, "tid": 2},
    ]
    return write_trace(tmp_path / "t.json", ev)


def _valid(path):
    checker = Checker()
    reader = TraceReader(path)
    index = 0
    for batch, big in reader.batches():
        checker.check_batch(index, batch, big)
        index += len(batch)
    checker.check_top(reader.top, reader.truncated)
    checker.finish()
    return checker


def test_json_document_has_exactly_the_issue_keys(tmp_path):
    res = cli("explain", _chain_trace(tmp_path), "--format", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert set(doc) == REPLAYED
    assert doc["wall_ms"] == pytest.approx(0.219)
    for seg in doc["critical_path"]:
        assert set(seg) == {"name", "cat", "tid", "ts", "dur", "kind"}
        assert seg["kind"] in ("op", "queue", "dependency", "python", "blocked")
    for t in doc["threads"].values():
        assert set(t) == {"busy_ms", "blocked_ms", "idle_ms"}
        assert sum(t.values()) == pytest.approx(doc["wall_ms"], rel=1e-6)
    assert set(doc["composition"]) == {"op_ms", "queue_ms", "handoff_ms", "python_ms",
                                       "blocked_ms"}
    assert sum(doc["composition"].values()) == pytest.approx(doc["critical_path_ms"], rel=1e-6)
    assert [o["name"] for o in doc["top_ops"]] == list(doc["by_name"])   # longest first
    for o in doc["top_ops"]:
        assert set(o) == {"name", "path_ms", "calls", "waited_for"}
        assert o["path_ms"] == doc["by_name"][o["name"]]
    a2 = next(o for o in doc["top_ops"] if o["name"] == "a2")
    assert a2 == {"name": "a2", "path_ms": 0.1, "calls": 1, "waited_for": "a1"}
    for f in doc["findings"]:
        assert set(f) == {"text", "figure"}


def test_text_output_answers_the_questions(tmp_path):
    res = cli("explain", _chain_trace(tmp_path))
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert out.startswith("wall time")
    assert "critical path" in out and "composition of the path" in out
    assert "a2" in out and "waited for a1" in out
    assert "engine worker 0" in out and "busy" in out


def test_mark_trace_is_valid_and_flags_the_path(tmp_path):
    src = _chain_trace(tmp_path)
    out = tmp_path / "marked.json"
    res = cli("explain", src, "--mark-trace", out)
    assert res.exit_code == 0, res.stderr
    checker = _valid(out)
    assert checker.errors == 0, checker.violations
    doc = json.loads(out.read_text())
    flagged = [e["name"] for e in doc["traceEvents"] if "critical_path" in e.get("args", {})]
    assert flagged == ["a1", "a2", "join"]
    flows = [e for e in doc["traceEvents"] if e.get("cat") == "critical_path"]
    assert len(flows) == 4 and min(e["id"] for e in flows) == 42   # above the trace's own
    assert len(doc["traceEvents"]) == len(json.loads(src.read_text())["traceEvents"]) + 4
    assert cli("validate", out).exit_code == 0


@pytest.mark.parametrize("name", ["mxnet-1.9.1-cnn-step.json", "mxnet-1.9.1-custom-sigmoid.json",
                                  "pytorch-2.13-cnn-step.json"])
def test_traces_without_dependencies_fall_back_and_say_so_first(name, tmp_path, traces_dir):
    res = cli("explain", traces_dir / name)
    assert res.exit_code == 0, res.stderr
    first = res.stdout.splitlines()[0]
    assert "no dependency data" in first and "serial" in first
    res = cli("explain", traces_dir / name, "--format", "json", "--mark-trace", tmp_path / "m.json")
    assert res.exit_code == 0
    assert "no dependency data" in res.stderr.splitlines()[0]
    doc = json.loads(res.stdout)
    assert set(doc) == KEYS
    assert 0 < doc["critical_path_ms"] <= doc["wall_ms"] + 1e-9
    assert (tmp_path / "m.json").exists()


def test_errors_are_one_line_with_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    empty = write_trace(tmp_path / "empty.json", meta())
    for args in (["explain", tmp_path / "missing.json"], ["explain", bad], ["explain", empty],
                 ["explain", _chain_trace(tmp_path), "--format", "xml"],
                 ["explain", _chain_trace(tmp_path), "--mark-trace", tmp_path / "no" / "x.json"]):
        res = cli_subprocess(*args)
        assert res.returncode == 2, (args, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("xprof: error:"), res.stderr
        assert "Traceback" not in res.stderr


def test_default_trace_is_profile_json(tmp_path, monkeypatch):
    _chain_trace(tmp_path).rename(tmp_path / "profile.json")
    monkeypatch.chdir(tmp_path)
    assert cli("explain").exit_code == 0
