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
                                       ("SIGTERM", "stopped by SIGTERM, exit code 143")])
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


def test_timeout_stops_the_job_and_every_rank_writes_its_trace(tmp_path):
    res = run_job(tmp_path, "faulty.py", 2, "none", timeout=120,
                  options=("--timeout", "4"))
    assert res.returncode == 124, res.stderr
    assert "xprof: the job ran past --timeout 4 s; stopping its ranks" in res.stderr
    for r in (0, 1):
        assert (tmp_path / f"p.rank{r}.json").stat().st_size > 0
    pids = [int((tmp_path / f"pid{r}").read_text()) for r in (0, 1)]
    assert not [p for p in pids if _alive(p)]


def test_ranks_die_with_a_killed_launcher(tmp_path):
    import signal
    import subprocess
    import sys

    from dist_helpers import JOBS

    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    job = subprocess.Popen([sys.executable, "-m", "xprof.cli", "run", "--nproc", "2", "-q",
                            "-o", str(tmp_path / "p.json"), str(JOBS / "faulty.py"),
                            str(tmp_path), "none"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"pid{r}").exists() for r in (0, 1)):
            assert time.monotonic() < deadline and job.poll() is None
            time.sleep(0.05)                  # polling for both ranks to start, bounded
        pids = [int((tmp_path / f"pid{r}").read_text()) for r in (0, 1)]
        job.send_signal(signal.SIGKILL)       # the launcher cannot pass anything on
        job.wait()
        deadline = time.monotonic() + 60
        alive = pids
        while alive and time.monotonic() < deadline:
            alive = [p for p in pids if _alive(p)]
            time.sleep(0.1)                   # polling for the ranks to end, bounded
        assert not alive, f"orphan ranks {alive}"
    finally:
        if job.poll() is None:
            job.kill()
