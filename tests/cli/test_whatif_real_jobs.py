"""``xprof explain --what-if`` on real jobs: the replay reproduces the recorded run, and a
prediction agrees with the run really slowed by ``xprof run --slow``, both engines.

The jobs are the known-answer jobs of the other real-job tests (the heavy-Dense Gluon MLP,
imperative and hybridized, ``Module.fit``, the bundled CNN, a custom op that waits in its
``forward``). Every run has the line sampler off and one BLAS thread (as the other
known-answer tests: their ticks and a second BLAS thread add load-dependent time).

A prediction is checked against runs of the same job, so what it is held to is bounded by
what the runs measured: within max(15% of the measured change, 3% of wall), widened by
the spread of the runs themselves (a loaded machine moves two runs of one job apart;
``benchmarks/bench_whatif.py`` takes the medians of three on a quiet one for the table).
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import pytest

from cli_helpers import cli
from test_real_jobs_deps import run_job

ROOT = Path(__file__).resolve().parents[2]
JOBS = {
    "mlp": [str(ROOT / "tests/jobs/gluon_mlp.py"), "--steps", "6"],
    "hybrid": [str(ROOT / "tests/jobs/gluon_mlp.py"), "--hybridize", "--steps", "6"],
    "module": [str(ROOT / "tests/jobs/module_mlp.py"), "--batches", "6"],
    "cnn": [str(ROOT / "sample_scripts/train_cnn_profile.py"), "--output", "own.json"],
    "custom": [str(ROOT / "tests/jobs/blocked_waits.py"), "--mode", "custom"],
}
ENGINES = ["ThreadedEngine", "NaiveEngine"]
ENV = {"XPROF_PROFILER_SAMPLE_INTERVAL_MS": "0", "XPROF_BLAS_NUM_THREADS": "1"}


def _run(tmp, engine, argv, slow=()):
    flags = [a for s in slow for a in ("--slow", s)]
    run_job([*flags, *argv], tmp, env={**ENV, "XPROF_ENGINE_TYPE": engine})
    return tmp / "profile.json"


def _explain(path, *args):
    out = cli("explain", path, "--format", "json", *args)
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("job", sorted(JOBS))
def test_the_unchanged_replay_reproduces_the_recorded_wall(tmp_path, job, engine):
    doc = _explain(_run(tmp_path, engine, JOBS[job]))
    replay = doc["replay"]
    assert abs(replay["error_%"]) <= 3, replay
    assert doc["what_would_help"], doc.get("what_would_help")


def test_slow_marks_each_slowed_event_and_counts_it(tmp_path):
    trace = _run(tmp_path, "ThreadedEngine", JOBS["custom"], slow=["Waiter::dot=2x"])
    doc = json.loads(trace.read_text())
    slowed = [e for e in doc["traceEvents"] if "slowed_ns" in (e.get("args") or {})]
    assert slowed and all(e["name"] == "Waiter::dot" for e in slowed)
    # the wait given is (2 - 1) times the op's own run time: about half of its slice
    for e in slowed:
        assert 0.35 * e["dur"] * 1000 <= e["args"]["slowed_ns"] <= 0.6 * e["dur"] * 1000, e
    summary = doc["otherData"]["slowed"]["Waiter::dot=2x"]
    assert summary["events"] == len(slowed)
    assert cli("validate", trace).exit_code == 0


def test_slow_refuses_what_a_run_cannot_slow_and_what_slows_nothing(tmp_path):
    import subprocess

    def xrun(*args):
        return subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)

    for spec, words in (("Waiter::dot=0.5x", "only slow an op down"),
                        ("python=2x", "not slowed by a run"), ("x=fast", "not a factor")):
        res = xrun("--slow", spec, *JOBS["custom"])
        assert res.returncode == 2 and words in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
    res = xrun("--slow", "NoSuchOp=2x", *JOBS["custom"])
    assert res.returncode == 2 and "slowed no op of this run" in res.stderr, res.stderr


def _wall(path):
    return _explain(path)["wall_ms"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_prediction_agrees_with_the_run_really_slowed(tmp_path, engine):
    """The heavy layer's backward (the top op on the path) made 2x slower, predicted
    from each run as it is and measured with --slow by the run right after it (pairs
    side by side: a loaded machine moves runs minutes apart more than runs seconds
    apart); the pairs' medians are compared, within max(15% of the measured change, 3%
    of wall) plus the spread of the pairs' own differences."""
    argv = [str(ROOT / "tests/jobs/gluon_mlp.py"), "--warmup", "2", "--steps", "6"]
    spec = "_backward_FullyConnected=2x"
    predicted, measured, walls = [], [], []
    for k in range(3):
        for d in (f"b{k}", f"s{k}"):
            (tmp_path / d).mkdir()
        doc = _explain(_run(tmp_path / f"b{k}", engine, argv), "--what-if", spec)
        slow_wall = _wall(_run(tmp_path / f"s{k}", engine, argv, slow=[spec]))
        predicted.append(doc["what_if"][0]["delta_ms"])
        measured.append(slow_wall - doc["wall_ms"])
        walls.append(doc["wall_ms"])
    p, m = statistics.median(predicted), statistics.median(measured)
    spread = (max(measured) - min(measured)) / 2
    bound = max(0.15 * abs(m), 0.03 * statistics.median(walls)) + spread
    assert p > 0 and abs(p - m) <= bound, (p, m, predicted, measured, walls)
