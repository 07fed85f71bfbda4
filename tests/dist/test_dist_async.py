"""dist_async (runtime/dist/async_store.py): pushes applied by rank 0's server as they
arrive; after a barrier, every rank pulls the one eventual value."""
from __future__ import annotations

import json

import pytest

from dist_helpers import events, run_job, trace


@pytest.mark.parametrize("nproc", [2, 4])
def test_every_push_is_applied_once(tmp_path, nproc):
    res = run_job(tmp_path, "async_sum.py", nproc)
    assert res.returncode == 0, res.stderr
    results = [json.loads((tmp_path / f"async{r}.json").read_text()) for r in range(nproc)]
    expected = 10 + 20 * nproc * (nproc + 1) / 2
    assert [x["final"] for x in results] == [[expected] * 3] * nproc
    pushes = events(trace(tmp_path, nproc - 1), "KVStoreDistDefaultPush")
    assert len(pushes) == 20 and pushes[0]["args"]["Collective name"] == "send"


def test_pushes_before_rank_0_sets_its_optimizer_wait_for_it(tmp_path):
    """Every rank's set_optimizer returns once the server has an optimizer (as MXNet's
    workers send theirs): rank 0 setting its own a second late used to make the other
    rank's first pushes refused, unreported, and the sum short."""
    res = run_job(tmp_path, "async_sum.py", 2, "late")
    assert res.returncode == 0, res.stderr
    results = [json.loads((tmp_path / f"async{r}.json").read_text()) for r in range(2)]
    assert [x["final"] for x in results] == [[10 + 20 * 3.0] * 3] * 2
