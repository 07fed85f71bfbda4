"""Every engine op carries its dependency record, on the jobs users run.

``explain``'s critical path is only as right as the dependency records: an op without
one is a hole the path crosses as an unexplained hand-off. So every sample script and
the training jobs of ``tests/jobs`` (a Gluon MLP imperative and hybridized, with a
custom operator, in MXNet 1.x's style and in MXNet 2's on np arrays, a Module.fit, the
Gluon CNN) run under ``xprof run``, and at least 99%
of their ``cat: operator`` slices must carry ``args.dep`` (docs/dependencies.md). No op
is exempt today: ``EXEMPT`` names any that may go without, and why.
"""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_scripts"
JOBS = REPO / "tests" / "jobs"

# op name -> why it may be recorded without a dependency record (none today)
EXEMPT: dict[str, str] = {}

CASES = {
    **{p.stem: [str(p)] for p in sorted(SAMPLES.glob("*.py"))},
    "gluon_mlp": [str(JOBS / "gluon_mlp.py")],
    "gluon_mlp_hybridized": [str(JOBS / "gluon_mlp.py"), "--hybridize"],
    "gluon_mlp_custom": [str(JOBS / "gluon_mlp.py"), "--custom"],
    "gluon_mlp_custom_hybridized": [str(JOBS / "gluon_mlp.py"), "--custom", "--hybridize"],
    "gluon2_mlp": [str(JOBS / "gluon2_mlp.py")],
    "gluon2_mlp_hybridized": [str(JOBS / "gluon2_mlp.py"), "--hybridize"],
    "gluon2_mlp_custom_hybridized": [str(JOBS / "gluon2_mlp.py"), "--custom", "--hybridize"],
    "module_fit": [str(JOBS / "module_mlp.py")],
    "cnn_hybridized": [str(SAMPLES / "train_cnn_profile.py"), "--hybridize"],
}


def run_job(argv, tmp_path, env=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    full_env.update(env or {})
    out = tmp_path / "profile.json"
    res = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-o", str(out), *argv],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=full_env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(out.read_text())["traceEvents"], res


def coverage(events):
    """(ops, with dep, Counter of names without)."""
    ops = [e for e in events if e.get("cat") == "operator" and e.get("ph") == "X"]
    missing = collections.Counter(e["name"] for e in ops
                                  if "dep" not in (e.get("args") or {}))
    return len(ops), len(ops) - sum(missing.values()), missing


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_events_carry_dependency_records(case, tmp_path):
    events, _ = run_job(CASES[case], tmp_path)
    n, with_dep, missing = coverage(events)
    assert n > 0, "no operator events recorded"
    unexplained = {k: v for k, v in missing.items() if k not in EXEMPT}
    assert with_dep >= 0.99 * n and not unexplained, \
        f"{with_dep} of {n} operator events carry args.dep; without: {dict(missing)}"


def test_layer_names_stay_beside_the_dependency_record(tmp_path):
    """An op with a layer name keeps the name and its input shapes in args, next to dep."""
    events, _ = run_job([str(JOBS / "gluon_mlp.py"), "--steps", "1"], tmp_path)
    fc = [e for e in events if e.get("name") == "FullyConnected" and e.get("ph") == "X"
          and e.get("cat") == "operator"]
    assert fc
    for e in fc:
        assert e["args"]["name"].startswith("mlp_")
        assert "dep" in e["args"]
        assert len(e["args"]["Input Dims"]) == 3    # data, weight, bias
    names = {e["args"]["name"] for e in fc}
    for layer in ("first", "heavy", "head"):
        assert any(n.startswith(f"mlp_{layer}") for n in names), names
