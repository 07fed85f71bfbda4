"""threads: busy/idle per thread by role, and the findings that quote them."""
import pytest
from deptrace import meta, op, sync

from xprof.mxcli.analysis.depgraph import Graph
from xprof.mxcli.analysis.findings import findings
from xprof.mxcli.analysis.threads import CUSTOM, DRIVER, WORKER, busy_blocked_idle, union_length
from xprof.traces.model import from_events

import numpy as np


def test_union_length_overlaps_and_clipping():
    s = np.array([0, 5, 20, 22])
    e = np.array([10, 8, 30, 25])
    assert union_length(s, e, 0, 100) == 20
    assert union_length(s, e, 6, 24) == 4 + 4


def test_roles_and_busy_time():
    co = "Custom Operator"
    tl = from_events(meta() + [
        op("a", 1, 0, 0, 10, 110, writes=[1]),                      # worker: 100 us
        op("call", 3, 5, 5, 120, 170, writes=[2], cat=co),          # custom thread: 50 us
        op("sub", 2, 130, 130, 140, 150, writes=[3], pusher=3, cat=co),
        sync(0, 20, 200, "all"),                                    # main blocked 180 us
    ])
    g = Graph(tl)
    out = busy_blocked_idle(tl, (10_000, 200_000), g)
    by_name = {tl.thread_name(t): v for t, v in out.items()}
    assert by_name["main thread"] == (10_000, 180_000, 0, DRIVER)   # 190 us wall - 180 blocked
    assert by_name["engine worker 0"] == (100_000, 0, 90_000, WORKER)
    assert by_name["engine worker 1"] == (10_000, 0, 180_000, WORKER)
    assert by_name["custom op worker 0"] == (50_000, 0, 140_000, CUSTOM)


def test_a_custom_op_waiting_inside_its_forward_is_blocked_not_busy():
    co = "Custom Operator"
    tl = from_events(meta() + [
        op("a", 1, 0, 0, 10, 110, writes=[1]),                      # worker: 100 us
        op("call", 3, 5, 5, 20, 170, writes=[2], cat=co),           # forward: 150 us ...
        op("sub", 2, 30, 30, 40, 50, writes=[3], pusher=3, cat=co),
        sync(3, 60, 110, [1]),                                      # ... 50 of them blocked
        sync(0, 20, 200, "all"),
    ])
    out = busy_blocked_idle(tl, (10_000, 200_000), Graph(tl))
    by_name = {tl.thread_name(t): v for t, v in out.items()}
    assert by_name["custom op worker 0"] == (100_000, 50_000, 40_000, CUSTOM)
    for busy, blocked, idle, _ in out.values():
        assert busy + blocked + idle == 190_000


def test_findings_need_their_threshold_and_quote_the_figure():
    base = {"wall": 1_000_000, "by_kind": {"python": 100_000}, "by_name": {"dot": 200_000},
            "calls": {"dot": 2}, "threads": {}, "small_ops": (10, 1000)}
    assert findings(base) == []
    f = findings({**base, "by_kind": {"python": 640_000}, "by_name": {"dot": 310_000},
                  "threads": {"main thread": (1_000_000, 0, 0, DRIVER),
                              "engine worker 0": (290_000, 0, 710_000, WORKER)}})
    texts = [x["text"] for x in f]
    assert "engine workers idle 71.0%" in texts[0] and "64.0%" in texts[0]
    assert f[0]["figure"] == 64.0
    assert f[1]["figure"] == 31.0 and texts[1].startswith("dot runs 31.0%")
    f = findings({**base, "small_ops": (1204, 300_000)})
    assert f == [{"text": pytest.approx(f[0]["text"]), "figure": 1204}]
    assert "1,204 ops shorter than 20 us" in f[0]["text"]


QUEUED = {"wall": 1_000_000, "by_kind": {"queue": 300_000}, "by_name": {}, "calls": {},
          "threads": {}, "small_ops": (0, 0)}


def test_a_larger_pool_is_proposed_only_when_the_pool_reached_its_bound():
    queued = {**QUEUED, "custom_queue_ns": 300_000, "custom_threads": 2}
    below = findings({**queued, "settings": {"XPROF_CUSTOM_OP_NUM_THREADS": 256}})[0]["text"]
    assert "XPROF_CUSTOM_OP_NUM_THREADS=256" in below and "would not help" in below
    assert "try" not in below
    full = findings({**queued, "settings": {"XPROF_CUSTOM_OP_NUM_THREADS": 2}})[0]["text"]
    assert "XPROF_CUSTOM_OP_NUM_THREADS=2: try XPROF_CUSTOM_OP_NUM_THREADS=4" in full
    unknown = findings(queued)[0]["text"]                 # a trace without its settings
    assert "XPROF_CUSTOM_OP_NUM_THREADS" not in unknown and "30.0%" in unknown


def test_more_workers_are_proposed_only_when_all_ran_and_cores_are_free():
    def text(workers, **settings):
        return findings({**QUEUED, "workers": workers, "settings": settings})[0]["text"]

    assert "try XPROF_CPU_WORKER_NTHREADS=4" in text(
        2, XPROF_CPU_WORKER_NTHREADS=2, cpu_count=8)
    assert "try" not in text(2, XPROF_CPU_WORKER_NTHREADS=2, cpu_count=2)
    assert "already uses the machine's 2 cores" in text(2, XPROF_CPU_WORKER_NTHREADS=2,
                                                       cpu_count=2)
    assert "XPROF_CPU_WORKER_NTHREADS" not in text(1, XPROF_CPU_WORKER_NTHREADS=4, cpu_count=8)
