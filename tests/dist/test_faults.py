"""A rank that raises, exits or is killed ends the whole job within seconds: the job
exits non-zero, the other ranks stop with an error naming the failed rank and write
their traces, and no process is left behind (keepers included: runtime/dist/faults.py,
cli/runner/keeper.py)."""
from __future__ import annotations

import os
import time

import pytest

from cli_helpers import cli_subprocess
from dist_helpers import run_job


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _pids(tmp_path, nproc):
    """Every rank's pid and its keeper's (written by the job)."""
    return [int(p) for r in range(nproc) for p in (tmp_path / f"pid{r}").read_text().split()]


def _left_behind(tmp_path):
    """Processes still running whose command line names the job's folder (mpiexec,
    keepers, ranks all do)."""
    mark = str(tmp_path).encode()
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if mark in f.read() and _alive(int(entry)):
                        left.append(int(entry))
            except OSError:
                pass
    return left


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
    assert not [p for p in _pids(tmp_path, 2) if _alive(p)]


@pytest.mark.parametrize("nproc", [2, 3])
def test_a_rank_killed_by_sigkill_ends_the_job_and_the_others_write_their_traces(
        tmp_path, nproc):
    res = run_job(tmp_path, "faulty.py", nproc, "SIGKILL", timeout=120)
    assert res.returncode != 0, res.stderr   # Hydra ORs the ranks' codes: 137 | 1 here
    # its keeper's line, once; each other rank's own error names it
    assert res.stderr.count("xprof: rank 1 failed (killed by SIGKILL)\n") == 1, res.stderr
    survivors = [r for r in range(nproc) if r != 1]
    for r in survivors:
        assert f"rank 1 failed (gone without a word: killed by a signal, or it left " \
               f"without MPI_Finalize); rank {r} stops" in res.stderr, res.stderr
        trace = tmp_path / f"p.rank{r}.json"
        check = cli_subprocess("validate", trace)
        assert check.returncode == 0, check.stdout + check.stderr
    assert not (tmp_path / "p.rank1.json").exists()
    assert not [p for p in _pids(tmp_path, nproc) if _alive(p)]
    assert not _left_behind(tmp_path)


def test_timeout_stops_the_job_and_every_rank_writes_its_trace(tmp_path):
    res = run_job(tmp_path, "faulty.py", 2, "none", timeout=120,
                  options=("--timeout", "4"))
    assert res.returncode == 124, res.stderr
    assert "xprof: the job ran past --timeout 4 s; stopping its ranks" in res.stderr
    for r in (0, 1):
        assert (tmp_path / f"p.rank{r}.json").stat().st_size > 0
    assert not [p for p in _pids(tmp_path, 2) if _alive(p)]


def test_ranks_die_with_a_killed_launcher(tmp_path):
    import signal
    import subprocess
    import sys

    from dist_helpers import JOBS

    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    job = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", "--nproc", "2", "-q",
                            "-o", str(tmp_path / "p.json"), str(JOBS / "faulty.py"),
                            str(tmp_path), "none"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"pid{r}").exists() for r in (0, 1)):
            assert time.monotonic() < deadline and job.poll() is None
            time.sleep(0.05)                  # polling for both ranks to start, bounded
        pids = _pids(tmp_path, 2)
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
