"""dist_sync / dist_device_sync (runtime/dist/sync_store.py) on 2 and 4 ranks started by
``xprof run --nproc``: MXNet's semantics, sums across ranks, big keys in chunks."""
from __future__ import annotations

import json

import pytest

from dist_helpers import events, run_job, trace


@pytest.mark.parametrize("nproc,kind,engine", [(2, "dist_sync", "ThreadedEngine"),
                                               (2, "dist_sync", "NaiveEngine"),
                                               (4, "dist_device_sync", "ThreadedEngine")])
def test_sums_over_ranks(tmp_path, nproc, kind, engine):
    res = run_job(tmp_path, "sums.py", nproc, env={"KV_TYPE": kind,
                                                   "XPROF_KVSTORE_BIGARRAY_BOUND": "1000",
                                                   "XPROF_ENGINE_TYPE": engine})
    assert res.returncode == 0, res.stderr
    results = [json.loads((tmp_path / f"result{r}.json").read_text()) for r in range(nproc)]
    assert [x["rank"] for x in results] == list(range(nproc))
    assert {x["workers"] for x in results} == {nproc}
    assert {x["type"] for x in results} == {kind}
    pushpulls = [e for e in events(trace(tmp_path, 0), "KVStoreDistDefaultStoragePushPull")
                 if e["args"]["Key"] == "big"]
    assert [e["args"]["Chunks"] for e in pushpulls] == [3]   # 2500 elements, bound 1000


def test_hostfile_places_the_ranks(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost:2\n")
    res = run_job(tmp_path, "sums.py", 2, options=("--hostfile", hosts))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "result1.json").is_file()


def test_pushpull_returns_before_the_other_ranks_arrive(tmp_path):
    res = run_job(tmp_path, "overlap.py", 2)
    assert res.returncode == 0, res.stderr
    rank0 = json.loads((tmp_path / "overlap0.json").read_text())
    assert rank0["call_s"] < 0.5               # rank 1 came 1 s later
    assert rank0["wait_s"] > 0.3               # the wait is where the sync point is


def test_mpiexec_of_xprof_run_works_too(tmp_path):
    import os
    import subprocess
    import sys

    from xprof.mxcli.runner.launch import mpiexec

    from dist_helpers import JOBS

    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    res = subprocess.run([mpiexec(), "-n", "2", sys.executable, "-m", "xprof.mxcli", "run",
                          "-q", "-o", str(tmp_path / "p.json"), str(JOBS / "sums.py"),
                          str(tmp_path)], env=env, capture_output=True, text=True,
                         timeout=180)
    assert res.returncode == 0, res.stderr
    for r in (0, 1):
        assert (tmp_path / f"p.rank{r}.json").is_file()
        assert (tmp_path / f"result{r}.json").is_file()
