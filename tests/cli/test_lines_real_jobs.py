"""``xprof stats --lines`` on real training jobs, against answers the job measures itself.

``tests/jobs/custom_lines.py`` trains a small network with a custom-op layer (``Split``)
by a Gluon loop, the same loop hybridized (the op inside the cached graph) and
``mx.mod.Module``. ``Split.forward`` spends about three parts of its time in a
pure-Python loop and one in numpy, each timed with ``perf_counter`` inside the op (the
ground truth, printed by the job); ``Split.backward`` runs a loop of its own. The
sampled shares must agree with the truth within 10 points (or the sampling error the run
states, when a busy machine made it larger), on both engines, the backward apart from
the forward, and the sampler must have seen nearly every call (a short backward begun
while the sampler waited for the GIL with Python's 5 ms switch interval was once missed
in half the steps): all but 3, and on a busy machine all but the share its own late
ticks (the achieved interval against the asked one) could miss.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli
from test_real_jobs_deps import run_job
from test_stats_lines import lines_json, missable_calls, share_tolerance, shares

JOB = Path(__file__).resolve().parents[2] / "tests" / "jobs" / "custom_lines.py"
STEPS = 24


@pytest.mark.parametrize("engine", ["ThreadedEngine", "NaiveEngine"])
@pytest.mark.parametrize("api", ["gluon", "hybrid", "module"])
def test_a_training_jobs_custom_op_lines_match_its_own_clock(tmp_path, api, engine):
    _, res = run_job([str(JOB), "--api", api, "--steps", str(STEPS)], tmp_path,
                     env={"XPROF_ENGINE_TYPE": engine})
    truth = json.loads([ln for ln in res.stdout.splitlines() if ln.startswith("{")][-1])
    # both sections material by the job's own clock (the check follows the clock)
    assert truth["calls"] == STEPS and 5 <= truth["loop_pct"] <= 95, truth
    doc = json.loads((tmp_path / "profile.json").read_text())
    out = lines_json(tmp_path / "profile.json")
    rows = out["Python Lines"]["Split"]
    got = shares(rows, ("python_loop", "numpy_section"))
    loop = 100 * got["python_loop"] / (got["python_loop"] + got["numpy_section"])
    tolerance = share_tolerance(out["Python Lines Sampling"]["Split"])
    assert abs(loop - truth["loop_pct"]) <= tolerance, (loop, truth, tolerance, rows)
    src = JOB.read_text().splitlines()
    by_fn = {}
    for r in rows:   # each function's largest row
        by_fn.setdefault(r["function"], r)
    assert "np.sort" in src[by_fn["numpy_section"]["line"] - 1]
    summary = out["Python Lines Sampling"]
    assert summary["Split"]["op_calls"] == STEPS
    missable = missable_calls(doc, STEPS)   # 3 on a quiet machine
    assert summary["Split"]["calls"] >= STEPS - missable, (summary["Split"], missable)
    back = out["Python Lines"]["_backward_Split"]
    assert back[0]["function"] == "backward_loop", back
    assert not {"python_loop", "numpy_section"} & {r["function"] for r in back}
    assert summary["_backward_Split"]["calls"] >= STEPS - missable, \
        (summary["_backward_Split"], missable)
    # the shares of each op add up to its Python time
    for op in ("Split", "_backward_Split"):
        total = sum(r["%"] for r in out["Python Lines"][op] if r["line"] is not None)
        assert abs(total - 100) <= 1, (op, total)


def test_diff_of_two_runs_names_the_lines_that_moved(tmp_path):
    """``xprof diff`` of the job with its forward's split turned around (6 ms of Python
    loop and 2 of numpy, then 2 and 6): the two lines' shares move by what the job's own
    clock says, significantly, each the opposite way; the backward's line stays."""
    truth, traces = [], []
    for ms in ("6,2", "2,6"):
        folder = tmp_path / ms.replace(",", "_")
        folder.mkdir()
        _, res = run_job([str(JOB), "--steps", str(STEPS)], folder,
                         env={"XPROF_ENGINE_TYPE": "ThreadedEngine", "CUSTOM_LINES_MS": ms})
        truth.append(json.loads([ln for ln in res.stdout.splitlines()
                                 if ln.startswith("{")][-1]))
        traces.append(folder / "profile.json")
    res = cli("diff", *traces, "--format", "json")
    assert res.exit_code == 0, res.stderr
    entries = {e["op"]: e for e in json.loads(res.stdout)["python_lines"]}
    lines = {}
    for r in entries["Split"]["lines"]:   # (sorted by change: each function's largest)
        lines.setdefault(r["function"], r)
    loop, np_line = lines["python_loop"], lines["numpy_section"]
    moved = truth[1]["loop_pct"] - truth[0]["loop_pct"]   # about -50 points when quiet
    assert moved < -15, truth   # by the job's own clock, the split did turn around
    # each run's sampling error (share_tolerance), the two combined
    tolerance = sum(share_tolerance(lines_json(t)["Python Lines Sampling"]["Split"]) ** 2
                    for t in traces) ** 0.5
    by_fn = {}   # a function's change: the sum over its lines
    for r in entries["Split"]["lines"]:
        by_fn[r["function"]] = by_fn.get(r["function"], 0.0) + r["change_points"]
    assert abs(by_fn["python_loop"] - moved) <= tolerance, (by_fn, truth, tolerance)
    assert abs(by_fn["numpy_section"] + moved) <= tolerance, (by_fn, truth, tolerance)
    assert loop["significant"] and np_line["significant"]
    assert loop["change_per_call_ms"] < 0 < np_line["change_per_call_ms"]
    src = JOB.read_text().splitlines()
    assert loop["file"] == "custom_lines.py" and "s += i * i" in src[loop["line"] - 1]
    back = [r for r in entries["_backward_Split"]["lines"]
            if r["function"] == "backward_loop"][0]
    # the backward's loop: its share moved only as much as the job's own clock says
    # (about 0 when quiet; a busy machine makes the push after it a larger part)
    back_moved = truth[1]["back_loop_pct"] - truth[0]["back_loop_pct"]
    back_tolerance = sum(share_tolerance(
        lines_json(t)["Python Lines Sampling"]["_backward_Split"]) ** 2 for t in traces) ** 0.5
    assert abs(back["change_points"] - back_moved) <= back_tolerance, \
        (back, truth, back_tolerance)
    text = cli("diff", *traces).stdout
    assert "python line Split: python_loop custom_lines.py:" in text
    page = tmp_path / "diff.html"
    assert cli("diff", *traces, "--report", page).exit_code == 0
    html = page.read_text()
    assert "Python lines" in html
    assert "python_loop" in html and "numpy_section" in html
