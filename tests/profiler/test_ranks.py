"""Which rank a launched process is, and the file and name it profiles to
(runtime/profiler/ranks.py)."""
import json
import os

import pytest

from xprof.runtime.profiler import ranks


@pytest.mark.parametrize("env,rank,size", [
    ({}, None, None),
    ({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}, 3, 4),
    ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "8"}, 2, 8),
    ({"PMI_RANK": "0", "PMI_SIZE": "2"}, 0, 2),
    ({"RANK": "x"}, None, None),
])
def test_rank_from_launcher_environment(env, rank, size):
    assert ranks.rank(env) == rank and ranks.world_size(env) == size


@pytest.mark.parametrize("name,r,out", [
    ("profile.json", None, "profile.json"),
    ("profile.json", 2, "profile.rank2.json"),
    (os.path.join("out", "t.json.gz"), 0, os.path.join("out", "t.rank0.json.gz")),
    ("trace", 5, "trace.rank5"),
    ("run-{rank}.json", 7, "run-7.json"),
    ("run-{rank}.json", None, "run-0.json"),
    ("profile.rank2.json", 2, "profile.rank2.json"),
    ("profile.rank2.json", 3, "profile.rank2.rank3.json"),
])
def test_file_name_for_rank(name, r, out):
    assert ranks.filename_for_rank(name, r) == out


def test_ranked_process_profile(tmp_path, run_python):
    code = ("import xprof.runtime as mx\n"
            "mx.profiler.set_config(filename='job.json')\n"
            "mx.profiler.set_state('run')\n"
            "(mx.nd.ones((2, 2)) + 1).wait_to_read()\n"
            "mx.profiler.set_state('stop'); mx.profiler.dump()\n")
    for r in (0, 1):
        proc = run_python(f"import os; os.chdir({str(tmp_path)!r})\n" + code,
                          {"OMPI_COMM_WORLD_RANK": str(r), "OMPI_COMM_WORLD_SIZE": "2"})
        assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["job.rank0.json", "job.rank1.json"]
    doc = json.loads((tmp_path / "job.rank1.json").read_text())
    (name,) = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"]
    assert name.startswith("rank 1: xprof: ")
    assert doc["otherData"]["rank"] == 1 and doc["otherData"]["world_size"] == 2
