"""The distributed kvstores' tests run real jobs: ``xprof run --nproc N`` starting N
ranks through the dist extra's ``mpiexec``, every job bounded by a timeout.

Without the extra (mpi4py and an mpiexec) these tests are skipped, with the reason; CI
installs it and sets ``XPROF_REQUIRE_DIST=1`` (``.ci/run``), which turns a missing
extra into a failure, so CI always runs them.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))

from xprof.mxcli.runner.launch import mpiexec  # noqa: E402

JOBS = Path(__file__).resolve().parent / "jobs"


@pytest.fixture(autouse=True)
def dist_extra(monkeypatch):
    """Skip (or, under CI, fail) when the dist extra is missing."""
    monkeypatch.delenv("XPROF_RUN_MPIEXEC", raising=False)
    if mpiexec() is None:
        reason = "the dist extra is not installed: pip install -e '.[dist]'"
        if os.environ.get("XPROF_REQUIRE_DIST") == "1":
            pytest.fail(f"XPROF_REQUIRE_DIST=1 but {reason}")
        pytest.skip(reason)

# MXNet's own scripts (and the stand-in module they import) are run as jobs, not collected
collect_ignore = ["mxnet_nightly"]
