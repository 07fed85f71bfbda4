"""threads: busy/idle per thread by role, and the findings that quote them."""
import pytest
from deptrace import meta, op, sync

from xprof.cli.analysis.depgraph import Graph
from xprof.cli.analysis.findings import findings
from xprof.cli.analysis.threads import CUSTOM, DRIVER, WORKER, busy_idle, union_length
from xprof.cli.readers.timeline import from_events

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
    out = busy_idle(tl, (10_000, 200_000), g)
    by_name = {tl.thread_name(t): v for t, v in out.items()}
    assert by_name["main thread"] == (10_000, 180_000, DRIVER)       # 190 us wall - 180 blocked
    assert by_name["engine worker 0"] == (100_000, 90_000, WORKER)
    assert by_name["engine worker 1"] == (10_000, 180_000, WORKER)
    assert by_name["custom op worker 0"] == (50_000, 140_000, CUSTOM)


def test_findings_need_their_threshold_and_quote_the_figure():
    base = {"wall": 1_000_000, "by_kind": {"python": 100_000}, "by_name": {"dot": 200_000},
            "calls": {"dot": 2}, "threads": {}, "small_ops": (10, 1000)}
    assert findings(base) == []
    f = findings({**base, "by_kind": {"python": 640_000}, "by_name": {"dot": 310_000},
                  "threads": {"main thread": (1_000_000, 0, DRIVER),
                              "engine worker 0": (290_000, 710_000, WORKER)}})
    texts = [x["text"] for x in f]
    assert "engine workers idle 71.0%" in texts[0] and "64.0%" in texts[0]
    assert f[0]["figure"] == 64.0
    assert f[1]["figure"] == 31.0 and texts[1].startswith("dot runs 31.0%")
    f = findings({**base, "small_ops": (1204, 300_000)})
    assert f == [{"text": pytest.approx(f[0]["text"]), "figure": 1204}]
    assert "1,204 ops shorter than 20 us" in f[0]["text"]
