"""MXNet 1.9.1's own example programs (``tests/programs/examples``, import lines
changed) run end to end under ``xprof run`` on synthetic data in the real file formats,
and give MXNet's results and MXNet's operator names.

Where the results come from (recorded once, here):

- values MXNet's formulas fix (``weighted_logistic_regression``: sigmoid(1) and the
  gradients of ``regression_output-inl.h``; ``custom_sparse_sqr``: x^2 and 2x);
- MXNet 2.0.0b1 on the same files: ``gluon_mnist`` (its program ported to MXNet 2: no
  ``name_scope``, ``transform()``, ``gluon.metric``; over 20 seeds epoch-0 training
  accuracy 0.622-0.717, mean 0.679, validation 0.971-1.0, mean 0.996; xprof over 17
  seeds: 0.655-0.731, mean 0.687, and 0.930-1.0, mean 0.994), ``profiler_ndarray``
  (runs unchanged on MXNet 2's ``mx.nd``: its operator counts below);
- the programs MXNet 2 cannot run (``mx.mod`` is gone): the same computation written in
  MXNet 2.0.0b1's Gluon with Module's defaults (``Uniform(0.01)`` weights, zero biases,
  SGD with momentum, ``rescale_grad`` 1/batch, the data in the same order):
  ``custom_softmax`` validation accuracy 0.172 after epoch 0, 0.99 from epoch 2, 1.0
  from epoch 4; ``module_mnist_mlp`` 0.084 after both epochs (the network is still at
  its initial symmetry: every sample gets the most frequent training class);
- operator names and counts MXNet 1.9.1's sources give (``Updater`` aggregating 4
  weights per ``multi_sgd_update``; ``Imdecode`` is the engine name of ``_cvimdecode``;
  ``flip`` is ``reverse``; ``astype`` is a ``CopyCPU2CPU``...).
"""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "examples.py"

pytest.importorskip("PIL")     # the data writers encode JPEGs; mx.image decodes them


class Ran:
    """One program's run under ``xprof run``: its output and working folder."""

    def __init__(self, name, tmp_path):
        env = {k: v for k, v in __import__("os").environ.items()
               if not k.startswith(("XPROF_", "MXNET_"))}
        env.update(OPENBLAS_NUM_THREADS="1")
        res = subprocess.run([sys.executable, str(RUNNER), name, "--workdir", str(tmp_path)],
                             capture_output=True, text=True, timeout=600, env=env)
        self.out = res.stdout + res.stderr
        summary = json.loads(res.stdout.strip().splitlines()[-1])
        self.returncode = summary["returncode"]
        self.folder = Path(summary["folder"])

    def trace(self, name="xprof_run.json"):
        path = self.folder / name
        check = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate", str(path)],
                               capture_output=True, text=True, timeout=300)
        assert check.returncode == 0 and " 0 errors" in check.stdout, check.stdout
        return json.loads(path.read_text())["traceEvents"]

    def floats(self, pattern):
        return [float(x) for x in re.findall(pattern, self.out)]


def ops(events, cat="operator"):
    return Counter(e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == cat)


def run(name, tmp_path):
    r = Ran(name, tmp_path)
    assert r.returncode == 0, r.out[-4000:]
    return r


def test_custom_softmax(tmp_path):
    r = run("custom_softmax", tmp_path)
    val = r.floats(r"Validation-accuracy=([\d.]+)")
    assert len(val) == 10
    assert 0.05 <= val[0] <= 0.6 and min(val[4:]) >= 0.98, val     # MXNet: 0.17, then 1.0
    assert "did not assign" not in r.out          # the label's req is 'null', as MXNet's
    events = r.trace()
    names = ops(events)
    batches = 10 * 60
    assert names["FullyConnected"] == 3 * (batches + 10 * 10)       # train + validation
    assert names["multi_sgd_mom_update"] == 2 * batches and "sgd_mom_update" not in names
    custom = ops(events, "Custom Operator")
    assert custom["softmax::pure_python"] == batches + 10 * 10
    assert custom["_backward_softmax::pure_python"] == batches


def _matrix_after(text, title, rows):
    block = text.split(title, 1)[1]
    return np.array([float(x) for x in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", block)
                     [:rows * 5]]).reshape(rows, 5)


def test_weighted_logistic_regression(tmp_path):
    r = run("weighted_logistic_regression", tmp_path)
    s = 1 / (1 + math.exp(-1))
    np.testing.assert_allclose(_matrix_after(r.out, "Weighted Logistic Regression output:", 4),
                               s, rtol=1e-6)
    np.testing.assert_allclose(_matrix_after(r.out, "\nLogistic Regression output:", 4), s,
                               rtol=1e-6)
    # wlr: ((o - 1) * l * pos + o * (1 - l) * neg) / n; MXNet's LogisticRegressionOutput:
    # (o - l) / n (n = 5 outputs per sample)
    want_w = np.repeat([[(s - 1) / 5], [(s - 1) / 5], [s * 0.1 / 5], [s * 0.1 / 5]], 5, axis=1)
    want_l = np.repeat([[(s - 1) / 5], [(s - 1) / 5], [s / 5], [s / 5]], 5, axis=1)
    np.testing.assert_allclose(_matrix_after(r.out, "Weighted Logistic Regression gradients:",
                                             4), want_w, rtol=1e-5)
    np.testing.assert_allclose(_matrix_after(r.out, "\nLogistic Regression gradients:", 4),
                               want_l, rtol=1e-5)
    events = r.trace()
    assert ops(events)["LogisticRegressionOutput"] == 1
    custom = ops(events, "Custom Operator")
    assert custom["weighted_logistic_regression::pure_python"] == 1
    assert custom["_backward_weighted_logistic_regression::pure_python"] == 1


def _arrays(text):
    """The (4, 10) arrays printed after each heading, in order."""
    blocks = re.split(r"^(Original ndarray|Squared ndarray|Grad ndarray)$", text, flags=re.M)
    out = {}
    for title, body in zip(blocks[1::2], blocks[2::2]):
        values = re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", body.split("stype of")[0]
                            .split("{")[0])
        out.setdefault(title, []).append(np.array([float(v) for v in values[:40]])
                                         .reshape(4, 10))
    return out


def test_custom_sparse_sqr(tmp_path):
    r = run("custom_sparse_sqr", tmp_path)
    # MXNet: the dense half keeps default storage; tostype('csr') inputs give a csr
    # output (the prop's infer_storage_type), the gradient (stype 'default') 2 x
    assert re.findall(r"stype of (input|output) is (\w+)", r.out) == [
        ("input", "default"), ("output", "default"), ("input", "csr"), ("output", "csr")]
    a = _arrays(r.out)
    for x, y, g in zip(a["Original ndarray"], a["Squared ndarray"], a["Grad ndarray"]):
        np.testing.assert_allclose(y, x * x, rtol=1e-5)
        np.testing.assert_allclose(g, 2 * x, rtol=1e-5)
    custom = ops(r.trace(), "Custom Operator")
    assert custom["sqr::pure_python"] == 2 and custom["_backward_sqr::pure_python"] == 2
    assert custom["_backward_sqr::elemwise_mul"] == 2      # mx.nd.sparse.elemwise_mul


def test_profiler_executor(tmp_path):
    r = run("profiler_executor", tmp_path)
    assert re.search(r"executor [\d.]+ ms / iteration", r.out)
    names = ops(r.trace("profile_executor_5iter.json"))
    # 5 profiled iterations of a 5-layer MLP; ccsgd (SGD, momentum 0): 10 weights in
    # chunks of 4 -> 3 multi_sgd_update per iteration (MXNet 1.9.1's Updater). The
    # program waits for the forward outputs only: the last dry run's backward and update
    # may still run after set_state('run'), the last iteration's after 'stop' (so on
    # MXNet too), so those counts are one iteration's worth either way
    assert names["FullyConnected"] == 25 and names["SoftmaxOutput"] == 5
    assert names["Activation"] == 20
    assert 20 <= names["_backward_FullyConnected"] <= 30
    assert 12 <= names["multi_sgd_update"] <= 18 and "sgd_update" not in names


def test_profiler_imageiter(tmp_path):
    r = run("profiler_imageiter", tmp_path)
    assert re.search(r"^\d+\.\d+$", r.out, re.M)       # images per second
    names = ops(r.trace("profile_imageiter.json"))
    n = 20 * 32
    # MXNet 1.9.1's ImageIter: per image Imdecode (_cvimdecode's engine name), a crop
    # (slice) resized (_cvimresize), CastAug's astype (a copy), HWC -> CHW, into the batch
    for name in ("Imdecode", "_cvimresize", "CopyCPU2CPU", "transpose", "_slice_assign",
                 "_slice_assign_scalar"):
        assert names[name] == n, (name, names)
    assert names["_zeros"] == 20
    assert 0.3 * n < names["reverse"] < 0.7 * n           # HorizontalFlipAug(0.5): flip
    assert names["slice"] >= n


def test_profiler_matmul(tmp_path):
    r = run("profiler_matmul", tmp_path)
    assert "execution end" in r.out
    names = ops(r.trace("profile_matmul_20iter.json"))
    assert names["dot"] == 10            # iterations 5..14 profiled


# MXNet 2.0.0b1 running profiler_ndarray.py unchanged: operator counts in its profile
MXNET_NDARRAY_OPS = {"broadcast_add": 190, "broadcast_sub": 151, "broadcast_mul": 150,
                     "broadcast_div": 240, "broadcast_to": 1000, "sqrt": 30, "square": 30,
                     "norm": 30, "max": 200, "min": 200, "sum": 200, "pick": 3,
                     "BinaryOp": 3, "TernaryOp": 3, "dot": 1, "clip": 1,
                     "_random_uniform": 1, "_full": 4, "_mul_scalar": 4, "_plus_scalar": 2,
                     "_div_scalar": 1, "_slice_assign": 1}


def test_profiler_ndarray(tmp_path):
    r = run("profiler_ndarray", tmp_path)
    names = ops(r.trace("profile_ndarray.json"))
    got = {k: names.get(k, 0) for k in MXNET_NDARRAY_OPS}
    assert got == MXNET_NDARRAY_OPS
    # left: MXNet copies x[:] = numpy synchronously (no op), and x[a:b] on the first
    # axis is a view there (no op); here both are operators (CopyCPU2CPU, slice)
    assert set(names) - set(MXNET_NDARRAY_OPS) <= {"CopyCPU2CPU", "slice"}, names


def test_gluon_mnist(tmp_path):
    r = run("gluon_mnist", tmp_path)
    train = r.floats(r"\[Epoch 0\] Training: accuracy=([\d.]+)")
    val = r.floats(r"\[Epoch 0\] Validation: accuracy=([\d.]+)")
    assert 0.55 <= train[0] <= 0.85, train      # MXNet 2.0.0b1: 0.622-0.717 (20 seeds)
    # epoch-0 validation has a tail on both (an unseeded initialization): MXNet 2.0.0b1
    # 0.930-1.0 over 20 seeds, mean 0.994; xprof 0.945-1.0 over 10 runs, mean 0.987,
    # and once 0.863 in about 25 runs. Below 0.8 it did not learn as MXNet does
    assert val[0] >= 0.8, val
    names = ops(r.trace())
    steps = 2000 // 100
    assert names["multi_sgd_mom_update"] == 2 * steps and "sgd_mom_update" not in names
    assert names["FullyConnected"] == 3 * (steps + 10)
    assert names["log_softmax"] == steps and names["pick"] == steps
    assert (Path(r.folder) / "mnist.params").is_file()


def test_super_resolution(tmp_path):
    r = run("super_resolution", tmp_path)
    mse = r.floats(r"training mse at epoch \d+: mse=([\d.]+)")
    psnr = r.floats(r"validation avg psnr: ([\d.]+)")
    assert len(mse) == 2 and len(psnr) == 2
    assert mse[1] < mse[0] and psnr[1] > psnr[0] and all(map(math.isfinite, psnr))
    names = ops(r.trace())
    assert names["Convolution"] >= 4 and names["_backward_Convolution"] >= 4
    # PixelShuffle2D: MXNet's reshape/transpose; Adam: one adam_update per weight (8)
    assert names["Reshape"] >= 3 and names["transpose"] >= 1
    assert names["adam_update"] == 8 * 2 * 2
    # the input pipeline: mx.image's CenterCropAug/ResizeAug on the PIL images
    assert names["_cvimresize"] == 8 * 2 + 4 * 2


def test_module_mnist_mlp(tmp_path):
    r = run("module_mnist_mlp", tmp_path)
    # MXNet 2's Gluon with Module's defaults on the same data and order: 0.084, 0.084
    assert r.floats(r"Validation-accuracy=([\d.]+)") == [0.084, 0.084]
    assert r.floats(r"validation Accuracy: ([\d.]+)") == [0.084]
    names = ops(r.trace())
    assert names["multi_sgd_mom_update"] == 2 * 2 * 2 * 120     # 2 fits x 2 epochs
    assert "sgd_mom_update" not in names and names["SoftmaxOutput"] > 0


def test_lstm_bucketing(tmp_path):
    r = run("lstm_bucketing", tmp_path)
    ppl = r.floats(r"Validation-perplexity=([\d.]+)")
    assert len(ppl) == 2 and all(30 < p < 60 for p in ppl), ppl   # ~ the vocabulary size
    names = ops(r.trace())
    # MXNet 1.9.1's LSTMCell step and unroll: FullyConnected i2h/h2h, SliceChannel for
    # the gates (and to split the sequence), Activation, elemwise add/mul; the outputs
    # merged by expand_dims + Concat; SGD (momentum 0) aggregated
    for name in ("Embedding", "FullyConnected", "SliceChannel", "Activation", "elemwise_add",
                 "elemwise_mul", "expand_dims", "Concat", "Reshape", "SoftmaxOutput",
                 "_backward_FullyConnected", "multi_sgd_update"):
        assert names[name] > 0, (name, names)
    assert names["Activation"] == 5 * names["elemwise_mul"] // 3    # 5 per step, 3 muls
    assert "sgd_update" not in names
