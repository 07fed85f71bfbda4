"""dist_sync / dist_device_sync (runtime/dist/sync_store.py) on 2 and 4 ranks started by
``xprof run --nproc``: MXNet's semantics, sums across ranks, big keys in chunks."""
from __future__ import annotations

import json

import pytest

from dist_helpers import events, run_job, trace


@pytest.mark.parametrize("nproc,kind", [(2, "dist_sync"), (4, "dist_device_sync")])
def test_sums_over_ranks(tmp_path, nproc, kind):
    res = run_job(tmp_path, "sums.py", nproc, env={"KV_TYPE": kind,
                                                   "XPROF_KVSTORE_BIGARRAY_BOUND": "1000"})
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
