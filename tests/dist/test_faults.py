"""A rank that raises, exits or is killed ends the whole job within seconds: the job
exits non-zero, the other ranks stop with an error naming the failed rank (and write
their traces, unless the failed rank was SIGKILLed: then mpiexec kills them), and no
process is left behind."""
from __future__ import annotations

import os
import time

import pytest

from dist_helpers import run_job


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how,named", [("raise", "exit code 1"), ("exit", "exit code 5"),
                                       ("SIGTERM", "exit code")])
def test_a_failing_rank_stops_the_others_who_write_their_traces(tmp_path, how, named):
    t0 = time.monotonic()
    res = run_job(tmp_path, "faulty.py", 2, how, timeout=120)
    took = time.monotonic() - t0
    assert res.returncode != 0
    assert f"xprof: rank 1 failed ({named}" in res.stderr, res.stderr
    assert "rank 0 stops" in res.stderr          # rank 0's own error names rank 1
    assert took < 60, took                        # (300 s of steps otherwise)
    for r in (0, 1):
        assert (tmp_path / f"p.rank{r}.json").stat().st_size > 0
    pids = [int((tmp_path / f"pid{r}").read_text()) for r in (0, 1)]
    assert not [p for p in pids if _alive(p)]


def test_a_killed_rank_ends_the_job(tmp_path):
    t0 = time.monotonic()
    res = run_job(tmp_path, "faulty.py", 2, "SIGKILL", timeout=120)
    assert res.returncode != 0
    assert time.monotonic() - t0 < 60
    pids = [int((tmp_path / f"pid{r}").read_text()) for r in (0, 1)]
    assert not [p for p in pids if _alive(p)], os.listdir(tmp_path)
