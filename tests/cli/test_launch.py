"""``xprof run --nproc N`` (cli/launch.py): N ranked copies, each writing its own
profile; the job's exit code; SIGTERM passed on to every copy."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from cli_helpers import cli_subprocess

from xprof.cli.launch import copy_arguments
from xprof.cli.run import run


def test_copies_get_the_same_options():
    ctx = run.make_context("run", ["--nproc", "3", "-o", "x.json", "--bulk", "-q",
                                   "--mode", "api", "train.py", "--epochs", "1"])
    assert copy_arguments(ctx, {"nproc"}) == ["-o", "x.json", "--mode", "api", "--bulk",
                                               "-q", "train.py", "--epochs", "1"]
    ctx = run.make_context("run", ["--nproc", "2", "-m", "pkg.train", "--lr", "3"])
    assert copy_arguments(ctx, {"nproc"}) == ["-m", "pkg.train", "--lr", "3"]


def test_exit_code_is_the_first_failing_ranks(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import os, sys\nimport xprof.runtime as mx\n"
                      "mx.nd.ones((2, 2)).wait_to_read()\n"
                      "sys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    res = cli_subprocess("run", "--nproc", "3", "-o", tmp_path / "p.json", script,
                         timeout=240)
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
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    job = subprocess.Popen([sys.executable, "-m", "xprof.cli", "run", "--nproc", "2", "-q",
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
