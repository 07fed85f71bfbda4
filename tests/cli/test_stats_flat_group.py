"""``xprof stats --flat [--include-waits]`` and ``--group-by name|layer|shape``."""
from __future__ import annotations

import csv
import io
import json

from cli_helpers import X, cli, meta, write_trace


def _trace(tmp_path):
    events = meta() + [
        X("waitall", 0, 5000, cat="API"),
        X("wait_to_read", 6000, 100, cat="API"),
        X("invoke", 5000, 50, cat="API"),
        X("Convolution", 0, 3000, tid=2, args={"name": "conv0", "Input Dims": [[8, 1, 28, 28], [4, 1, 3, 3]]}),
        X("Convolution", 3000, 1000, tid=2, args={"name": "conv1", "Input Dims": [[8, 4, 26, 26], [4, 4, 3, 3]]}),
        X("Convolution", 4000, 1000, tid=2, args={"name": "conv1", "Input Dims": [[8, 4, 26, 26], [4, 4, 3, 3]]}),
        X("relu", 5000, 200, tid=2),
        X("MyOp::pure_python", 0, 2500, tid=3, cat="Custom Operator"),
        X("MyOp::dot", 500, 1500, tid=3, cat="Custom Operator"),     # nested: Self of pure_python 1000
    ]
    return write_trace(tmp_path / "t.json", events)


def _json(*args):
    res = cli("stats", *map(str, args), "--format", "json")
    assert res.exit_code == 0, res.stderr + res.stdout
    return json.loads(res.stdout)


def test_flat_ranks_all_domains_without_sync_waits(tmp_path):
    obj = _json(_trace(tmp_path), "--flat")
    assert list(obj) == ["Flat", "Unit"]
    rows = obj["Flat"]
    assert [(r["Domain"], r["Name"]) for r in rows] == [
        ("operator", "Convolution"), ("Custom Operator", "MyOp::pure_python"),
        ("Custom Operator", "MyOp::dot"), ("operator", "relu"), ("API", "invoke")]
    assert rows[0]["Total"] == 5.0 and rows[0]["Count"] == 3
    by_self = _json(_trace(tmp_path), "--flat", "--sort-by", "self")["Flat"]
    assert [r["Name"] for r in by_self][:3] == ["Convolution", "MyOp::dot", "MyOp::pure_python"]
    assert by_self[2]["Self"] == 1.0


def test_flat_include_waits_top_and_domain(tmp_path):
    rows = _json(_trace(tmp_path), "--flat", "--include-waits", "--top", "2")["Flat"]
    assert [r["Name"] for r in rows] == ["waitall", "Convolution"]   # a tie (5 ms): by domain
    rows = _json(_trace(tmp_path), "--flat", "--domain", "API", "--include-waits")["Flat"]
    assert {r["Domain"] for r in rows} == {"API"} and len(rows) == 3


def test_flat_table_and_csv(tmp_path):
    text = cli("stats", str(_trace(tmp_path)), "--flat").stdout
    lines = text.splitlines()
    assert lines[0] == "Flat" and lines[2].split()[:3] == ["Name", "Domain", "Count"]
    assert lines[4].split()[:3] == ["Convolution", "operator", "3"]
    assert "waitall" not in text
    rows = list(csv.reader(io.StringIO(cli("stats", str(_trace(tmp_path)), "--flat",
                                           "--format", "csv").stdout)))
    assert rows[1][:4] == ["Flat", "operator", "Convolution", "3"]


def test_include_waits_needs_flat(tmp_path):
    res = cli("stats", str(_trace(tmp_path)), "--include-waits")
    assert res.exit_code == 2 and "--include-waits only applies to --flat" in res.stderr


def test_group_by_layer_is_one_row_per_layer(tmp_path):
    """Forward (imperative and a hybridized graph's ``_fwd`` node), backward, the
    layer's own activation and the updates of its parameters: one row, the layer's."""
    events = meta() + [
        X("FullyConnected", 0, 3000, tid=2, args={"name": "dense0"}),
        X("Activation", 3000, 1000, tid=2, args={"name": "dense0_relu"}),
        X("FullyConnected", 4000, 500, tid=2, args={"name": "net_dense1_fwd"}),
        X("_backward_FullyConnected", 5000, 2000, tid=2, args={"name": "dense0"}),
        X("sgd_update", 7000, 250, tid=2, args={"name": "dense0_weight"}),
        X("sgd_update", 7250, 250, tid=2, args={"name": "dense0_bias"}),
        X("_zeros", 8000, 100, tid=2),
        X("_copy", 8100, 100, tid=2),
        X("waitall", 0, 9000, cat="API"),
    ]
    ops = _json(write_trace(tmp_path / "layers.json", events), "--group-by", "layer")["Time"]
    assert ops["operator"]["dense0"]["Count"] == 5 and ops["operator"]["dense0"]["Total"] == 6.5
    assert ops["operator"]["net_dense1"]["Count"] == 1
    assert ops["operator"]["(no layer)"]["Count"] == 2
    assert set(ops["operator"]) == {"dense0", "net_dense1", "(no layer)"}
    assert "waitall" in ops["API"]      # other domains keep their names


def test_group_by_op_layer_and_shape(tmp_path):
    ops = _json(_trace(tmp_path), "--group-by", "op,layer")["Time"]["operator"]
    assert ops["Convolution (conv0)"]["Count"] == 1 and ops["Convolution (conv0)"]["Total"] == 3.0
    assert ops["Convolution (conv1)"]["Count"] == 2 and "relu" in ops
    assert "Convolution" not in ops
    ops = _json(_trace(tmp_path), "--group-by", "shape")["Time"]["operator"]
    assert ops["Convolution [[8, 4, 26, 26], [4, 4, 3, 3]]"]["Count"] == 2
    assert ops["Convolution [[8, 1, 28, 28], [4, 1, 3, 3]]"]["Total"] == 3.0
    assert _json(_trace(tmp_path))["Time"]["operator"]["Convolution"]["Count"] == 3


def test_group_by_shape_on_pytorch(traces_dir):
    ops = _json(traces_dir / "pytorch-2.13-cnn-step.json", "--group-by", "shape")["Time"]["cpu_op"]
    assert "aten::conv2d [[8, 1, 28, 28], [20, 1, 5, 5], [20], [], [], [], []]" in ops
    # self times survive regrouping
    assert all(0 <= r["Self"] <= r["Total"] for r in ops.values())
