"""``xprof stats``: the Self and % columns on xprof, MXNet and PyTorch traces."""
from __future__ import annotations

import json

import pytest

from cli_helpers import X, cli, meta, write_trace


def _json(path, *extra):
    res = cli("stats", str(path), "--format", "json", *extra)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def test_self_subtracts_direct_children_on_the_same_thread(tmp_path):
    events = meta() + [
        X("step", 0, 1000, cat="user"),                 # contains fwd (600)
        X("fwd", 100, 600, cat="user"),                 # contains conv (300) and relu (100)
        X("conv", 150, 300), X("relu", 500, 100),
        X("conv", 100, 500, tid=2),                     # another thread: nests nowhere
        {"name": "wait", "cat": "API", "ph": "B", "ts": 800, "pid": 0, "tid": 1},
        {"name": "wait", "cat": "API", "ph": "E", "ts": 900, "pid": 0, "tid": 1},
    ]
    obj = _json(write_trace(tmp_path / "t.json", events))
    t = obj["Time"]
    assert t["user"]["step"]["Self"] == pytest.approx(1000e-3 - 600e-3 - 100e-3)  # fwd, wait
    assert t["user"]["fwd"]["Self"] == pytest.approx(0.2)
    assert t["operator"]["conv"]["Self"] == t["operator"]["conv"]["Total"] == 0.8
    assert t["API"]["wait"]["Self"] == 0.1
    # % of the wall time: first start (0) to last end (1000 us)
    assert t["user"]["step"]["%"] == 100.0 and t["operator"]["conv"]["%"] == 80.0


def test_self_sort_key(tmp_path):
    events = meta() + [X("outer", 0, 1000), X("inner", 0, 900), X("mid", 2000, 500)]
    obj = _json(write_trace(tmp_path / "t.json", events), "--sort-by", "self")
    assert list(obj["Time"]["operator"]) == ["inner", "mid", "outer"]


def test_pytorch_nested_aten_ops_get_self_times(traces_dir):
    obj = _json(traces_dir / "pytorch-2.13-cnn-step.json")
    ops = obj["Time"]["cpu_op"]
    # aten::conv2d [805.993, +205.677] > aten::convolution [809.298, +202.051] > ...
    assert ops["aten::conv2d"]["Self"] == pytest.approx((205.677 - 202.051) / 1000, abs=1e-6)
    assert ops["aten::convolution"]["Self"] == pytest.approx((202.051 - 190.353) / 1000, abs=1e-6)
    for row in ops.values():
        assert 0 <= row["Self"] <= row["Total"] and 0 <= row["%"] <= 100


def test_mxnet_trace_self_and_percent(traces_dir):
    obj = _json(traces_dir / "mxnet-1.9.1-custom-sigmoid.json")
    for domain in obj["Time"].values():
        for row in domain.values():
            assert 0 <= row["Self"] <= row["Total"] + 1e-9 and "%" in row
