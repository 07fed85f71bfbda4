"""``xprof stats``: the Custom Operator Calls section from call spans (and the MXNet fallback)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from cli_helpers import X, cli, meta, write_trace
from xprof.traces import callstats as C

LAT_KEYS = ["Total", "Min", "Max", "Avg", "P50", "P95"]
ROW_KEYS = ["Count", "Latency", "Queued", "Inputs", "Backlog", "Producer", "Pool", "Python",
            "Blocked", "Tail", "Own", "Ahead", "Sub-operators", "Setup"]


def call(name, cid, t0_ns, q, p, b, t, sub, tid=1, inputs=None, setup=0):
    """A call span as xprof writes it: ts in exact integer ns (``e-3`` us); ``inputs``
    None: as written before Queued was split (no inputs_ns/pool_ns/setup_ns)."""
    if inputs is None:
        args = {"queued_ns": q, "python_ns": p, "blocked_ns": b, "tail_ns": t,
                "sub_operators_ns": sub}
    else:
        args = C.arg_values(inputs, q - inputs, p, b, t, sub, setup)
    begin = {"name": name, "cat": "Custom Operator", "ph": "b", "id": cid, "pid": 0, "tid": tid,
             "ts": t0_ns / 1000, "args": args}
    end = {"name": name, "cat": "Custom Operator", "ph": "e", "id": cid, "pid": 0, "tid": tid,
           "ts": (t0_ns + q + p + b + t) / 1000}
    return [begin, end]


def _json(path):
    res = cli("stats", str(path), "--format", "json")
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


@pytest.fixture
def calls_trace(tmp_path):
    events = meta()
    # Waiter: 3 calls; latencies 1000, 2000, 9000 ns (ns exact through the e-3 encoding)
    # (Inputs 40 + 100 + 900 of the Queued 100 + 300 + 1000; Setup on the first call)
    events += call("Waiter", 1, 10_000, 100, 200, 600, 100, 300, inputs=40, setup=3000)
    events += call("Waiter", 2, 20_000, 300, 400, 1200, 100, 500, inputs=100)
    events += call("Waiter", 3, 30_000, 1000, 1000, 6000, 1000, 700, tid=2, inputs=900)
    # written before Queued was split: Inputs, Pool and Setup unknown
    events += call("_backward_Waiter", 4, 50_000, 10, 20, 30, 40, 5)
    events += [X("Waiter::pure_python", 10.1, 0.8, cat="Custom Operator", tid=3),
               X("Waiter::dot", 10.5, 0.3, cat="Custom Operator", tid=4)]
    return write_trace(tmp_path / "calls.json", events)


def test_section_keys_values_and_exact_sum(calls_trace):
    obj = _json(calls_trace)
    sec = obj["Custom Operator Calls"]
    assert list(sec) == ["Waiter", "_backward_Waiter"]      # by own cost over the calls
    w = sec["Waiter"]
    assert list(w) == ROW_KEYS and list(w["Latency"]) == LAT_KEYS
    assert w["Count"] == 3
    assert w["Latency"] == {"Total": 0.012, "Min": 0.001, "Max": 0.009, "Avg": 0.004,
                            "P50": 0.002, "P95": 0.009}
    assert w["Queued"] == pytest.approx(1400 / 3 / 1e6, abs=1e-6)
    assert w["Blocked"] == pytest.approx(7800 / 3 / 1e6, abs=1e-6)
    assert w["Sub-operators"] == 0.0005
    assert w["Inputs"] == pytest.approx(1040 / 3 / 1e6, abs=1e-6)
    assert w["Pool"] == pytest.approx(360 / 3 / 1e6, abs=1e-6)
    assert w["Setup"] == 0.001                               # 3000 ns over 3 calls
    back = sec["_backward_Waiter"]
    assert back["Queued"] == 0.00001
    assert back["Inputs"] is back["Pool"] is back["Setup"] is None
    # written before Inputs was split (no backlog_ns): Backlog and Producer unknown
    assert w["Backlog"] is w["Producer"] is None
    assert w["Own"] == pytest.approx(w["Python"] + w["Blocked"] + w["Tail"], abs=1e-9)
    # pushed at 10, 20 and 30 us, done 1, 2 and 9 us later: none in flight at a push
    assert w["Ahead"] == 0.0
    assert sum(w[k] for k in ("Queued", "Python", "Blocked", "Tail")) == pytest.approx(
        w["Latency"]["Avg"], abs=1e-9)
    # call spans are not Time rows; the other Custom Operator rows stay
    assert "Waiter" not in obj["Time"]["Custom Operator"]
    assert "Waiter::pure_python" in obj["Time"]["Custom Operator"]


def test_table_and_csv_show_the_section(calls_trace):
    res = cli("stats", str(calls_trace))
    block = res.stdout.split("Custom Operator Calls\n")[1]
    header, _, first = block.splitlines()[1:4]
    names = header.split()
    assert names[2] == "Latency/call" and "Latency (ms)" not in header   # per call, not a sum
    for col in ("Queued", "Inputs", "Pool", "Sub-operators", "Setup"):
        assert f"{col} (ms)" in header
    cells = first.split()
    assert cells[0] == "Waiter" and cells[1] == "3"
    assert float(cells[2]) == 0.004                        # the average, not the 0.012 sum
    shares = [float(cells[i]) for i in (7, 17, 19, 21)]    # Queued, Python, Blocked, Tail %
    assert sum(shares) == pytest.approx(100.0, abs=0.2)
    assert float(cells[9]) + float(cells[15]) == pytest.approx(float(cells[7]), abs=0.11)
    assert cells[10:14] == ["unknown"] * 4                 # Backlog, Producer: not written
    assert "per call (ms)" in block
    back = [line for line in block.splitlines() if line.startswith("_backward_Waiter")][0]
    assert back.split()[8:16] == ["unknown"] * 8             # Inputs..Pool of an older trace
    rows = list(csv.DictReader(io.StringIO(cli("stats", str(calls_trace), "--format", "csv").stdout)))
    lat = [r for r in rows if r["section"] == "Custom Operator Calls" and r["name"] == "Latency"]
    assert [(r["domain"], r["count"], r["total"]) for r in lat] == [
        ("Waiter", "3", "0.012"), ("_backward_Waiter", "1", "0.0001")]


def test_percentiles_nearest_rank():
    assert C.percentile([1, 2, 3, 4], 50) == 2 and C.percentile([1, 2, 3, 4], 95) == 4
    assert C.percentile([7], 50) == 7 == C.percentile([7], 95)
    values = list(range(1, 101))
    assert C.percentile(values, 95) == 95 and C.percentile(values, 50) == 50


def test_a_cut_call_is_dropped(tmp_path):
    events = meta() + call("Op", 1, 0, 1, 2, 3, 4, 0)[:1] + call("Op", 2, 100, 1, 2, 3, 4, 0)
    obj = _json(write_trace(tmp_path / "cut.json", events))
    assert obj["Custom Operator Calls"]["Op"]["Count"] == 1


def test_no_section_without_custom_ops(tmp_path):
    obj = _json(write_trace(tmp_path / "plain.json", meta() + [X("conv", 0, 10)]))
    assert "Custom Operator Calls" not in obj


def test_mxnet_fallback_says_what_is_unknown(traces_dir):
    obj = _json(traces_dir / "mxnet-1.9.1-custom-sigmoid.json")
    sec = obj["Custom Operator Calls"]
    assert set(sec) == {"MySigmoid", "_backward_MySigmoid"}
    fwd = sec["MySigmoid"]
    assert list(fwd) == ROW_KEYS
    assert fwd["Count"] == 1 and fwd["Python"] == 1.227          # MySigmoid::pure_python
    # MySigmoid:: (1) + ::WaitForVar (9) + ::CopyCPU2CPU (4) + ::_zeros (25) us
    assert fwd["Sub-operators"] == 0.039
    assert fwd["Queued"] is fwd["Blocked"] is fwd["Tail"] is None
    assert fwd["Inputs"] is fwd["Pool"] is fwd["Setup"] is None
    assert set(fwd["Latency"].values()) == {None}
    assert sec["_backward_MySigmoid"]["Sub-operators"] == 0.011
    text = cli("stats", str(traces_dir / "mxnet-1.9.1-custom-sigmoid.json")).stdout
    calls = text.split("Custom Operator Calls\n")[1]
    assert "unknown" in calls and "0.0000" not in calls.splitlines()[3]
