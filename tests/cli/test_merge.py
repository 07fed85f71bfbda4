"""``xprof trace A B ... -o merged.json`` (cli/streaming/merge.py) and ``xprof stats
--by-process`` (analysis/by_process.py): launched ranks, other tools' traces,
clock alignment, ids kept apart. Every merged trace must pass ``xprof validate``."""
from __future__ import annotations

import json
import textwrap

import pytest
from cli_helpers import X, cli, cli_subprocess, meta, write_trace

SCRIPT = textwrap.dedent("""
    import os
    import xprof.runtime as mx
    rank = int(os.environ["RANK"])
    x = mx.nd.ones((8, 8))
    for _ in range(rank + 3):          # rank R runs R + 3 additions
        x = x + 1
    assert x.asnumpy()[0, 0] == rank + 4
    """)


def _valid(path):
    res = cli("validate", path)
    assert res.exit_code == 0, res.stdout
    assert " 0 errors" in res.stdout
    return json.loads(path.read_text())


def _process_names(doc):
    return {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "process_name"}


@pytest.mark.parametrize("nproc", [2, 4])
def test_launched_ranks_write_apart_and_merge(tmp_path, nproc):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    res = cli_subprocess("run", "--nproc", nproc, "-q", "-o", tmp_path / "profile.json",
                         script, timeout=240)
    assert res.returncode == 0, res.stderr
    files = [tmp_path / f"profile.rank{r}.json" for r in range(nproc)]
    assert sorted(p.name for p in tmp_path.glob("*.json")) == sorted(p.name for p in files)
    for r, path in enumerate(files):
        doc = _valid(path)
        assert doc["otherData"]["rank"] == r and doc["otherData"]["world_size"] == nproc
        assert list(_process_names(doc).values())[0].startswith(f"rank {r}: xprof: job.py")
    merged = tmp_path / "merged.json"
    res = cli("trace", *files, "-o", merged)
    assert res.exit_code == 0, res.stderr
    doc = _valid(merged)
    names = sorted(_process_names(doc).values())
    assert [n.split(":")[0] for n in names] == [f"rank {r}" for r in range(nproc)]
    assert len(set(_process_names(doc))) == nproc                 # distinct pids
    res = cli("stats", merged, "--by-process", "--format", "json")
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    by_process = out["Time by process"]
    for r in range(nproc):
        (key,) = [k for k in by_process if k.startswith(f"rank {r}:") and
                  k.endswith(" / operator")]
        assert by_process[key]["_plus_scalar"]["Count"] == r + 3
    spread = out["Rank spread"]["operator"]["_plus_scalar"]
    assert spread["Ranks"] == nproc and spread["Slowest"].startswith("rank ")
    assert spread["Min"] <= spread["Median"] <= spread["Max"]
    total = out["Time"]["operator"]["_plus_scalar"]
    assert total["Count"] == sum(r + 3 for r in range(nproc))


def _count(doc, ph):
    return sum(1 for e in doc["traceEvents"] if e.get("ph") == ph)


def test_merge_with_mxnet_and_pytorch_fixtures(tmp_path, traces_dir, prof_trace):
    mxnet = traces_dir / "mxnet-1.9.1-cnn-step.json"
    torch = traces_dir / "pytorch-2.13-cnn-step.json"
    merged = tmp_path / "merged.json"
    res = cli("trace", prof_trace, mxnet, torch, "-o", merged)
    assert res.exit_code == 0, res.stderr
    doc = _valid(merged)
    names = list(_process_names(doc).values())
    assert any(n.startswith("mxnet-1.9.1-cnn-step.json: cpu/0") for n in names)
    assert any(n.startswith("pytorch-2.13-cnn-step.json: python") for n in names)
    assert any(n.startswith("ours.json: xprof: ") for n in names)
    inputs = [json.loads(p.read_text()) for p in (prof_trace, mxnet, torch)]
    # every slice survives (B/E pairs become X), and every flow arrow
    assert _count(doc, "X") == sum(_count(d, "X") + _count(d, "B") for d in inputs)
    assert _count(doc, "s") == _count(doc, "f") == sum(_count(d, "s") for d in inputs) == 8
    # per-process numbers are those of each file alone (MXNet's mirror rows not doubled)
    per = json.loads(cli("stats", merged, "--by-process", "--format", "json").stdout)
    alone = json.loads(cli("stats", mxnet, "--format", "json").stdout)["Time"]["operator"]
    key = next(k for k in per["Time by process"] if k.startswith("mxnet-1.9.1-cnn-step.json:")
               and k.endswith(" / operator"))
    # ('%' is of the wall time of the table's own profile: the merged one differs)
    def no_share(rows):
        return {name: {k: v for k, v in row.items() if k != "%"} for name, row in rows.items()}
    assert no_share(per["Time by process"][key]) == no_share(alone)
    assert "Rank spread" not in per
    whole = json.loads(cli("stats", merged, "--format", "json").stdout)["Time"]["operator"]
    # (the merged wall time includes our own run's, whose length varies run to run)
    assert no_share({"c": whole["Convolution"]}) == no_share({"c": alone["Convolution"]})


@pytest.fixture
def prof_trace(tmp_path):
    """A real xprof trace of a few ops."""
    script = tmp_path / "ops.py"
    script.write_text("import xprof.runtime as mx\nx = mx.nd.ones((4, 4))\n"
                      "print((mx.nd.dot(x, x) + 1).asnumpy().sum())\n")
    path = tmp_path / "ours.json"
    res = cli_subprocess("run", "-q", "-o", path, script, timeout=120)
    assert res.returncode == 0, res.stderr
    return path


def _flow_pair(pid, ident, ts):
    return [X("a", ts, 4.0, pid=pid), X("b", ts + 10, 4.0, pid=pid, tid=2),
            {"ph": "s", "id": ident, "name": "arrow", "cat": "flow", "pid": pid, "tid": 1,
             "ts": ts + 1, "bp": "e"},
            {"ph": "f", "id": ident, "name": "arrow", "cat": "flow", "pid": pid, "tid": 2,
             "ts": ts + 11, "bp": "e"}]


def _two_files(tmp_path, first_top=None, second_top=None, marker=True):
    a = write_trace(tmp_path / "a.json", [*meta(0, 1, "A"), *_flow_pair(0, 1, 100.0),
                                          *([{"ph": "i", "name": "step", "s": "g",
                                              "pid": 0, "tid": 1, "ts": 150.0}]
                                            if marker else [])], **(first_top or {}))
    b = write_trace(tmp_path / "b.json", [*meta(0, 1, "B"), *_flow_pair(0, 1, 5000.0),
                                          {"ph": "i", "name": "step", "s": "g", "pid": 0,
                                           "tid": 1, "ts": 5020.0}], **(second_top or {}))
    return a, b


def _first_ts(doc, process):
    pid = next(p for p, n in _process_names(doc).items() if n == process)
    return min(e["ts"] for e in doc["traceEvents"] if e["pid"] == pid and e["ph"] == "X")


def test_ids_kept_apart_and_align_start(tmp_path):
    a, b = _two_files(tmp_path)
    res = cli("trace", a, b, "-o", tmp_path / "m.json")
    assert res.exit_code == 0, res.stderr
    doc = _valid(tmp_path / "m.json")
    assert sorted(_process_names(doc).values()) == ["a.json: A", "b.json: B"]
    flows = [e for e in doc["traceEvents"] if e["ph"] in "sf"]
    assert len({e["id"] for e in flows}) == 2 and len(flows) == 4   # both arrows kept
    assert _first_ts(doc, "a.json: A") == _first_ts(doc, "b.json: B") == 0


def test_align_marker_and_clock(tmp_path):
    a, b = _two_files(tmp_path, {"otherData": {"start_time": "2026-11-30T10:00:00+00:00"}},
                      {"otherData": {"start_time": "2026-11-30T10:00:00.001+00:00"}})
    cli("trace", a, b, "-o", tmp_path / "m.json", "--align", "marker", "step")
    doc = _valid(tmp_path / "m.json")
    step = {e["pid"]: e["ts"] for e in doc["traceEvents"] if e["name"] == "step"}
    assert len(set(step.values())) == 1 and len(step) == 2
    # A's marker is 50 us after its first event, B's 20: A starts at 0, B at 30
    assert _first_ts(doc, "a.json: A") == 0 and _first_ts(doc, "b.json: B") == 30
    cli("trace", a, b, "-o", tmp_path / "c.json", "--align", "clock")
    doc = _valid(tmp_path / "c.json")
    # B's ts 0 is 1000 us after A's: B's first slice (5000) at 6000 - 100 after A's
    assert _first_ts(doc, "a.json: A") == 0 and _first_ts(doc, "b.json: B") == 5900


@pytest.mark.parametrize("args,message", [
    (["--align", "marker", "step"], "no instant event named 'step' in"),
    (["--align", "clock"], "records no wall-clock time"),
    (["--align", "sideways"], "--align 'sideways' is not known"),
    (["--align", "marker"], "needs the marker's name"),
])
def test_bad_alignment_is_exit_2(tmp_path, args, message):
    a, b = _two_files(tmp_path, marker=False)
    res = cli("trace", a, b, "-o", tmp_path / "m.json", *args)
    assert res.exit_code == 2 and message in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "m.json").exists()
