"""``Python Lines`` from hand-made traces (cli/analysis/pylines.py): sums over calls,
shares of the op's Python time from its call spans, blocked rows, the stated error."""
from __future__ import annotations

import json

from cli_helpers import X, cli, meta, write_trace

from xprof.mxcli.analysis import pylines

MS = 1_000_000


def root(op, call, lines, ts=0, tid=9):
    return X(op, ts, 1000, tid=tid, cat="python_line",
             args={"op": op, "call": call, "lines": lines})


def span(op, ts, python_ns, blocked_ns=0, ident=1):
    args = {"queued_ns": 0, "inputs_ns": 0, "pool_ns": 0, "python_ns": python_ns,
            "blocked_ns": blocked_ns, "tail_ns": 0, "sub_operators_ns": 0, "setup_ns": 0}
    return [{"name": op, "cat": "Custom Operator", "ph": "b", "id": ident, "ts": ts,
             "pid": 0, "tid": 1, "args": args},
            {"name": op, "cat": "Custom Operator", "ph": "e", "id": ident,
             "ts": ts + (python_ns + blocked_ns) / 1000, "pid": 0, "tid": 1}]


def trace(tmp_path):
    """Three calls of MyOp (spans: 40 ms Python + 10 Blocked, 40, 20); the sampler
    covered the first two (their roots: 80 ms of Python in lines, and the wait) and
    missed the third, a short one."""
    events = meta() + meta(tid=9, thread="python lines: custom op worker 0")[1:]
    events += span("MyOp", 0, 40 * MS, 10 * MS, 1) + span("MyOp", 100_000, 40 * MS, 0, 2)
    events += span("MyOp", 200_000, 20 * MS, 0, 3)
    events.append(root("MyOp", 1, [["work", "/src/op.py", 12, 30 * MS, 30, None],
                                   ["MyOp.forward", "/src/op.py", 30, 10 * MS, 10, None],
                                   ["NDArray.asnumpy", "/x/ndarray.py", 5, 10 * MS, 10,
                                    "asnumpy"]]))
    events.append(root("MyOp", 2, [["work", "/src/op.py", 12, 40 * MS, 40, None]], ts=100_000))
    events.append(X("work:12", 10, 5, tid=9, cat="python_line", args={"file": "/src/op.py"}))
    return write_trace(tmp_path / "t.json", events)


def test_rows_sum_over_calls_as_shares_of_python_time(tmp_path):
    """Shares are of the sampled calls' Python time (80 ms in lines: work 70, forward
    10); self_ms is that share of every call's Python time (100 ms from the spans), so
    the missed call moves no share and the rows add up to the op's Python time."""
    res = cli("stats", trace(tmp_path), "--lines", "--format", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    rows = doc["Python Lines"]["MyOp"]
    assert [r["function"] for r in rows] == ["work", "MyOp.forward", "(blocked in asnumpy)"]
    work = rows[0]
    assert (work["file"], work["line"], work["self_ms"], work["%"]) == ("/src/op.py", 12, 87.5, 87.5)
    assert (rows[1]["self_ms"], rows[1]["%"]) == (12.5, 12.5)
    # the wait: its measured time, a share of the op's Blocked time (10 ms)
    assert rows[2]["line"] is None and rows[2]["self_ms"] == 10.0 and rows[2]["%"] == 100.0
    s = doc["Python Lines Sampling"]["MyOp"]
    assert s["python_ms"] == 100.0 and s["sampled_ms"] == 80.0 and s["samples"] == 90
    assert s["calls"] == 2 and s["op_calls"] == 3
    # 95% error of a share from 80 samples, at most (p = 0.5)
    assert s["error_%"] == round(pylines.error_points(0.5, 80), 1) == 11.0


def test_table_states_the_error_and_frame_slices_are_no_time_rows(tmp_path):
    path = trace(tmp_path)
    res = cli("stats", path, "--lines", "MyOp")
    assert res.exit_code == 0, res.stderr
    assert "MyOp: 100.000 ms Python over 2 sampled calls of 3; 90 samples" in res.stdout
    assert "±11.0 points at most (95%)" in res.stdout
    assert "(blocked in asnumpy)" in res.stdout
    plain = cli("stats", path, "--format", "json")
    assert "python_line" not in json.loads(plain.stdout)["Time"]


def test_top_line_and_description(tmp_path):
    src = tmp_path / "op.py"
    src.write_text("x = 1\ny = np.einsum('ij->i', a)\n")
    row = {"function": "f", "file": str(src), "line": 2, "%": 62.4}
    assert pylines.describe("MyOp", row) == "62% in line 2 `y = np.einsum('ij->i', a)`"
    gone = dict(row, file=str(tmp_path / "gone.py"))
    assert pylines.describe("MyOp", gone) == "62% in f (gone.py:2)"
    blocked = {"function": "(blocked in asnumpy)", "file": "", "line": None, "%": 90}
    assert pylines.top_line([blocked, row]) is row


def test_lines_option_followed_by_the_trace_reads_that_trace(tmp_path):
    path = trace(tmp_path)
    res = cli("stats", "--lines", path)
    assert res.exit_code == 0, res.stderr
    assert "MyOp: 100.000 ms Python" in res.stdout
    res = cli("stats", "--lines", "MyOp", path)
    assert res.exit_code == 0 and "MyOp: 100.000 ms Python" in res.stdout


def test_an_op_whose_samples_all_waited_states_a_bound_from_its_waits(tmp_path):
    """Every sample of the calls blocked (its Python shorter than a tick): the header's
    error comes from the blocked samples, not "±100 points" from no Python samples; a
    blocked row whose ticks weigh more than the op's Blocked time is 100%, never more."""
    events = meta() + meta(tid=9, thread="python lines: custom op worker 0")[1:]
    events += span("Waits", 0, 1 * MS, 20 * MS, 1) + span("Waits", 100_000, 1 * MS, 20 * MS, 2)
    events.append(root("Waits", 1, [["NDArray.wait_to_read", "/x/ndarray.py", 5, 21 * MS, 21,
                                     "wait_to_read"]]))
    events.append(root("Waits", 2, [["NDArray.wait_to_read", "/x/ndarray.py", 5, 21 * MS, 21,
                                     "wait_to_read"]], ts=100_000))
    res = cli("stats", write_trace(tmp_path / "w.json", events), "--lines", "--format", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    row = doc["Python Lines"]["Waits"][0]
    assert row["function"] == "(blocked in wait_to_read)"
    assert row["%"] == 100.0 and row["self_ms"] == 40.0    # 42 ms of ticks, 40 blocked
    assert doc["Python Lines Sampling"]["Waits"]["error_%"] == \
        round(pylines.error_points(0.5, 42), 1) < 100
