"""`xprof run` on a Module-API training script (sample_scripts/module_fit_mlp.py).

The trace must hold the fit's work, counted from the script's own sizes: every node of
the bound symbol is its own symbolic `operator` event (bulk execution is off under
`xprof run`) with its node name in args, one forward per training batch, one per
validation batch per epoch and per final score batch, one backward per training
batch, one optimizer update per parameter per batch; the checkpoints are written and
the trace passes `xprof validate`.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from test_run_cmd import SAMPLES, xprof

EPOCHS, TRAIN, VAL, BATCH = 2, 100, 50, 25      # the script's sizes (train, val samples)
PARAMS = 4                                       # fc1/fc2 weight and bias


def test_module_fit_under_xprof_run_profiles_every_node(tmp_path):
    out = tmp_path / "fit.json"
    prefix = tmp_path / "ck" / "mlp"
    prefix.parent.mkdir()
    res = xprof("run", "-o", str(out), "--quiet", str(SAMPLES / "module_fit_mlp.py"),
                "--epochs", str(EPOCHS), "--prefix", str(prefix), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "validation accuracy" in res.stdout
    assert "Speed:" in res.stderr and "Validation-accuracy" in res.stderr

    events = json.loads(out.read_text())["traceEvents"]
    ops = [e for e in events if e["ph"] == "X" and e.get("cat") == "operator"]
    by_name = Counter(e["name"] for e in ops)
    assert not [n for n in by_name if n.startswith("[")], "bulk segments under xprof run"
    train_batches = EPOCHS * (TRAIN // BATCH)
    forward_batches = train_batches + EPOCHS * (VAL // BATCH) + VAL // BATCH
    assert by_name["FullyConnected"] == 2 * forward_batches
    assert by_name["Activation"] == forward_batches
    assert by_name["SoftmaxOutput"] == forward_batches
    assert by_name["_backward_FullyConnected"] == 2 * train_batches
    assert by_name["_backward_SoftmaxOutput"] == train_batches
    # MXNet 1.9.1 aggregates 4 weights per multi_sgd_mom_update (Module's updater)
    assert by_name["multi_sgd_mom_update"] == -(-PARAMS // 4) * train_batches
    nodes = Counter(e["args"]["name"] for e in ops if e["name"] == "FullyConnected")
    assert nodes == {"fc1": forward_batches, "fc2": forward_batches}

    assert (tmp_path / "ck" / "mlp-symbol.json").is_file()
    for epoch in range(1, EPOCHS + 1):
        assert (tmp_path / "ck" / f"mlp-{epoch:04d}.params").is_file()
    check = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 errors" in check.stdout


def test_module_checkpoint_reloads_and_scores_the_same(tmp_path):
    """The checkpoint the fit wrote loads back into a Module (MXNet's file format)."""
    prefix = tmp_path / "mlp"
    res = xprof("run", "-o", str(tmp_path / "t.json"), "--quiet",
                str(SAMPLES / "module_fit_mlp.py"), "--epochs", "1", "--prefix",
                str(prefix), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    import xprof.runtime as mx
    sym, args, auxs = mx.model.load_checkpoint(str(prefix), 1)
    assert sorted(args) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert args["fc1_weight"].shape == (32, 20) and auxs == {}
    assert sym.list_outputs() == ["softmax_output"]
    assert Path(f"{prefix}-symbol.json").read_text() == sym.tojson()
