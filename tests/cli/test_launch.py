"""``xprof run --nproc N`` (cli/runner/launch.py) with xprof's own launcher
(``XPROF_RUN_MPIEXEC=none``; through mpiexec: tests/dist): N ranked copies, each writing
its own profile; the job's exit code; SIGTERM passed on to every copy."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from cli_helpers import cli_subprocess

from xprof.mxcli.runner.launch import copy_arguments
from xprof.mxcli.run import run


def test_copies_get_the_same_options():
    ctx = run.make_context("run", ["--nproc", "3", "-o", "x.json", "--bulk", "-q",
                                   "--mode", "api", "train.py", "--epochs", "1"])
    assert copy_arguments(ctx, {"nproc"}) == ["-o", "x.json", "--mode", "api", "--bulk",
                                               "-q", "train.py", "--epochs", "1"]
    ctx = run.make_context("run", ["--nproc", "2", "-m", "pkg.train", "--lr", "3"])
    assert copy_arguments(ctx, {"nproc"}) == ["-m", "pkg.train", "--lr", "3"]


OWN = {"XPROF_RUN_MPIEXEC": "none"}   # xprof's launcher even with the dist extra installed


def test_exit_code_is_the_first_failing_ranks(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import os, sys\nimport xprof.runtime as mx\n"
                      "mx.nd.ones((2, 2)).wait_to_read()\n"
                      "sys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    res = cli_subprocess("run", "--nproc", "3", "-o", tmp_path / "p.json", script,
                         timeout=240, env=OWN)
    assert res.returncode == 3, res.stderr
    assert sorted(p.name for p in tmp_path.glob("p.rank*.json")) == \
        ["p.rank0.json", "p.rank1.json", "p.rank2.json"]
    assert "xprof: 3 processes ran; profiles: " in res.stderr
    assert not (tmp_path / "p.json").exists()


def test_sigterm_reaches_every_copy_and_each_writes_its_profile(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import os, time\nimport xprof.runtime as mx\n"
                      "mx.nd.ones((2, 2)).wait_to_read()\n"
                      "open('ready' + os.environ['RANK'], 'w').close()\n"
                      "while True:\n    time.sleep(0.05)\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))},
           **OWN}
    job = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", "--nproc", "2", "-q",
                            "-o", "p.json", str(script)], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready{r}").exists() for r in (0, 1)):
            assert time.monotonic() < deadline and job.poll() is None, job.stderr.read()
            time.sleep(0.05)                  # polling for both copies to start, bounded
        job.send_signal(signal.SIGTERM)
        out, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode != 0
    for r in (0, 1):
        assert (tmp_path / f"p.rank{r}.json").stat().st_size > 0, err


def _job(tmp_path, body):
    script = tmp_path / "job.py"
    script.write_text("import os, sys, time\nimport xprof.runtime as mx\n"
                      "mx.nd.ones((2, 2)).wait_to_read()\n"
                      "open(os.path.join(os.path.dirname(__file__), 'ready' + "
                      "os.environ['RANK']), 'w').close()\n" + body)
    return script


def test_a_crashed_rank_ends_the_job_and_is_named(tmp_path):
    """Rank 1 dies by SIGKILL while rank 0 would run for ever: the job ends within the
    grace periods, says which rank failed and how, and exits 128 + 9."""
    script = _job(tmp_path, "if os.environ['RANK'] == '1':\n"
                            "    os.kill(os.getpid(), 9)\n"
                            "while True:\n    time.sleep(0.05)\n")
    t0 = time.monotonic()
    res = cli_subprocess("run", "--nproc", "2", "-o", tmp_path / "p.json", script,
                         timeout=120, env=OWN)
    assert res.returncode == 128 + 9, res.stderr
    assert "xprof: rank 1 failed (killed by SIGKILL); stopping the other ranks" in res.stderr
    assert time.monotonic() - t0 < 60          # (for ever before)
    assert (tmp_path / "p.rank0.json").is_file()   # the stopped rank wrote its profile


def test_timeout_stops_a_hung_job(tmp_path):
    script = _job(tmp_path, "while True:\n    time.sleep(0.05)\n")
    res = cli_subprocess("run", "--nproc", "2", "--timeout", "3", "-o", tmp_path / "p.json",
                         script, timeout=120, env=OWN)
    assert res.returncode == 124, res.stderr
    assert "xprof: the job ran past --timeout 3 s; stopping its ranks" in res.stderr
    assert sorted(p.name for p in tmp_path.glob("p.rank*.json")) == ["p.rank0.json",
                                                                     "p.rank1.json"]


def test_timeout_without_nproc_is_refused(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("open('started', 'w').close()\n")
    res = cli_subprocess("run", "--timeout", "3", script)
    assert res.returncode == 2 and "--timeout 3 bounds a job of ranks" in res.stderr


def test_ranks_die_with_a_killed_launcher(tmp_path):
    script = _job(tmp_path, "p = 'pid' + os.environ['RANK']\n"   # whole when it appears:
                            "with open(p + '.tmp', 'w') as f:\n"   # written, then renamed
                            "    f.write(str(os.getpid()))\n"
                            "os.replace(p + '.tmp', p)\n"
                            "while True:\n    time.sleep(0.05)\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))},
           **OWN}
    job = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", "--nproc", "2", "-q",
                            "-o", "p.json", str(script)], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"pid{r}").exists() for r in (0, 1)):
            assert time.monotonic() < deadline and job.poll() is None
            time.sleep(0.05)                  # polling for both copies to start, bounded
        pids = [int((tmp_path / f"pid{r}").read_text()) for r in (0, 1)]
        ranks = [int(subprocess.run(["ps", "-o", "ppid=", "-p", str(p)], capture_output=True,
                                    text=True).stdout) for p in pids]
        job.kill()                            # SIGKILL: the launcher cannot pass anything on
        job.wait()
        deadline = time.monotonic() + 60
        alive = pids
        while alive and time.monotonic() < deadline:
            alive = [p for p in pids if _alive(p)]
            time.sleep(0.1)                   # polling for the ranks to end, bounded
        assert not alive, f"orphan ranks {alive} (parents {ranks})"
    finally:
        if job.poll() is None:
            job.kill()


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False
