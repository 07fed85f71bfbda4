"""MXNet 2's own pages run on xprof: the profiler guide, five crash-course pages and the
VAE example, cell by cell in one process (``cells.py``), on both engines.

Each program is a page's code cells with only its import lines changed (and, where the
page downloads, local synthetic data: see each program's docstring). Every cell must
run, and what the page shows must be what MXNet shows: the values a page prints that
are known by construction (``2 x^2``'s gradient, a shape, a trained epoch), the guide's
aggregate table and trace. ``test_the_mxnet2_sample_under_the_quick_start`` runs
``sample_scripts/gluon2_custom_ops.py`` as the README's quick start runs its example.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CELLS = HERE / "cells.py"
ENGINES = ("ThreadedEngine", "NaiveEngine")

# program -> (cells in the page, cells.py's data options)
PROGRAMS = {
    "guide_profiler": (11, ["--mnist", "256", "--keep-after", "9"]),
    "crash_1_nparray": (24, []),
    "crash_2_create_nn": (36, ["--pretrained", "resnet50_v2"]),
    "crash_3_autograd": (20, []),
    "crash_4_components": (24, []),
    "crash_6_train_nn": (18, ["--leaves", "10"]),
    "vae": (9, ["--mnist", "256"]),
}


def _env(tmp_path, engine):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(HOME=str(tmp_path), XPROF_ENGINE_TYPE=engine, XPROF_GPU_AS_LABEL="1",
               OPENBLAS_NUM_THREADS="1")
    return env


class Ran:
    """A program's run: its summary, each cell's printed text, its working folder."""

    def __init__(self, name, engine, tmp_path):
        n_cells, options = PROGRAMS[name]
        res = subprocess.run([sys.executable, str(CELLS), str(HERE / f"{name}.py"),
                              "--workdir", str(tmp_path), *options],
                             capture_output=True, text=True, timeout=600,
                             env=_env(tmp_path, engine), cwd=tmp_path)
        self.stdout, self.stderr, self.folder = res.stdout, res.stderr, tmp_path
        self.summary = json.loads(res.stdout.strip().splitlines()[-1])
        self.n_cells = n_cells
        parts = re.split(r"^--- cell (\d+)\n", res.stdout, flags=re.M)
        self.cell = {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _op_names(path):
    events = json.loads(Path(path).read_text())["traceEvents"]
    return {e["name"] for e in events if e.get("ph") == "X"}


def _validate(path):
    res = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate", str(path)],
                         capture_output=True, text=True, timeout=120)
    return res.returncode, res.stdout + res.stderr


# -- what each page shows -----------------------------------------------------------------
def _numbers(text):
    return [float(x) for x in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text)]


def check_guide_profiler(r):
    assert "Time for converting to numpy" in r.cell[1]
    # cell 8 prints the CNN's aggregate table (MXNet keeps the statistics of the
    # finished session until dumps(reset=True))
    assert "_backward_Convolution" in r.cell[8] and "FullyConnected" in r.cell[8], r.cell[8]
    # cell 9's dump(finished=False) keeps the CNN's events cell 7 wrote, in valid JSON
    after9 = r.folder / "after-9" / "profile_output.json"
    names = _op_names(after9)
    assert {"Convolution", "_backward_Convolution"} <= names, sorted(names)[:40]
    code, out = _validate(after9)
    assert code == 0 and " 0 errors" in out, out
    # the custom operator, called with an np array: its Python and its sub-operators
    # under MXNet 2's names. Cell 10's set_config names no file: as in MXNet, the
    # default, profile.json, from then on; the CNN's file keeps what it holds
    names = _op_names(r.folder / "profile.json")
    assert {"MyAddOne::pure_python", "MyAddOne::_npi_add_scalar"} <= names, sorted(names)
    assert "MyAddOne" in r.cell[10]
    for final in ("profile.json", "profile_output.json"):
        code, out = _validate(r.folder / final)
        assert code == 0 and " 0 errors" in out, (final, out)
    assert {"Convolution", "_backward_Convolution"} <= _op_names(r.folder /
                                                                   "profile_output.json")


def check_crash_1_nparray(r):
    assert "((2, 3), 6, dtype('float32'))" in r.cell[6]          # random draws: float32
    assert "int8" in r.cell[7] and "float32" in r.cell[9]


def check_crash_2_create_nn(r):
    assert "Dense(-1 -> 5, linear)" in r.cell[2]
    assert "(1, 1000)" in r.cell[21]
    # the exported hybrid MLP is a real graph: one node per operator, named by layer
    graph = json.loads((r.folder / "MLP_hybrid-symbol.json").read_text())
    ops = [n for n in graph["nodes"] if n["op"] != "null"]
    assert [n["op"] for n in ops].count("FullyConnected") == 3, ops
    assert any(n["name"].startswith("dense") for n in ops), ops


def check_crash_3_autograd(r):
    assert _numbers(r.cell[6]) == [4.0, 8.0, 12.0, 16.0], r.cell[6]   # d(2x^2)/dx = 4x
    assert "True\nTrue" in r.cell[10]


def check_crash_4_components(r):
    assert "(shape=(25, -1)" in r.cell[3] and "(shape=(25, 5)" in r.cell[4]
    # step(ignore_stale_grad=True) with no backward since: nothing is updated (MXNet)
    assert _numbers(r.cell[16]) == _numbers(r.cell[15]), (r.cell[15], r.cell[16])


def check_crash_6_train_nn(r):
    assert "[Epoch 2] validation: validation accuracy=" in r.cell[16]
    assert "Image shape: (48, 72, 3)" in r.cell[5]


def check_vae(r):
    losses = re.findall(r"Epoch(\d+), Training loss ([\d.]+), Validation loss ([\d.]+)",
                        r.cell[5])
    assert [int(e) for e, _, _ in losses] == list(range(0, 50, 5)), r.cell[5][-800:]
    # random pixels: the best Bernoulli decoder predicts 1/2, a loss of 784 log 2 = 543.4
    first, last = float(losses[0][1]), float(losses[-1][1])
    assert last <= first and 540 < last < 560, losses


CHECKS = {name: globals()[f"check_{name}"] for name in PROGRAMS}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_cell_of_the_page_runs(name, engine, tmp_path):
    r = Ran(name, engine, tmp_path)
    s = r.summary
    assert s["failed"] == [] and s["ran"] == s["cells"] == r.n_cells, \
        json.dumps(s["failed"], indent=1) + r.stderr[-3000:]
    CHECKS[name](r)


def test_the_mxnet2_sample_under_the_quick_start(tmp_path):
    """``xprof run --stats sample_scripts/gluon2_custom_ops.py``: the custom operators'
    calls broken down, their Python and np sub-operators in the trace, the hybridized
    half's operators each an event with its layer's name."""
    script = REPO / "sample_scripts" / "gluon2_custom_ops.py"
    res = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "--stats",
                          "-o", "profile.json", str(script)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300,
                         env=_env(tmp_path, "ThreadedEngine"))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "hybridized: loss" in res.stdout
    summary = res.stdout + res.stderr
    for op in ("Softsign", "ScaledTanh"):    # a row of the custom-op call breakdown each
        assert re.search(rf"^\s*{op}\s+8(\s+calls)?\s", summary, re.M), summary[-3000:]
    events = json.loads((tmp_path / "profile.json").read_text())["traceEvents"]
    names = {e["name"] for e in events if e.get("ph") == "X"}
    assert {"Softsign::pure_python", "ScaledTanh::_npi_tanh"} <= names, sorted(names)
    convs = [e for e in events if e.get("name") == "Convolution" and e.get("ph") == "X"
             and e.get("cat") == "operator"]
    layers = {e["args"].get("name") for e in convs}
    assert "conv0" in layers and "conv0_fwd" in layers, layers   # imperative, hybridized
    assert all("dep" in e["args"] for e in convs)
