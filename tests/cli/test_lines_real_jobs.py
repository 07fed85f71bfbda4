"""``xprof stats --lines`` on real training jobs, against answers the job measures itself.

``tests/jobs/custom_lines.py`` trains a small network with a custom-op layer (``Split``)
by a Gluon loop, the same loop hybridized (the op inside the cached graph) and
``mx.mod.Module``. ``Split.forward`` spends about three parts of its time in a
pure-Python loop and one in numpy, each timed with ``perf_counter`` inside the op (the
ground truth, printed by the job); ``Split.backward`` runs a loop of its own. The
sampled shares must agree with the truth within 10 points, on both engines, the
backward apart from the forward, and the sampler must have seen nearly every call (a
short backward begun while the sampler waited for the GIL with Python's 5 ms switch
interval was once missed in half the steps).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_real_jobs_deps import run_job
from test_stats_lines import lines_json, shares

JOB = Path(__file__).resolve().parents[2] / "tests" / "jobs" / "custom_lines.py"
STEPS = 24


@pytest.mark.parametrize("engine", ["ThreadedEngine", "NaiveEngine"])
@pytest.mark.parametrize("api", ["gluon", "hybrid", "module"])
def test_a_training_jobs_custom_op_lines_match_its_own_clock(tmp_path, api, engine):
    _, res = run_job([str(JOB), "--api", api, "--steps", str(STEPS)], tmp_path,
                     env={"XPROF_ENGINE_TYPE": engine})
    truth = json.loads([ln for ln in res.stdout.splitlines() if ln.startswith("{")][-1])
    assert truth["calls"] == STEPS and 60 <= truth["loop_pct"] <= 90, truth
    out = lines_json(tmp_path / "profile.json")
    rows = out["Python Lines"]["Split"]
    got = shares(rows, ("python_loop", "numpy_section"))
    loop = 100 * got["python_loop"] / (got["python_loop"] + got["numpy_section"])
    assert abs(loop - truth["loop_pct"]) <= 10, (loop, truth, rows)
    src = JOB.read_text().splitlines()
    by_fn = {}
    for r in rows:   # each function's largest row
        by_fn.setdefault(r["function"], r)
    assert "np.sort" in src[by_fn["numpy_section"]["line"] - 1]
    summary = out["Python Lines Sampling"]
    assert summary["Split"]["op_calls"] == STEPS
    assert summary["Split"]["calls"] >= STEPS - 3, summary["Split"]
    back = out["Python Lines"]["_backward_Split"]
    assert back[0]["function"] == "backward_loop", back
    assert not {"python_loop", "numpy_section"} & {r["function"] for r in back}
    assert summary["_backward_Split"]["calls"] >= STEPS - 3, summary["_backward_Split"]
    # the shares of each op add up to its Python time
    for op in ("Split", "_backward_Split"):
        total = sum(r["%"] for r in out["Python Lines"][op] if r["line"] is not None)
        assert abs(total - 100) <= 1, (op, total)
