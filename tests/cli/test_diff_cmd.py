"""``xprof diff A B`` end to end: synthetic traces with known answers, MXNet and PyTorch
traces, and two real pairs of runs of a Gluon training job (the same job twice; one
layer made 4x wider), with the regression gate."""
import json

import pytest

from cli_helpers import X, cli, meta, write_trace
from test_real_jobs_deps import JOBS, run_job
from xprof.mxcli.analysis.diff import material

ROW_KEYS = {"name", "layer", "a", "b", "ratio", "significant"}
SIDE_KEYS = {"count", "median_ms", "p90_ms", "total_ms"}


def _doc(a, b, *args):
    res = cli("diff", str(a), str(b), "--format", "json", *args)
    assert res.exit_code in (0, 1), res.stderr
    return json.loads(res.stdout), res


def _ops(name, layer, n, dur, shapes=None, t0=0, gap=100, tid=2):
    args = {"name": layer} if layer else {}
    if shapes is not None:
        args["Input Dims"] = shapes
    return [X(name, t0 + i * (dur + gap), dur, tid=tid, args=dict(args)) for i in range(n)]


def _synthetic(tmp_path, name, heavy_us, extra=()):
    events = meta() + _ops("FullyConnected", "first", 20, 100, [[8, 4]]) \
        + _ops("FullyConnected", "heavy", 20, heavy_us, [[8, 64]], t0=50_000) \
        + _ops("Activation", None, 20, 10, t0=200_000) + list(extra)
    return write_trace(tmp_path / name, events)


def test_rows_matched_by_name_layer_and_shapes(tmp_path):
    a = _synthetic(tmp_path, "a.json", 1000, [X("only_a", 300_000, 5, tid=2)])
    b = _synthetic(tmp_path, "b.json", 3000, [X("only_b", 300_000, 5, tid=2)])
    doc, res = _doc(a, b)
    assert res.exit_code == 0
    assert {"rows", "wall", "critical_path", "added", "removed"} <= set(doc)
    assert {"a_ms", "b_ms"} <= set(doc["wall"])
    rows = {(r["name"], r["layer"]): r for r in doc["rows"]}
    assert set(rows) == {("FullyConnected", "first"), ("FullyConnected", "heavy"),
                         ("Activation", None)}
    for r in doc["rows"]:
        assert ROW_KEYS <= set(r) and SIDE_KEYS == set(r["a"]) == set(r["b"])
    heavy = rows[("FullyConnected", "heavy")]
    assert heavy["ratio"] == pytest.approx(3.0) and heavy["significant"]
    assert heavy["a"] == {"count": 20, "median_ms": 1.0, "p90_ms": 1.0, "total_ms": 20.0}
    assert heavy["b"]["total_ms"] == 60.0 and heavy["change_ms"] == 40.0
    assert not rows[("FullyConnected", "first")]["significant"]
    assert rows[("FullyConnected", "first")]["ratio"] == 1.0
    assert doc["rows"][0] is not None and doc["rows"][0]["layer"] == "heavy"   # by impact
    assert [r["name"] for r in doc["added"]] == ["only_b"]
    assert [r["name"] for r in doc["removed"]] == ["only_a"]


def test_a_layer_with_new_shapes_is_that_layers_row(tmp_path):
    """The same op of the same layer with other input shapes (the layer made wider) is
    compared, not listed as removed and added."""
    a = write_trace(tmp_path / "a.json", meta() + _ops("FullyConnected", "heavy", 10, 100,
                                                      [[8, 64], [64, 64]]))
    b = write_trace(tmp_path / "b.json", meta() + _ops("FullyConnected", "heavy", 10, 400,
                                                      [[8, 64], [256, 64]]))
    doc, _ = _doc(a, b)
    (row,) = doc["rows"]
    assert row["shapes"] == "[[8, 64], [64, 64]]" and row["shapes_b"] == "[[8, 64], [256, 64]]"
    assert row["ratio"] == 4.0 and row["significant"]
    assert doc["added"] == doc["removed"] == []


def test_gate_passes_unchanged_and_fails_a_regression_with_one_line(tmp_path):
    a = _synthetic(tmp_path, "a.json", 1000)
    b = _synthetic(tmp_path, "b.json", 1500)
    res = cli("diff", str(a), str(a), "--fail-on", "1%")
    assert res.exit_code == 0, res.stderr
    res = cli("diff", str(a), str(b), "--fail-on", "10%")
    assert res.exit_code == 1
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("xprof: diff: regression: FullyConnected (heavy) median 1.000 -> "
                           "1.500 ms (x1.50, significant; over 10%)")
    assert cli("diff", str(a), str(b), "--fail-on", "60%").exit_code == 0
    assert cli("diff", str(a), str(b), "--fail-on", "op:Activation:10%").exit_code == 0
    assert cli("diff", str(a), str(b), "--fail-on", "op:heavy:10%").exit_code == 1
    res = cli("diff", str(a), str(b), "--fail-on", "ten")
    assert res.exit_code == 2 and "--fail-on 'ten' is not a threshold" in res.stderr


@pytest.mark.parametrize("fixture", ["mxnet-1.9.1-cnn-step.json", "pytorch-2.13-cnn-step.json",
                                     "mxnet-1.9.1-custom-sigmoid.json"])
def test_other_tools_traces_against_themselves(traces_dir, fixture):
    path = traces_dir / fixture
    doc, res = _doc(path, path, "--fail-on", "1%")
    assert res.exit_code == 0
    assert doc["rows"] and not any(r["significant"] for r in doc["rows"])
    assert all(r["ratio"] == 1.0 for r in doc["rows"])
    assert doc["added"] == doc["removed"] == []
    assert doc["critical_path"]["available"] is False      # no dependency records
    assert doc["wall"]["change_ms"] == 0


def test_unreadable_input_and_output_over_input(tmp_path):
    a = _synthetic(tmp_path, "a.json", 1000)
    (tmp_path / "bad.json").write_text("{not json")
    res = cli("diff", str(a), str(tmp_path / "bad.json"))
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    res = cli("diff", str(a), str(a), "--report", str(a))
    assert res.exit_code == 2 and "is the input" in res.stderr


# -- real pairs of runs -----------------------------------------------------------------
def _pair_runs(tmp_path_factory, prefix, env=None):
    """The Gluon MLP job three times: twice as it is, once with its heavy layer 4x
    wider; each trace and the job's own perf_counter step times. Steps of ~9 ms (batch
    256, width 512): at 2 ms (batch 64, width 256) a GIL hand-off of a few hundred
    microseconds moved the median step of one run by 30-50%, and the same job twice
    failed the gate on step time in 2 of 18 pairs."""
    out = {}
    for name, heavy in (("base", "1024"), ("again", "1024"), ("wide", "4096")):
        folder = tmp_path_factory.mktemp(prefix + name)
        _, res = run_job([str(JOBS / "gluon_mlp.py"), "--steps", "12", "--width", "512",
                          "--batch-size", "256", "--heavy", heavy], folder, env=env)
        truth = json.loads(res.stdout.strip().splitlines()[-1])
        out[name] = (folder / "profile.json", truth)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """On the default engine (ThreadedEngine)."""
    return _pair_runs(tmp_path_factory, "threaded-")


@pytest.fixture(scope="module")
def alone_runs(tmp_path_factory):
    """On NaiveEngine with one BLAS thread: every op runs alone, so an op's time is its
    own (on the threaded engine the wider layer's ops, beside the unchanged ones on the
    other core, make those slower too: real, and reported as such)."""
    return _pair_runs(tmp_path_factory, "naive-", {"XPROF_ENGINE_TYPE": "NaiveEngine",
                                                   "XPROF_BLAS_NUM_THREADS": "1"})


def test_the_same_job_twice_does_not_fail_the_gate(runs, alone_runs):
    for pair in (runs, alone_runs):
        res = cli("diff", str(pair["base"][0]), str(pair["again"][0]), "--fail-on", "25%")
        assert res.exit_code == 0, res.stderr


def test_a_layer_made_wider_fails_the_gate_and_is_named(runs):
    base, wide = str(runs["base"][0]), str(runs["wide"][0])
    res = cli("diff", base, wide, "--fail-on", "25%")
    assert res.exit_code == 1
    assert res.stderr.startswith("xprof: diff: regression: ") and "mlp_heavy" in res.stderr
    doc, _ = _doc(base, wide)
    heavy = [r for r in doc["rows"] if r["name"] == "FullyConnected"
             and (r["layer"] or "").startswith("mlp_heavy")]
    assert heavy and heavy[0]["ratio"] > 2 and heavy[0]["shapes_b"] != heavy[0]["shapes"]
    assert doc["critical_path"]["available"] and "mlp_heavy" in doc["critical_path"]["summary"]
    assert doc["memory"]["change_kb"] > 0     # the wider weights


def test_no_row_of_an_unchanged_layer_is_flagged(alone_runs):
    """The rows the gate names are the wider layer's and those that read or write its
    arrays (the head reads its wider output); the first layer's never."""
    base, wide = str(alone_runs["base"][0]), str(alone_runs["wide"][0])
    res = cli("diff", base, wide, "--fail-on", "25%")
    assert res.exit_code == 1 and "mlp_heavy" in res.stderr
    doc, _ = _doc(base, wide)
    flagged = [r for r in doc["rows"] if r["significant"] and r["ratio"] > 1.25
               and material(r, doc["wall"]["a_ms"])]
    assert flagged and all((r["layer"] or "").startswith(("mlp_heavy", "mlp_head"))
                           for r in flagged), [(r["name"], r["layer"]) for r in flagged]


def test_step_times_agree_with_the_jobs_own_clock(runs):
    """Steps found from the loop's waitall (one per step): their median is the job's
    own perf_counter median step time (the first step, which the trace cannot tell
    from the setup before it, left out of both)."""
    import numpy as np

    from xprof.mxcli.analysis.diff import steps_ns
    from xprof.mxcli.streaming.pair import load_run

    path, truth = runs["base"]
    found = steps_ns(load_run(str(path))) / 1e6
    steps = np.array(truth["steps_s"][1:]) * 1e3
    assert len(found) >= len(steps)
    assert np.median(found[:len(steps)]) == pytest.approx(np.median(steps), rel=0.05)


def test_report_page(runs, tmp_path):
    out = tmp_path / "diff.html"
    res = cli("diff", str(runs["base"][0]), str(runs["wide"][0]), "--report", str(out))
    assert res.exit_code == 0 and f"diff report written to {out}" in res.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="diff-rows"' in page
    assert "mlp_heavy" in page and "http" not in page.replace("http-equiv", "")


def test_run_with_a_baseline_prints_the_diff(runs, tmp_path):
    base = runs["base"][0]
    _, res = run_job(["--baseline", str(base), str(JOBS / "gluon_mlp.py"), "--steps", "2",
                      "--heavy", "1024"], tmp_path)
    err = res.stderr
    assert f"xprof: diff of {base} (A) against this run (B):" in err
    assert "wall time  A " in err and "FullyConnected (mlp_heavy)" in err
    assert (tmp_path / "profile.json").is_file() and base.is_file()


def test_run_refuses_a_missing_baseline_before_the_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("open('started', 'w').close()\n")
    res = cli("run", "--baseline", str(tmp_path / "none.json"), str(script))
    assert res.exit_code == 2 and "--baseline" in res.stderr
    assert not (tmp_path / "started").exists()
