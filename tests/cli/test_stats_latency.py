"""``xprof stats`` Operator Latency section from the trace's dependency records."""
import json

import pytest
from cli_helpers import cli, write_trace
from deptrace import meta, op, sync


def _trace(tmp_path):
    ev = meta() + [
        op("heavy", 1, 0, 0, 1, 5001, writes=[1]),
        op("y", 2, 10, 5001.5, 5002, 5010, reads=[1], writes=[2]),
        op("MyOp::pure_python", 3, 20, 20, 30, 40, cat="Custom Operator", writes=[5]),
        sync(0, 20, 5011, [2]),
    ]
    return write_trace(tmp_path / "t.json", ev)


def test_json_section_shape_and_values(tmp_path):
    res = cli("stats", _trace(tmp_path), "--format", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert list(doc)[-1] == "Unit"
    lat = doc["Operator Latency"]
    assert set(lat) == {"heavy", "y", "MyOp::pure_python"}
    y = lat["y"]
    assert y["Count"] == 1
    # y waited for heavy: its dependency wait is ~ heavy's run (5 ms)
    assert y["Dependency"]["Avg"] == pytest.approx(4.9915)
    assert y["Queue"]["Max"] == pytest.approx(0.0005)
    assert y["Run"]["P50"] == pytest.approx(0.008)
    assert lat["MyOp::pure_python"]["Queue"]["Avg"] == pytest.approx(0.010)


def test_table_csv_domain_and_top(tmp_path):
    path = _trace(tmp_path)
    text = cli("stats", path).stdout
    assert "\nLatency\n=======" in text
    csv = cli("stats", path, "--format", "csv").stdout
    assert "Operator Latency,Dependency,y,1,,,,,4.9915,4.9915,ms" in csv
    doc = json.loads(cli("stats", path, "--format", "json", "--domain", "Custom Operator").stdout)
    assert list(doc["Operator Latency"]) == ["MyOp::pure_python"]
    doc = json.loads(cli("stats", path, "--format", "json", "--top", "1").stdout)
    assert list(doc["Operator Latency"]) == ["heavy"]


def test_traces_without_dependency_records_have_no_section(tmp_path):
    path = write_trace(tmp_path / "plain.json", meta() + [
        {"name": "a", "cat": "operator", "ph": "X", "ts": 1, "dur": 2, "pid": 0, "tid": 1}])
    doc = json.loads(cli("stats", path, "--format", "json").stdout)
    assert "Operator Latency" not in doc
    assert "Latency" not in cli("stats", path).stdout
