"""Profiled DataLoader workers, end to end under ``xprof run``: every worker is a
process track group of its own (``DataLoader worker K``) holding its ``__getitem__``
and ``batchify`` slices and the operators its samples ran, on the parent's clock; the
training loop waits for each batch in a ``wait for batch`` slice; a worker killed
mid-run keeps what it flushed and the trace stays valid."""
import collections
import json
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "sample_scripts", "train_with_workers.py")


def _xprof(args, cwd, timeout=180):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    return subprocess.run([sys.executable, "-m", "xprof.mxcli", *args], cwd=str(cwd),
                          env=env, capture_output=True, text=True, timeout=timeout)


def _valid(path, cwd):
    res = _xprof(["validate", str(path)], cwd)
    assert res.returncode == 0 and " 0 errors" in res.stdout, res.stdout
    return json.loads(open(path).read())


def _tracks(doc):
    """pid -> (process name, labels); tid -> (pid, thread name)."""
    procs, labels, threads = {}, {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] != "M":
            continue
        if e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["name"] == "process_labels":
            labels[e["pid"]] = e["args"]["labels"]
        elif e["name"] == "thread_name":
            threads[e["tid"]] = (e["pid"], e["args"]["name"])
    return procs, labels, threads


def _counts(doc, pid):
    return collections.Counter((e["cat"], e["name"]) for e in doc["traceEvents"]
                               if e["ph"] == "X" and e["pid"] == pid)


def test_two_workers_under_xprof_run(tmp_path):
    res = _xprof(["run", "-q", "-o", "p.json", SCRIPT, "--workers", "2", "--epochs", "2",
                  "--samples", "96", "--batch-size", "16"], tmp_path)
    assert res.returncode == 0, res.stderr
    doc = _valid(tmp_path / "p.json", tmp_path)
    procs, labels, threads = _tracks(doc)
    workers = {name: pid for pid, name in procs.items() if name.startswith("DataLoader")}
    assert sorted(workers) == ["DataLoader worker 0", "DataLoader worker 1"]
    main_pid = next(p for p, n in procs.items() if n.startswith("xprof: "))
    # 6 batches an epoch, batch i to worker i % 2: 3 batches, 48 samples each per epoch
    for name, pid in workers.items():
        counts = _counts(doc, pid)
        assert counts[("DataLoader", "__getitem__")] == 96, (name, counts)
        assert counts[("DataLoader", "batchify")] == 6
        assert counts[("operator", "_mul_scalar")] == 96      # image * 2, per sample
        assert counts[("operator", "_minus_scalar")] == 96    # - 1
        assert labels[pid].startswith("pid ")
        assert {threads[e["tid"]][0] for e in doc["traceEvents"]
                if e.get("pid") == pid and e["ph"] == "X"} == {pid}
        assert any(e["ph"] == "C" and e["pid"] == pid and e["cat"] == "Device Storage"
                   for e in doc["traceEvents"]), "the worker's memory counter"
    main = _counts(doc, main_pid)
    assert main[("DataLoader", "wait for batch")] == 12
    assert main[("DataLoader", "__getitem__")] == 0
    # on the parent's clock: each batch's samples were loaded before the loop got it
    waits = sorted((e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"]
                   if e["ph"] == "X" and e["name"] == "wait for batch")
    batchify = sorted(e["ts"] + e["dur"] for e in doc["traceEvents"]
                      if e["ph"] == "X" and e["name"] == "batchify")
    first_getitem = min(e["ts"] for e in doc["traceEvents"] if e.get("name") == "__getitem__")
    assert first_getitem >= min(e["ts"] for e in doc["traceEvents"]
                                if e["ph"] == "X" and e["pid"] == main_pid)
    for (_, end), done in zip(waits, batchify):
        assert done <= end


KILLED = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    import xprof.runtime as mx
    from xprof.runtime import gluon

    class Dies(gluon.data.Dataset):
        def __len__(self):
            return 48
        def __getitem__(self, i):
            if i == 20 and not os.path.exists("died"):     # batch 2, worker 0
                open("died", "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
            return mx.nd.array(np.full((2,), i, np.float32)) + 1

    loader = gluon.data.DataLoader(Dies(), batch_size=8, num_workers=2, prefetch=0)
    got = []
    try:
        for batch in loader:
            got.append(int(batch.asnumpy()[0, 0]))
    except RuntimeError as e:
        print("error:", e)
    print("before:", got)
    print("after:", [int(b.asnumpy()[0, 0]) for b in loader])
    """)


def test_killed_worker_keeps_its_flushed_events(tmp_path):
    (tmp_path / "job.py").write_text(KILLED)
    res = _xprof(["run", "-q", "-o", "p.json", "job.py"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "error: DataLoader worker 0 (pid " in res.stdout
    assert "was killed by signal 9 (SIGKILL) before delivering batch 2" in res.stdout
    assert "before: [1, 9]" in res.stdout and "after: [1, 9, 17, 25, 33, 41]" in res.stdout
    doc = _valid(tmp_path / "p.json", tmp_path)
    procs, labels, _ = _tracks(doc)
    first = {}
    for pid, name in sorted(procs.items()):
        if name.startswith("DataLoader worker"):
            first.setdefault(name, []).append(pid)
    # the killed worker 0's track: batch 0, flushed with its answer; batch 2 is lost
    dead, fresh0 = first["DataLoader worker 0"]
    assert _counts(doc, dead)[("DataLoader", "__getitem__")] == 8
    assert _counts(doc, dead)[("DataLoader", "batchify")] == 1
    assert labels[dead] != labels[fresh0]                     # another process
    assert _counts(doc, fresh0)[("DataLoader", "batchify")] == 3    # batches 0, 2, 4
    # the stopped worker 1 delivered batch 1 before the death, then 1, 3, 5
    assert sum(_counts(doc, p)[("DataLoader", "batchify")]
               for p in first["DataLoader worker 1"]) == 4


def test_worker_threads_record_on_their_own_tracks(tmp_path, profile):
    """``thread_pool=True``: the workers are threads of this process, each its own
    track ``DataLoader worker K`` with exact counts (batch i to worker i % 2)."""
    import numpy as np

    from xprof.runtime import gluon

    class Plain(gluon.data.Dataset):
        def __len__(self):
            return 40

        def __getitem__(self, i):
            return np.float32(i)

    with profile() as p:
        loader = gluon.data.DataLoader(Plain(), batch_size=4, num_workers=2,
                                       thread_pool=True, timeout=30)
        assert len([b.asnumpy() for b in loader]) == 10
    doc = _valid(p.path, tmp_path)
    procs, _, threads = _tracks(doc)
    assert len(procs) == 1
    per_thread = collections.Counter((threads[e["tid"]][1], e["name"]) for e in p.events()
                                     if e["cat"] == "DataLoader")
    for k in (0, 1):
        assert per_thread[(f"DataLoader worker {k}", "__getitem__")] == 20
        assert per_thread[(f"DataLoader worker {k}", "batchify")] == 5
    assert per_thread[("main thread", "wait for batch")] == 10
