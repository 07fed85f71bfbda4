"""sample_scripts/train_cnn_profile.py runs end to end and writes a usable trace."""
import json
import os
import subprocess
import sys

import pytest
from gluonhelpers import mnist_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "sample_scripts", "train_cnn_profile.py")


def _run(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["OPENBLAS_NUM_THREADS"] = "1"
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=120, env=env)


def _op_events(path):
    with open(path) as f:
        doc = json.load(f)
    return [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "operator"]


@pytest.mark.parametrize("hybridize", [False, True])
def test_synthetic_run_writes_trace(tmp_path, hybridize):
    out = str(tmp_path / "trace.json")
    args = ["--batch-size", "16", "--samples", "32", "--output", out]
    if hybridize:
        args.append("--hybridize")
    res = _run(*args)
    assert res.returncode == 0, res.stderr
    assert "trace written to" in res.stdout
    assert "_backward_Convolution" in res.stdout        # the aggregate table
    ops = _op_events(out)
    names = {e["name"] for e in ops}
    assert "multi_sgd_update" in names           # SGD aggregated, as MXNet 1.9.1
    if hybridize:
        assert any(n.startswith("[Convolution") for n in names)
    else:
        convs = sorted(e["args"]["name"] for e in ops if e["name"] == "Convolution")
        assert convs == ["hybridsequential0_conv0", "hybridsequential0_conv1"]


def test_mnist_folder(tmp_path):
    mnist_dir(str(tmp_path / "mnist"), 40, gz=True)
    out = str(tmp_path / "trace.json")
    res = _run("--mnist", str(tmp_path / "mnist"), "--batch-size", "16", "--output", out)
    assert res.returncode == 0, res.stderr
    assert any(e["name"] == "Convolution" for e in _op_events(out))


def test_missing_mnist_folder_is_a_clear_error(tmp_path):
    res = _run("--mnist", str(tmp_path / "none"), "--output", str(tmp_path / "t.json"))
    assert res.returncode != 0
    assert "train-images-idx3-ubyte" in res.stderr and "none" in res.stderr


def test_mnist_folder_as_a_plain_path(tmp_path):
    # "uses local MNIST files when given a path": a positional path works like --mnist
    res = _run(str(tmp_path / "none"), "--output", str(tmp_path / "t.json"))
    assert res.returncode != 0
    assert "train-images-idx3-ubyte" in res.stderr and "none" in res.stderr
    mnist_dir(str(tmp_path / "mnist"), 40, gz=False)
    out = str(tmp_path / "trace.json")
    res = _run(str(tmp_path / "mnist"), "--batch-size", "16", "--output", out)
    assert res.returncode == 0, res.stderr
    assert any(e["name"] == "Convolution" for e in _op_events(out))
