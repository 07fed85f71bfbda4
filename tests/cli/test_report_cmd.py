"""``xprof report`` end to end: real traces in, one self-contained HTML file out; MXNet
and PyTorch traces get the sections their data supports; bad input is one line, exit 2,
and leaves no file behind."""
from __future__ import annotations

import json
import re

import pytest

from cli_helpers import cli, cli_subprocess

from xprof.mxcli.render.html.render import operator_rows
from xprof.mxcli.report import default_output

from test_run_view_report import run_sample


def test_report_of_a_sample_script_shows_its_top_operator(tmp_path):
    trace, _ = run_sample("custom_add_one.py", tmp_path)
    out = tmp_path / "r.html"
    res = cli("report", trace, "-o", out)
    assert res.exit_code == 0, res.stderr
    assert f"report written to {out}" in res.stderr
    page = out.read_text()
    stats = json.loads(cli("stats", trace, "--format", "json").stdout)
    rows, waits, _ = operator_rows(stats)
    (domain, name, _), *_ = rows
    first = re.search(r"<tbody><tr><td class='text'>([^<]*)</td><td class='text'>([^<]*)<",
                      page)
    assert first.groups() == (domain, name)
    assert domain != "API"                      # operators ranked, not the script's calls
    assert {n for _, n, _ in waits} == {"waitall"}   # the sync waits apart
    assert page.index("Waiting at sync points") > page.index(name)
    assert "custom op worker 0" in page and "ThreadedEngine" in page


@pytest.mark.parametrize("fixture, kind", [("mxnet-1.9.1-custom-sigmoid.json", "MXNet"),
                                          ("pytorch-2.13-cnn-step.json", "PyTorch")])
def test_mxnet_and_pytorch_traces(traces_dir, tmp_path, fixture, kind):
    out = tmp_path / "r.html"
    res = cli("report", traces_dir / fixture, "-o", out)
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert f"{kind} trace" in page
    if kind == "MXNet":   # derived from pure_python and <op>::* rows; the rest unknown
        assert "Unknown for some op types (no call spans in the trace" in page
        assert "MySigmoid" in page
    else:
        assert "Unavailable: the statistics hold no custom-operator call breakdown" in page
    assert "<table id=\"operators-table\"" in page     # what the data supports is there
    assert "Engine</dt><dd>unknown" in page
    path = page.split('id="critical-path"', 1)[1].split("</section>")[0]
    assert "Unavailable: the engine&#x27;s dependency records (this trace has none" in path
    assert "Wall time" in path                          # the per-thread-serial path


def test_default_output_is_next_to_the_trace(tmp_path):
    assert default_output("a/b.json") == "a/b.report.html"
    assert default_output("a/b.json.gz") == "a/b.report.html"
    trace, _ = run_sample("custom_add_one.py", tmp_path)
    assert cli("report", trace).exit_code == 0
    assert (tmp_path / "custom_add_one.report.html").is_file()


@pytest.mark.parametrize("content, words", [("hello\n", "neither a Chrome trace"),
                                            ('{"a": 1}', "no traceEvents")])
def test_a_non_trace_is_refused_and_nothing_written(tmp_path, content, words):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    res = cli_subprocess("report", bad, "-o", tmp_path / "r.html")
    assert res.returncode == 2
    assert res.stderr.startswith("xprof: error: ") and words in res.stderr
    assert res.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_a_missing_output_folder(tmp_path):
    trace, _ = run_sample("custom_add_one.py", tmp_path)
    res = cli("report", trace, "-o", tmp_path / "no" / "r.html")
    assert res.exit_code == 2 and "does not exist" in res.stderr


def test_memory_csv_option(tmp_path):
    trace, _ = run_sample("custom_add_one.py", tmp_path)
    csv = tmp_path / "m.csv"
    csv.write_text("Attribute Name,Requested Size,Device,Actual Size,Reuse?\n"
                   "fc:weight,123456,cpu/0,123456,false\n")
    out = tmp_path / "r.html"
    assert cli("report", trace, "-o", out, "--memory-csv", csv).exit_code == 0
    assert "fc:weight" in out.read_text()
    csv.write_text("a,b\n1,2\n")
    res = cli("report", trace, "-o", out, "--memory-csv", csv)
    assert res.exit_code == 2 and "not a memory profile CSV" in res.stderr


def test_a_onednn_log_is_refused_with_the_command_that_reads_it(onednn_dir, tmp_path):
    log = sorted(onednn_dir.iterdir())[0]
    res = cli("report", log, "-o", tmp_path / "r.html")
    assert res.exit_code == 2
    assert "not a Chrome trace" in res.stderr and "xprof stats" in res.stderr
    assert not (tmp_path / "r.html").exists()


def test_critical_path_section_is_xprof_explain_of_the_same_trace(tmp_path):
    """The report's critical path is the real ``xprof explain`` analysis: the number the
    page renders comes from the document ``xprof explain --format json`` prints, built
    from the trace's dependency records (not the per-thread-serial fallback)."""
    from xprof.mxcli.analysis.explain import FALLBACK_NOTE
    from xprof.mxcli.render.html import svg
    from xprof.mxcli.render.html.collect import collect

    trace, _ = run_sample("ndarray_chain.py", tmp_path)
    res = cli("explain", trace, "--format", "json")
    assert res.exit_code == 0, res.stderr
    ex = json.loads(res.stdout)
    assert 0 < ex["critical_path_ms"] <= ex["wall_ms"]
    assert FALLBACK_NOTE not in [f["text"] for f in ex["findings"]]
    assert collect(str(trace))["explain"]["critical_path_ms"] == ex["critical_path_ms"]
    out = tmp_path / "r.html"
    assert cli("report", trace, "-o", out).exit_code == 0
    section = out.read_text().split('id="critical-path"', 1)[1]
    assert "Unavailable" not in section.split("</section>")[0]    # recorded dependencies
    shown = re.search(r"Wall time ([^,<]*), critical path ([^<]*)\.</p>", section)
    assert shown.groups() == (svg.fmt_ms(ex["wall_ms"]), svg.fmt_ms(ex["critical_path_ms"]))


def test_the_trace_is_read_once_and_the_explain_document_is_the_commands(tmp_path, monkeypatch):
    """One decoding pass feeds the statistics and the explain timeline; the document
    the page draws is ``xprof explain --format json``'s, minus the segment list, and
    its composition is the segments' time per kind."""
    from xprof.mxcli.render.html.collect import collect
    from xprof.traces import tracefile

    trace, _ = run_sample("custom_op_breakdown.py", tmp_path)
    ex = json.loads(cli("explain", trace, "--format", "json").stdout)
    passes = []
    batches = tracefile.TraceReader.batches

    def counted(self, *args, **kwargs):
        passes.append(self.path)
        return batches(self, *args, **kwargs)

    monkeypatch.setattr(tracefile.TraceReader, "batches", counted)
    doc = collect(str(trace))["explain"]
    assert passes == [str(trace)]
    composition = doc.pop("composition_ms")
    assert doc.pop("dependencies") is True
    segments = ex.pop("critical_path")
    assert doc == ex
    for kind in ("op", "queue", "dependency", "python"):
        from_segments = sum(s["dur"] for s in segments if s["kind"] == kind) / 1000
        assert abs(composition[kind] - from_segments) < 1e-3 * (1 + len(segments)), kind
    assert composition["op"] > 0 and abs(sum(composition.values()) - ex["critical_path_ms"]) < 1e-5


def test_a_trace_without_slices_says_the_critical_path_is_unavailable(tmp_path):
    from cli_helpers import meta, write_trace

    trace = write_trace(tmp_path / "t.json", meta() + [
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 1, "pid": 0,
         "args": {"Memory: cpu/0": 4096}}])
    out = tmp_path / "r.html"
    assert cli("report", trace, "-o", out).exit_code == 0
    section = out.read_text().split('id="critical-path"', 1)[1].split("</section>")[0]
    assert "Unavailable: the trace holds no slices" in section


def test_a_100000_event_trace_makes_at_most_2_mb_also_gzipped(tmp_path):
    """The page stays small whatever the trace: 100,000 events of 3,000 operator names
    on 200 threads, 40 custom-op types and 4 memory series (every table, chart and line
    capped), read from a .json.gz."""
    import gzip

    import orjson

    from cli_helpers import meta

    events = meta()
    k = 0
    while len(events) < 100_000:
        t = k * 3.0
        events.append({"name": f"op_{k % 3000}_" + "x" * 40, "cat": "operator", "ph": "X",
                       "ts": t, "dur": 2.0, "pid": 0, "tid": k % 200,
                       "args": {"dep": [1000, 500, 0, k + 1, -(k + 2)]}})
        events.append({"name": f"Memory: cpu/{k % 4}", "cat": "Device Storage", "ph": "C",
                       "ts": t, "pid": 0, "args": {f"Memory: cpu/{k % 4}": 4096 * (k % 991)}})
        if k % 5 == 0:
            op = f"Op{(k // 5) % 40}"
            events.append({"name": op, "cat": "Custom Operator", "ph": "b", "id": k, "ts": t,
                           "pid": 0, "tid": 1, "args": {"queued_ns": 100, "python_ns": 800,
                                                        "blocked_ns": 300, "tail_ns": 50,
                                                        "sub_operators_ns": 200}})
            events.append({"name": op, "cat": "Custom Operator", "ph": "e", "id": k,
                           "ts": t + 1.25, "pid": 0, "tid": 1})
        k += 1
    trace = tmp_path / "big.json.gz"
    trace.write_bytes(gzip.compress(orjson.dumps({"traceEvents": events,
                                                 "otherData": {"xprof_version": "t"}})))
    out = tmp_path / "big.report.html"
    res = cli("report", trace)
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert len(page.encode()) <= 2_000_000
    assert "of 3,000 rows" in page and "Memory: cpu/3" in page
    assert page.count("<g class=\"bar\" data-label=\"Op") == 15     # svg bars capped too


def test_allocations_after_xprof_run_or_one_line_saying_how(tmp_path):
    """A plain ``xprof run`` leaves no allocation list: the section says in one line how
    to get one; with ``XPROF_PROFILER_MEMORY_PREFIX`` the same run fills it."""
    from test_real_jobs_deps import JOBS, run_job

    plain = tmp_path / "plain"
    plain.mkdir()
    run_job([str(JOBS / "gluon_mlp.py"), "--steps", "1", "--width", "64", "--heavy", "2048"],
            plain)
    assert cli("report", plain / "profile.json", "-o", plain / "r.html").exit_code == 0
    page = (plain / "r.html").read_text()
    assert "XPROF_PROFILER_MEMORY_PREFIX=mem" in page and "<th class='text'>Attribute" not in page
    logged = tmp_path / "logged"
    logged.mkdir()
    run_job([str(JOBS / "gluon_mlp.py"), "--steps", "1", "--width", "64", "--heavy", "2048"],
            logged,
            env={"XPROF_PROFILER_MEMORY_PREFIX": "mem"})
    (csv_path,) = logged.glob("mem-pid_*.csv")
    assert cli("report", logged / "profile.json", "-o", logged / "r.html").exit_code == 0
    page = (logged / "r.html").read_text()
    assert "<th class='text'>Attribute" in page and csv_path.name in page
    # the heavy layer's weight (4 bytes x 64 x 2048) is among the largest allocations
    assert "524,288" in page


def test_a_huge_name_keeps_the_page_small(tmp_path):
    """A 10 MB event name (an op, a thread, a custom op's call) is cut in the page: the
    table shows its start, its title holds at most 1,000 characters, escaped."""
    from cli_helpers import X, meta, write_trace

    huge = "<b>" + "n" * 10_000_000
    events = meta(thread=huge) + [X(huge, 0, 10, cat="operator"), X("small", 20, 5),
                                  X(huge + "::pure_python", 0, 4, cat="Custom Operator")]
    trace = write_trace(tmp_path / "t.json", events)
    out = tmp_path / "r.html"
    assert cli("report", trace, "-o", out).exit_code == 0
    page = out.read_text()
    assert len(page) < 200_000
    assert "<b>nnn" not in page and "&lt;b&gt;nnn" in page
