"""``xprof stats``: traces of three tools, oneDNN logs, options, formats."""
from __future__ import annotations

import collections
import csv
import io
import json

import pytest

from cli_helpers import X, cli, cli_subprocess, meta, write_trace
from xprof.traces import stats as S
from xprof.traces import callstats



def _trace(tmp_path):
    events = meta() + [
        X("conv", 0, 3000), X("conv", 4000, 1000), X("relu", 6000, 500),
        X("MyAddOne::pure_python", 0, 800, tid=2, cat="Custom Operator"),
        X("MyAddOne::_plus_scalar", 7000, 200, cat="Custom Operator"),
        {"name": "step", "cat": "user", "ph": "b", "id": 1, "ts": 0, "pid": 0},
        {"name": "step", "cat": "user", "ph": "e", "id": 1, "ts": 9000, "pid": 0},
        {"name": "phase", "cat": "user", "ph": "B", "ts": 100, "pid": 0, "tid": 3},
        {"ph": "E", "ts": 400, "pid": 0, "tid": 3},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 1, "pid": 0,
         "args": {"Memory: cpu/0": 2000}},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 2, "pid": 0,
         "args": {"Memory: cpu/0": 6000}},
        {"name": "queue", "cat": "user", "ph": "C", "ts": 3, "pid": 0, "args": {"depth": 4, "bytes": 10}},
    ]
    return write_trace(tmp_path / "profile.json", events)


def test_json_is_exactly_the_shared_schema(tmp_path):
    res = cli("stats", _trace(tmp_path), "--format", "json")
    assert res.exit_code == 0, res.stderr
    obj = json.loads(res.stdout)
    expected = S.aggregate(
        [("operator", "conv", 3000), ("operator", "conv", 1000), ("operator", "relu", 500),
         ("Custom Operator", "MyAddOne::pure_python", 800),
         ("Custom Operator", "MyAddOne::_plus_scalar", 200),
         ("user", "phase", 300), ("user", "step", 9000)],
        [("Device Storage", "Memory: cpu/0", 2000, True), ("Device Storage", "Memory: cpu/0", 6000, True),
         ("user", "queue.depth", 4, False), ("user", "queue.bytes", 10, False)])
    expected.add_span_ns(0, 9_000_000)   # the wall time: first start to last end
    # the Custom Operator rows give a (derived) call breakdown
    expected.calls = callstats.CallStats()
    assert obj == S.to_json_obj(expected)
    assert obj["Custom Operator Calls"]["MyAddOne"]["Python"] == 0.8
    assert list(obj) == ["Time", "Memory", "Counter", "Custom Operator Calls", "Unit"]
    assert obj["Time"]["operator"]["conv"] == {"Count": 2, "Total": 4.0, "Self": 4.0, "%": 44.44,
                                               "Min": 1.0, "Max": 3.0, "Avg": 2.0}
    assert obj["Memory"]["Device Storage"]["Memory: cpu/0"] == {"Count": 2, "Min": 2.0, "Max": 6.0, "Avg": 4.0}
    for section in ("Time", "Memory", "Counter"):
        for rows in obj[section].values():
            for row in rows.values():
                assert row["Min"] <= row["Avg"] <= row["Max"]


@pytest.mark.parametrize("sort_by", ["total", "self", "avg", "min", "max", "count"])
@pytest.mark.parametrize("ascending", [False, True])
def test_sort_options(tmp_path, sort_by, ascending):
    args = ["stats", _trace(tmp_path), "--format", "json", "--sort-by", sort_by]
    if ascending:
        args.append("--ascending")
    obj = json.loads(cli(*args).stdout)
    rows = obj["Time"]["operator"]
    key = {"total": "Total", "self": "Self", "avg": "Avg", "min": "Min", "max": "Max", "count": "Count"}[sort_by]
    values = [r[key] for r in rows.values()]
    assert values == sorted(values, reverse=not ascending)


def test_plain_table_when_piped(tmp_path):
    res = cli("stats", _trace(tmp_path))
    assert res.exit_code == 0
    text = res.stdout
    assert "\x1b[" not in text and "━" not in text and "│" not in text
    assert "Name                    Count  Total (ms)" in text
    assert "MyAddOne::pure_python" in text and "MyAddOne::_plus_scalar" in text
    assert "Memory: cpu/0" in text and "Min (kB)" in text


def test_rich_table_on_a_terminal(tmp_path, monkeypatch):
    from rich.console import Console

    from xprof.mxcli import render

    out = io.StringIO()
    obj = S.to_json_obj(S.aggregate([("operator", "a_long_operator_name", 1500.0)],
                                    [("Device Storage", "Memory: cpu/0", 5000, True)]))
    render.stats_rich(obj, Console(file=out, width=120, force_terminal=False))
    text = out.getvalue()
    assert "a_long_operator_name" in text and "Total (ms)" in text and "Max (kB)" in text
    assert "1.5000" in text and "5.000" in text


def test_domain_and_top(tmp_path):
    path = _trace(tmp_path)
    obj = json.loads(cli("stats", path, "--format", "json", "--domain", "operator", "--top", "1").stdout)
    assert obj["Time"] == {"operator": {"conv": obj["Time"]["operator"]["conv"]}}
    assert obj["Memory"] == {} and obj["Counter"] == {}
    obj = json.loads(cli("stats", path, "--format", "json", "--domain", "operator",
                         "--domain", "Device Storage").stdout)
    assert list(obj["Time"]) == ["operator"] and list(obj["Memory"]) == ["Device Storage"]
    text = cli("stats", path, "--domain", "operator", "--top", "1").stdout
    assert "conv" in text and "relu" not in text and "Custom" not in text


def test_csv(tmp_path):
    res = cli("stats", _trace(tmp_path), "--format", "csv")
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["section", "domain", "name", "count", "total", "self", "percent", "min", "max",
                       "avg", "unit"]
    by_name = {r[2]: r for r in rows[1:]}
    assert by_name["conv"] == ["Time", "operator", "conv", "2", "4.0", "4.0", "44.44", "1.0", "3.0",
                               "2.0", "ms"]
    assert by_name["Memory: cpu/0"] == ["Memory", "Device Storage", "Memory: cpu/0", "2", "", "", "",
                                        "2.0", "6.0", "4.0", "kB"]
    assert by_name["queue.depth"][0] == "Counter" and by_name["queue.depth"][-1] == ""
    calls = [r for r in rows if r[0] == "Custom Operator Calls"]
    assert [r[2] for r in calls] == ["Latency", "Queued", "Inputs", "Backlog", "Producer", "Pool",
                                     "Python", "Blocked", "Tail", "Own", "Ahead",
                                     "Sub-operators", "Setup"]
    assert len(rows) == 1 + 2 + 2 + 2 + 1 + 2 + 13


@pytest.mark.parametrize("args,fragment", [
    (["--sort-by", "median"], "Invalid value for '--sort-by': 'median' is not one of 'total', 'self', 'avg', 'min', "
                              "'max', 'count'."),
    (["--format", "xml"], "'xml' is not one of 'text', 'json', 'csv', 'markdown'"),
    (["--top", "0"], "Invalid value for '--top': 0 is not in the range x>=1."),
    (["--top", "many"], "'many' is not a valid integer"),
    (["--domain", "nope"], "unknown domain 'nope'; available: 'Custom Operator', 'Device Storage', "
                           "'operator', 'user'"),
    (["--bogus"], "No such option '--bogus'"),
])
def test_bad_options(tmp_path, args, fragment):
    res = cli("stats", _trace(tmp_path), *args)
    assert res.exit_code == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xprof: error: ") and fragment in lines[0]


def test_default_profile_and_bad_inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli("stats")
    assert res.exit_code == 2 and res.stderr.strip() == "xprof: error: profile.json: no such file"
    _trace(tmp_path)
    assert cli("stats").exit_code == 0
    (tmp_path / "junk.txt").write_text("hello\nworld\n")
    res = cli("stats", "junk.txt")
    assert res.exit_code == 2 and "neither a Chrome trace" in res.stderr
    (tmp_path / "cut.json").write_text('{"traceEvents": [{"ph": "X"')
    res = cli("stats", "cut.json")
    assert res.exit_code == 2 and "corrupt JSON" in res.stderr


def test_truncated_array_still_aggregates(tmp_path):
    text = json.dumps(meta() + [X("a", 0, 1000), X("a", 2000, 1000), X("b", 4000, 1000)])
    path = tmp_path / "t.json"
    path.write_text(text[:-25])
    res = cli("stats", path, "--format", "json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["Time"]["operator"]["a"]["Count"] == 2
    assert "truncated" in res.stderr


def _mxnet_pairs(events, cat):
    """Independent B/E pairing: per (pid, tid), each E closes the last open B."""
    stacks, out = collections.defaultdict(list), collections.defaultdict(list)
    for e in events:
        if e.get("cat") == cat and e["ph"] in "BE":
            key = (e["pid"], e["tid"])
            if e["ph"] == "B":
                stacks[key].append(e)
            else:
                b = stacks[key].pop()
                out[b["name"]].append(e["ts"] - b["ts"])
    return out


def test_mxnet_cnn_fixture(traces_dir):
    path = traces_dir / "mxnet-1.9.1-cnn-step.json"
    events = json.loads(path.read_text())["traceEvents"]
    obj = json.loads(cli("stats", path, "--format", "json").stdout)
    ops = obj["Time"]["operator"]
    b_counts = collections.Counter(e["name"] for e in events if e.get("cat") == "operator" and e["ph"] == "B")
    # each operator once (the async b/e mirror MXNet also writes is not double counted)
    assert {n: r["Count"] for n, r in ops.items()} == dict(b_counts)
    assert ops["DeleteVariable"]["Count"] == 32 and ops["Convolution"]["Count"] == 2
    for name, durs in _mxnet_pairs(events, "operator").items():
        assert ops[name]["Total"] == pytest.approx(sum(durs) / 1000, abs=1e-6)
        assert ops[name]["Max"] == pytest.approx(max(durs) / 1000, abs=1e-6)
    mem = obj["Memory"]["Device Storage"]["Memory: cpu/0"]
    samples = [e["args"]["Memory: cpu/0"] for e in events if e.get("cat") == "Device Storage"]
    assert mem["Count"] == len(samples) == 63
    assert mem["Max"] == pytest.approx(max(samples) / 1000)
    api = obj["Time"]["MXNET_C_API"]
    assert sum(r["Count"] for r in api.values()) == sum(
        1 for e in events if e.get("cat") == "MXNET_C_API" and e["ph"] == "b")
    assert set(obj["Counter"]["MXNET_C_API"]) == {"MXNet C API Calls", "MXNet C API Concurrency"}


def test_mxnet_custom_op_fixture(traces_dir):
    path = traces_dir / "mxnet-1.9.1-custom-sigmoid.json"
    obj = json.loads(cli("stats", path, "--format", "json", "--domain", "Custom Operator").stdout)
    rows = obj["Time"]["Custom Operator"]
    assert set(rows) == {"MySigmoid::pure_python", "_backward_MySigmoid::pure_python", "MySigmoid::",
                         "MySigmoid::WaitForVar", "MySigmoid::CopyCPU2CPU", "MySigmoid::_zeros",
                         "_backward_MySigmoid::", "_backward_MySigmoid::WaitForVar",
                         "_backward_MySigmoid::CopyCPU2CPU"}
    assert all(r["Count"] == 1 for r in rows.values())
    assert rows["MySigmoid::pure_python"]["Total"] == pytest.approx(1.227)
    assert list(rows)[0] == "MySigmoid::pure_python"  # largest total first
    text = cli("stats", path, "--domain", "Custom Operator").stdout
    assert "MySigmoid::pure_python" in text and "MySigmoid::_zeros" in text


def test_pytorch_fixture(traces_dir):
    path = traces_dir / "pytorch-2.13-cnn-step.json"
    events = json.loads(path.read_text())["traceEvents"]
    obj = json.loads(cli("stats", path, "--format", "json").stdout)
    assert set(obj["Time"]) == {"cpu_op", "user_annotation", "Trace"}
    by_name = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "cpu_op":
            by_name[e["name"]].append(e["dur"])
    rows = obj["Time"]["cpu_op"]
    assert {n: r["Count"] for n, r in rows.items()} == {n: len(d) for n, d in by_name.items()}
    assert rows["aten::resolve_conj"]["Count"] == 7
    for name, durs in by_name.items():
        assert rows[name]["Total"] == pytest.approx(sum(durs) / 1000, abs=2e-6)
    assert obj["Time"]["Trace"]["PyTorch Profiler (0)"]["Count"] == 1


def _onednn_truth(path, v3):
    """Independent parse: plain split on commas, fixed positions per format."""
    rows = collections.defaultdict(list)
    for line in path.read_text().splitlines():
        f = line.split(",")
        if v3 and f[0] == "onednn_verbose" and f[2] == "primitive" and f[3] == "exec":
            rows[f"{f[5]} ({f[6]})"].append(float(f[-1]))
        elif not v3 and f[0] == "dnnl_verbose" and f[1] == "exec":
            rows[f"{f[3]} ({f[4]})"].append(float(f[-1]))
    return rows


@pytest.mark.parametrize("name,v3", [("mxnet-1.9.1-onednn-2.4.4-cnn.log", False),
                                     ("pytorch-2.13-onednn-3.12-cnn.log", True)])
def test_onednn_logs(onednn_dir, name, v3):
    path = onednn_dir / name
    truth = _onednn_truth(path, v3)
    obj = json.loads(cli("stats", path, "--format", "json").stdout)
    assert list(obj["Time"]) == ["oneDNN exec"]
    rows = obj["Time"]["oneDNN exec"]
    assert set(rows) == set(truth)
    for key, times in truth.items():
        assert rows[key]["Count"] == len(times)
        assert rows[key]["Total"] == pytest.approx(sum(times), abs=1e-6)
        assert rows[key]["Min"] == pytest.approx(min(times), abs=1e-6)
        assert rows[key]["Max"] == pytest.approx(max(times), abs=1e-6)
    total = sum(len(t) for t in truth.values())
    assert total == (395 if not v3 else 31)


def test_onednn_detected_by_content_and_template_columns(tmp_path):
    # oneDNN 3.x with timestamps, a template placing columns, a create line, noise lines and gzip
    import gzip

    log = "\n".join([
        "some program output",
        "onednn_verbose,v1,info,oneDNN v3.4.0",
        "onednn_verbose,v1,primitive,info,template:timestamp,operation,engine,primitive,implementation,"
        "prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time",
        "onednn_verbose,v1,1700000000000.5,primitive,create:cache_miss,cpu,convolution,brgconv:avx512_core,"
        "forward_training,src:f32,,alg:convolution_direct,mb1,0.5",
        "onednn_verbose,v1,1700000000001.5,primitive,exec,cpu,convolution,brgconv:avx512_core,"
        "forward_training,src:f32,,alg:convolution_direct,mb1,1.25",
        "onednn_verbose,v1,1700000000002.5,primitive,exec,cpu,convolution,brgconv:avx512_core,"
        "forward_training,src:f32,attr-post-ops:eltwise_relu,alg:convolution_direct,mb1,0.75",
        "dnnl_verbose,exec,cpu,reorder,simple:any,undef,src_f32 dst_f32,,,64,0.5",
        "mkldnn_verbose,exec,reorder,jit:uni,undef,in:f32 out:f32,num:1,32x3,0.25",
        "",
    ])
    path = tmp_path / "run.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write(log)
    obj = json.loads(cli("stats", path, "--format", "json").stdout)
    assert obj["Time"]["oneDNN exec"]["convolution (brgconv:avx512_core)"]["Count"] == 2
    assert obj["Time"]["oneDNN exec"]["convolution (brgconv:avx512_core)"]["Total"] == 2.0
    assert obj["Time"]["oneDNN create"]["convolution (brgconv:avx512_core)"]["Total"] == 0.5
    assert obj["Time"]["oneDNN exec"]["reorder (simple:any)"]["Total"] == 0.5
    assert obj["Time"]["oneDNN exec"]["reorder (jit:uni)"]["Total"] == 0.25


def test_stats_subprocess(tmp_path, traces_dir):
    proc = cli_subprocess("stats", traces_dir / "mxnet-1.9.1-cnn-step.json", "--top", "3")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout and "operator\n========" in proc.stdout
    proc = cli_subprocess("stats", tmp_path / "none.json")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_stats_tolerates_garbage(tmp_path):
    events = meta() + [
        7, "x", None, [1, 2],
        {"ph": "X", "name": ["not", "hashable"], "cat": {"x": 1}, "ts": 0, "dur": 1000, "pid": [0], "tid": {}},
        {"ph": "X", "name": "nodur", "ts": 0, "pid": 0, "tid": 0},
        {"ph": "X", "name": "negdur", "ts": 0, "dur": -5, "pid": 0, "tid": 0},
        {"ph": "E", "ts": 3, "pid": 0, "tid": 9},
        {"ph": "B", "name": "b", "ts": "soon", "pid": 0, "tid": 9},
        {"ph": "e", "name": "t", "cat": "c", "id": [1], "ts": 3, "pid": 0},
        {"ph": "C", "name": "ctr", "ts": 1, "pid": 0, "args": {"a": "3", "b": True, "c": 2}},
        {"ph": "C", "name": "ctr", "ts": 1, "pid": 0, "args": [1]},
        X("ok", 0, 2000),
    ]
    path = write_trace(tmp_path / "g.json", events)
    res = cli("stats", path, "--format", "json")
    assert res.exit_code == 0, res.stderr
    obj = json.loads(res.stdout)
    assert obj["Time"]["uncategorized"]["(unnamed)"]["Count"] == 1
    assert obj["Time"]["operator"]["ok"]["Total"] == 2.0
    assert obj["Counter"]["uncategorized"] == {"ctr.c": {"Count": 1, "Min": 2, "Max": 2, "Avg": 2.0}}


@pytest.mark.parametrize("name, content", [
    ("cut.json.gz", json.dumps({"traceEvents": [X("a", 0, 1)] * 2000}).encode()),
    ("cut.log.gz", b"dnnl_verbose,exec,cpu,convolution,jit:avx2,forward,src,,,mb1,0.5\n" * 2000),
])
def test_stats_cut_gzip_is_one_line_exit_2(tmp_path, name, content):
    import gzip

    path = tmp_path / name
    path.write_bytes(gzip.compress(content)[:300])   # the stream ends mid-way
    res = cli("stats", path)
    assert res.exit_code == 2
    assert res.stderr.startswith(f"xprof: error: {path}: read error")
    assert len(res.stderr.strip().splitlines()) == 1
