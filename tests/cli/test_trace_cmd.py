"""``xprof trace``: normalized output, Custom Operator tracks, flows, filters, safety."""
from __future__ import annotations

import gzip
import json
import os

import pytest

from cli_helpers import X, cli, cli_subprocess, meta, write_trace
from cli_helpers import check_events

CO = "Custom Operator"


def _load(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def _names(doc):
    """(pid, tid) -> thread name and pid -> process name of a written trace."""
    threads, procs = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
    return threads, procs


def _custom_op_trace(tmp_path, big_ids=False):
    """A custom op: Python slice on a worker thread, sub-operators on an engine thread with
    flow arrows from the Python slice, plus ordinary operators; big pid/tid like MXNet."""
    pid = 3060606181218273969 if big_ids else 7
    w, e = (2 ** 63 + 5, 2 ** 62 + 9) if big_ids else (11, 12)
    fid = 2 ** 60 if big_ids else 1
    events = [
        {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "python"}},
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": e, "args": {"name": "engine worker 0"}},
        X("MyAddOne::pure_python", 100, 50, tid=w, pid=pid, cat=CO),
        {"name": "MyAddOne", "cat": CO, "ph": "s", "id": fid, "ts": 120, "pid": pid, "tid": w},
        X("_plus_scalar", 90, 5, tid=e, pid=pid),
        X("MyAddOne::_plus_scalar", 200, 10, tid=e, pid=pid, cat=CO),
        X("_plus_scalar", 201, 4, tid=e, pid=pid),  # the real op inside the custom sub-op slice
        {"name": "MyAddOne", "cat": CO, "ph": "f", "bp": "e", "id": fid, "ts": 200, "pid": pid, "tid": e},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 95, "pid": pid, "tid": e,
         "args": {"Memory: cpu/0": 64}},
        {"name": "task", "cat": "user", "ph": "b", "id": fid + 1, "ts": 80, "pid": pid, "tid": w},
        {"name": "task", "cat": "user", "ph": "e", "id": fid + 1, "ts": 300, "pid": pid, "tid": w},
    ]
    return write_trace(tmp_path / "in.json", events, displayTimeUnit="ms", otherData={"command": "x"})


def test_custom_operator_tracks_and_flows(tmp_path):
    out = tmp_path / "out.json"
    res = cli("trace", _custom_op_trace(tmp_path, big_ids=True), "-o", out)
    assert res.exit_code == 0, res.stdout + res.stderr
    doc = _load(out)
    assert check_events(doc["traceEvents"]).errors == 0
    assert cli("validate", out).exit_code == 0
    threads, procs = _names(doc)
    assert procs == {0: "python"}
    assert sorted(threads.values()) == sorted([
        "engine worker 0", "engine worker 0 · Custom Operator",
        f"thread {2 ** 63 + 5} · Custom Operator", f"thread {2 ** 63 + 5}"])
    timed = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    assert [e["ts"] for e in timed] == sorted(e["ts"] for e in timed)
    for ev in doc["traceEvents"]:
        assert ev["pid"] < 10 and ev.get("tid", 0) < 10 and ev.get("id", 0) < 10
    lane = {e["name"]: threads[(e["pid"], e["tid"])] for e in timed if e["ph"] == "X"}
    assert lane["MyAddOne::pure_python"].endswith("· Custom Operator")
    assert lane["MyAddOne::_plus_scalar"] == "engine worker 0 · Custom Operator"
    assert lane["_plus_scalar"] == "engine worker 0"
    s = next(e for e in timed if e["ph"] == "s")
    f = next(e for e in timed if e["ph"] == "f")
    # each flow step sits on the track of the slice it binds to
    assert threads[(s["pid"], s["tid"])] == lane["MyAddOne::pure_python"]
    assert threads[(f["pid"], f["tid"])] == "engine worker 0 · Custom Operator"
    assert s["id"] == f["id"]
    counter = next(e for e in timed if e["ph"] == "C")
    assert "tid" not in counter
    assert doc["displayTimeUnit"] == "ms" and doc["otherData"]["command"] == "x"


def test_gzip_in_and_out(tmp_path):
    src = _custom_op_trace(tmp_path)
    gz_in = tmp_path / "in.json.gz"
    gz_in.write_bytes(gzip.compress(src.read_bytes()))
    out = tmp_path / "out.json.gz"
    res = cli("trace", gz_in, "-o", out)
    assert res.exit_code == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert len([e for e in _load(out)["traceEvents"] if e["ph"] == "X"]) == 4
    assert cli("validate", out).exit_code == 0


def test_filters(tmp_path):
    src = _custom_op_trace(tmp_path)
    out = tmp_path / "o.json"

    def xs(*args):
        assert cli("trace", src, "-o", out, *args).exit_code == 0
        return sorted((e["name"], e["ts"]) for e in _load(out)["traceEvents"] if e["ph"] == "X")

    assert xs("--domain", "operator") == [("_plus_scalar", 90), ("_plus_scalar", 201)]
    assert xs("--name", "MyAddOne::*") == [("MyAddOne::_plus_scalar", 200), ("MyAddOne::pure_python", 100)]
    # first event at ts 80: window [80+0.015 ms, 80+0.1 ms] = [95, 180] us overlaps the pure_python slice
    assert xs("--since", "0.015", "--until", "0.1") == [("MyAddOne::pure_python", 100), ("_plus_scalar", 90)]
    doc = _load(out)
    assert not [e for e in doc["traceEvents"] if e["ph"] in "sf"]  # its flow's other end was cut
    names = [e["name"] for e in doc["traceEvents"] if e["ph"] in "be"]
    assert names == ["task", "task"]  # the async pair overlaps the window: kept whole
    # flows survive when both ends survive
    assert cli("trace", src, "-o", out, "--domain", CO).exit_code == 0
    assert len([e for e in _load(out)["traceEvents"] if e["ph"] in "sf"]) == 2


def _nested_flow_trace(tmp_path):
    """As the runtime writes a custom op: each flow starts inside an API slice nested in the
    pure_python slice; flow 1 ends in a Custom Operator sub-op, flow 2 in a plain operator."""
    events = meta(tid=1) + [
        X("MyAddOne::pure_python", 100, 50, tid=1, cat=CO),
        X("_plus_scalar", 110, 20, tid=1, cat="API"),
        {"name": "MyAddOne", "cat": CO, "ph": "s", "id": 1, "ts": 120, "pid": 0, "tid": 1},
        {"name": "MyAddOne", "cat": CO, "ph": "s", "id": 2, "ts": 125, "pid": 0, "tid": 1},
        X("MyAddOne::_plus_scalar", 200, 10, tid=2, cat=CO),
        {"name": "MyAddOne", "cat": CO, "ph": "f", "bp": "e", "id": 1, "ts": 200, "pid": 0, "tid": 2},
        X("copy", 300, 10, tid=2, cat="operator"),
        {"name": "MyAddOne", "cat": CO, "ph": "f", "bp": "e", "id": 2, "ts": 300, "pid": 0, "tid": 2},
    ]
    return write_trace(tmp_path / "nested.json", events)


def test_filters_bind_flows_to_the_innermost_kept_slice(tmp_path):
    src, out = _nested_flow_trace(tmp_path), tmp_path / "o.json"
    res = cli("trace", src, "-o", out, "--domain", CO)
    assert res.exit_code == 0, res.stderr
    doc = _load(out)
    flows = [e for e in doc["traceEvents"] if e["ph"] in "sf"]
    assert sorted((e["ph"], e["id"]) for e in flows) == [("f", 1), ("s", 1)]
    (py,) = [e for e in doc["traceEvents"] if e.get("name") == "MyAddOne::pure_python"]
    (start,) = [e for e in flows if e["ph"] == "s"]
    assert (start["pid"], start["tid"]) == (py["pid"], py["tid"])  # moved with its slice
    assert "dropped 1 flow arrow with a start or end that binds to no slice: no kept slice" in res.stderr
    assert check_events(doc["traceEvents"]).errors == 0
    res = cli("trace", src, "-o", out, "--name", "MyAddOne::*")
    assert res.exit_code == 0 and len([e for e in _load(out)["traceEvents"] if e["ph"] in "sf"]) == 2
    res = cli("trace", src, "-o", out)  # nothing filtered: both arrows, no note
    assert len([e for e in _load(out)["traceEvents"] if e["ph"] in "sf"]) == 4
    assert "flow arrow" not in res.stderr


def test_unknown_domain_is_refused_and_lists_the_domains(tmp_path):
    src = _custom_op_trace(tmp_path)
    out = tmp_path / "o.json"
    res = cli("trace", src, "-o", out, "--domain", "operator", "--domain", "nosuch")
    assert res.exit_code == 2 and not out.exists()
    (line,) = res.stderr.strip().splitlines()
    assert "'nosuch'" in line and "'operator'" in line and "Traceback" not in res.stderr


def test_b_e_pairs_become_complete_events(tmp_path):
    src = write_trace(tmp_path / "be.json", meta() + [
        {"name": "outer", "cat": "c", "ph": "B", "ts": 10, "pid": 0, "tid": 1, "args": {"a": 1}},
        {"name": "inner", "cat": "c", "ph": "B", "ts": 11, "pid": 0, "tid": 1},
        {"ph": "E", "ts": 12, "pid": 0, "tid": 1},
        {"ph": "E", "ts": 20, "pid": 0, "tid": 1, "args": {"b": 2}},
    ])
    out = tmp_path / "o.json"
    assert cli("trace", src, "-o", out).exit_code == 0
    xs = [e for e in _load(out)["traceEvents"] if e["ph"] != "M"]
    assert [(e["ph"], e["name"], e["ts"], e["dur"]) for e in xs] == [("X", "outer", 10, 10), ("X", "inner", 11, 1)]
    assert xs[0]["args"] == {"a": 1, "b": 2}


def test_refuses_invalid_output_and_force(tmp_path):
    src = write_trace(tmp_path / "bad.json", meta() + [X("p", 0, 10), X("c", 5, 10)])
    out = tmp_path / "o.json"
    res = cli("trace", src, "-o", out)
    assert res.exit_code == 1
    assert "slices must nest" in res.stdout and "nothing written" in res.stderr
    assert not out.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".xprof")]
    res = cli("trace", src, "-o", out, "--force")
    assert res.exit_code == 0 and out.exists()
    assert cli("validate", out).exit_code == 1


def test_atomic_replace_keeps_old_file_on_refusal(tmp_path):
    out = tmp_path / "o.json"
    out.write_text("old")
    src = write_trace(tmp_path / "bad.json", meta() + [X("p", 0, 10), X("c", 5, 10)])
    assert cli("trace", src, "-o", out).exit_code == 1
    assert out.read_text() == "old"
    good = write_trace(tmp_path / "good.json", meta() + [X("p", 0, 10)])
    assert cli("trace", good, "-o", out).exit_code == 0
    assert _load(out)["traceEvents"][-1]["name"] == "p"
    assert sorted(os.listdir(tmp_path)) == ["bad.json", "good.json", "o.json"]


@pytest.mark.parametrize("args,fragment", [
    (["--since", "5", "--until", "1"], "--since 5 is after --until 1"),
    (["--since", "-1"], "Invalid value for '--since': -1.0 is not in the range x>=0."),
    (["--until", "abc"], "'abc' is not a valid float"),
    ([], "Missing option '-o' / '--output'."),
])
def test_bad_options(tmp_path, args, fragment):
    src = write_trace(tmp_path / "g.json", meta() + [X("p", 0, 10)])
    extra = [] if not args else ["-o", tmp_path / "o.json"]
    res = cli("trace", src, *extra, *args)
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xprof: error: ") and fragment in lines[0]


def test_bad_output_and_input(tmp_path):
    src = write_trace(tmp_path / "g.json", meta() + [X("p", 0, 10)])
    res = cli("trace", src, "-o", tmp_path / "no" / "dir" / "o.json")
    assert res.exit_code == 2 and "does not exist" in res.stderr
    res = cli("trace", src, "-o", tmp_path)
    assert res.exit_code == 2 and "is a directory" in res.stderr
    res = cli("trace", tmp_path / "missing.json", "-o", tmp_path / "o.json")
    assert res.exit_code == 2 and "no such file" in res.stderr


@pytest.mark.parametrize("name", ["mxnet-1.9.1-cnn-step.json", "mxnet-1.9.1-custom-sigmoid.json",
                                  "pytorch-2.13-cnn-step.json"])
def test_fixtures_normalize_to_valid_traces(traces_dir, tmp_path, name):
    src = traces_dir / name
    events = json.loads(src.read_text())["traceEvents"]
    out = tmp_path / (name + ".gz")
    res = cli("trace", src, "-o", out)
    assert res.exit_code == 0, res.stdout + res.stderr
    assert cli("validate", out).exit_code == 0
    doc = _load(out)
    timed = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    src_timed = [e for e in events if e["ph"] != "M"]
    # nothing lost: B/E pairs became one X each
    n_be = sum(1 for e in src_timed if e["ph"] == "B")
    assert len(timed) == len(src_timed) - n_be
    assert [e["ts"] for e in timed] == sorted(e["ts"] for e in timed)
    threads, procs = _names(doc)
    assert all(procs.values()) and all(threads.values())
    used = {(e["pid"], e["tid"]) for e in timed if "tid" in e}
    assert used <= set(threads)
    if "custom-sigmoid" in name:
        co = [e for e in timed if e["ph"] == "X" and e.get("cat") == CO]
        assert len(co) == 7
        assert all(threads[(e["pid"], e["tid"])].endswith("· Custom Operator") for e in co)
    if "pytorch" in name:
        assert sum(1 for e in timed if e["ph"] == "s") == 8 == sum(1 for e in timed if e["ph"] == "f")
        assert procs[next(e["pid"] for e in timed if e["name"] == "PyTorch Profiler (0)")] == "Spans"


def test_trace_subprocess(tmp_path):
    src = _custom_op_trace(tmp_path)
    out = tmp_path / "out.json"
    proc = cli_subprocess("trace", src, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "wrote" in proc.stderr
    assert cli_subprocess("validate", out).returncode == 0


def test_output_gets_ordinary_file_permissions(tmp_path):
    """The temp file behind the atomic write is 0600; the result must not stay private."""
    out = tmp_path / "perm.json"
    good = write_trace(tmp_path / "good.json", meta() + [X("p", 0, 10)])
    mask = os.umask(0o022)
    try:
        assert cli("trace", good, "-o", out).exit_code == 0
    finally:
        os.umask(mask)
    assert os.stat(out).st_mode & 0o777 == 0o644


def test_event_bodies_come_back_whole(tmp_path):
    """The normalizer keeps a batch's bodies as one JSON array and finds where each ends
    by the newlines between them: strings holding newlines, `},{` and `,\\n,` must not cut
    a body."""
    tricky = ["line\nbreak", '"},{"ph":"X"', ",\n,", "\\n", "·\u2028", ""]
    events = meta() + [X(name, 10 * k, 5, args={"text": name, "k": k}) for k, name in enumerate(tricky)]
    src = write_trace(tmp_path / "in.json", events)
    out = tmp_path / "out.json"
    res = cli("trace", src, "-o", out)
    assert res.exit_code == 0, res.stdout + res.stderr
    timed = [e for e in _load(out)["traceEvents"] if e["ph"] != "M"]
    assert [(e["name"], e["args"], e["dur"]) for e in timed] == [
        (name, {"text": name, "k": k}, 5) for k, name in enumerate(tricky)]


def test_a_batch_orjson_cannot_write_keeps_every_field(tmp_path):
    """An integer beyond 64 bits: the batch's bodies are written by the standard library."""
    events = meta() + [X("small", 0, 5, args={"n": 1}), X("huge", 10, 1, args={"big": 2 ** 70})]
    src = write_trace(tmp_path / "in.json", events)
    out = tmp_path / "out.json"
    res = cli("trace", src, "-o", out, "--force")
    assert res.exit_code == 0, res.stdout + res.stderr
    timed = [e for e in _load(out)["traceEvents"] if e["ph"] != "M"]
    assert [(e["name"], e["args"]) for e in timed] == [("small", {"n": 1}), ("huge", {"big": 2 ** 70})]
