"""Run a job of ranks for a test and read what it left."""
from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli_subprocess

JOBS = Path(__file__).resolve().parent / "jobs"


def run_job(tmp_path, job, nproc=2, *args, timeout=180, env=None, options=()):
    """``xprof run --nproc N -q -o tmp/p.json [options] jobs/JOB ARGS`` in ``tmp_path``
    (each rank writes there); the CompletedProcess."""
    return cli_subprocess("run", "--nproc", nproc, "-q", "-o", tmp_path / "p.json",
                          *options, JOBS / job, tmp_path, *args, timeout=timeout, env=env)


def trace(tmp_path, rank):
    return json.loads((tmp_path / f"p.rank{rank}.json").read_text())


def events(doc, name):
    return [e for e in doc["traceEvents"] if e.get("name") == name and e.get("ph") == "X"]
