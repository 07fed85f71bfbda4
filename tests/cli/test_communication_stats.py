"""cli/analysis/communication.py and cli/analysis/stragglers.py on hand-made
events: HTA's overlap per rank, the communication table, steps and their straggler."""
from __future__ import annotations

from xprof.mxcli.analysis.stragglers import arrivals, steps
from xprof.mxcli.analysis.communication import communication_rows, of_trace, overlap_rows
from xprof.traces.model import from_events


def _coll(pid, ts, dur, size=4000, name="KVStoreDistDefaultPush", **args):
    return {"ph": "X", "pid": pid, "tid": 9, "ts": ts, "dur": dur, "name": name,
            "cat": "operator", "args": {"Collective name": "allreduce",
                                        "In msg size": size, **args}}


def _op(pid, ts, dur, name="dot"):
    return {"ph": "X", "pid": pid, "tid": 1, "ts": ts, "dur": dur, "name": name,
            "cat": "operator"}


def test_overlap_is_computation_during_communication_over_communication():
    c = of_trace(from_events([
        {"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "rank 0: x"}},
        _coll(0, 100, 100), _coll(0, 150, 100),       # communicating 100..250
        _op(0, 0, 120), _op(0, 110, 20),              # computing 0..130: 30 shared
        _op(0, 240, 100), _op(0, 200, 5, name="KVStoreReduce")]))   # 10; not compute
    row = overlap_rows(c)["rank 0"]
    assert row == {"Communication": 0.15, "Computation": 0.23, "Overlapped": 0.04,
                   "Overlap %": 26.67}


def test_communication_rows_sum_count_bytes_time():
    c = of_trace(from_events([_coll(0, 0, 1000, size=2_000_000),
                              _coll(1, 0, 3000, size=2_000_000)]))
    row = communication_rows(c)["KVStoreDistDefaultPush (allreduce)"]
    assert row == {"Count": 2, "MB": 4.0, "Total": 4.0, "Avg": 2.0, "GB/s": 1.0}


def _late(seq, key, last, late, collective="allreduce"):
    return _coll(0, seq, 1, Seq=seq, Key=key, **{"Last to arrive": last,
                                                  "Late by ms": late,
                                                  "Collective name": collective})


def test_steps_end_where_a_key_comes_round_again():
    tl = from_events([_late(0, "a", 0, 9.0, "broadcast"), _late(1, "a", 1, 2.0),
                      _late(2, "b", 0, 1.0), _late(3, "b", 1, 50.0), _late(4, "a", 1, 40.0),
                      _late(5, "a", 0, 0.5),
                      _late(3, "b", 1, 50.0)])   # the same collective from another rank
    got = steps(arrivals(tl.collectives))
    assert [(x["step"], x["collectives"], x["last_rank"], x["last_at"], x["waited_ms"])
            for x in got] == [(1, 2, 1, 1, 2.0), (2, 2, 1, 2, 50.0), (3, 1, 0, 1, 0.5)]
    assert got[1]["worst"]["key"] == "b"
