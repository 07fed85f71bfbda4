"""On the merged traces of a 2-rank job whose rank 1 sleeps before one backward pass:
``xprof explain`` names rank 1 as that step's straggler, by most of the sleep, and
``xprof stats --by-process`` has the Communication table and each rank's Overlap."""
from __future__ import annotations

import json

import pytest

from cli_helpers import cli_subprocess
from dist_helpers import run_job


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("straggler")
    res = run_job(tmp, "straggler.py", 2, "1")
    assert res.returncode == 0, res.stderr
    out = tmp / "merged.json"
    res = cli_subprocess("trace", tmp / "p.rank0.json", tmp / "p.rank1.json", "-o", out)
    assert res.returncode == 0, res.stderr
    return out


def test_explain_names_the_straggler_of_each_step(merged):
    res = cli_subprocess("explain", merged, "--format", "json")
    assert res.returncode == 0, res.stderr
    steps = json.loads(res.stdout)["stragglers"]
    assert [s["step"] for s in steps] == [1, 2, 3, 4]    # init's broadcasts are no step
    slow = steps[1]
    assert slow["last_rank"] == 1 and slow["last_at"] == slow["collectives"] == 6
    # it slept 1 s, while rank 0 computed its own gradients (slower on 2 busy cores)
    assert 500 <= slow["waited_ms"] < 5000
    assert all(s["waited_ms"] < 500 for i, s in enumerate(steps) if i != 1)
    text = cli_subprocess("explain", merged).stdout
    assert "step   2: rank 1 last at 6 of 6 collectives" in text


def test_stats_by_process_has_communication_and_overlap(merged):
    res = cli_subprocess("stats", merged, "--by-process", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    rows = doc["Communication"]["collectives"]
    pushpull = rows["KVStoreDistDefaultStoragePushPull (allreduce)"]
    assert pushpull["Count"] == 2 * 4 * 6                # ranks x steps x parameters
    assert pushpull["MB"] > 0 and pushpull["GB/s"] > 0
    assert rows["KVStoreDistDefaultStoragePull (broadcast)"]["Count"] == 2 * 6
    overlap = doc["Overlap"]["ranks"]
    assert set(overlap) == {"rank 0", "rank 1"}
    for row in overlap.values():
        assert 0 <= row["Overlapped"] <= min(row["Communication"], row["Computation"])
        assert row["Overlap %"] == pytest.approx(100 * row["Overlapped"] /
                                                 row["Communication"], abs=0.01)
    # rank 0 waited for rank 1's 1 s sleep: most of its communication time
    assert overlap["rank 0"]["Communication"] > 500 > overlap["rank 1"]["Communication"]


def test_the_wait_for_data_is_an_async_slice(merged):
    """Rank 0's step-3 gradients needed the weights step 2's late collective gave: the
    wait for that data shows as an async slice of about rank 1's sleep."""
    doc = json.loads(merged.read_text())
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    begins = {(e["pid"], e["id"]): e["ts"] for e in events
              if e.get("ph") == "b" and e.get("name") == "wait for data"}
    waits = [e["ts"] - begins[(e["pid"], e["id"])] for e in events
             if e.get("ph") == "e" and e.get("name") == "wait for data"]
    assert waits and len(waits) == len(begins)
    assert max(waits) > 500_000                     # µs: the 1 s sleep, mostly


def test_explain_names_the_straggler_among_four_ranks(tmp_path):
    res = run_job(tmp_path, "straggler.py", 4, "2")
    assert res.returncode == 0, res.stderr
    res = cli_subprocess("explain", tmp_path / "p.rank3.json", "--format", "json")
    assert res.returncode == 0, res.stderr     # one rank's trace holds every arrival
    slow = json.loads(res.stdout)["stragglers"][1]
    assert slow["last_rank"] == 2 and slow["waited_ms"] >= 500
