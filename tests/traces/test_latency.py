"""xprof.traces.latency.section: the Operator Latency split from integer nanoseconds (known answers)."""
import numpy as np

from xprof.traces import latency


def test_parts_percentiles_and_order():
    names = ["a", "b"]
    ids = [0] * 20 + [1]
    dep = list(range(2, 41, 2)) + [0]                  # a: 2, 4, .. 40 ns
    queue = [1000] * 20 + [5]
    run = [10_000] * 19 + [2_000_000] + [7_000_000]    # b runs 7 ms once
    sec = latency.section(names, ids, dep, queue, run)
    assert list(sec) == ["b", "a"]                      # by total latency: b 7 ms, a ~2.2 ms
    a = sec["a"]
    assert a["Count"] == 20
    assert a["Dependency"] == {"Avg": 21e-6, "P50": 20e-6, "P95": 38e-6, "Max": 40e-6}
    assert a["Queue"] == {"Avg": 0.001, "P50": 0.001, "P95": 0.001, "Max": 0.001}
    assert a["Run"]["P95"] == 0.01 and a["Run"]["Max"] == 2.0
    assert set(sec["b"]) == {"Count", "Dependency", "Queue", "Run"}
    for part in latency.PARTS:
        assert set(sec["b"][part]) == {"Avg", "P50", "P95", "Max"}


def test_order_of_ops_does_not_change_the_numbers():
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 3, 500)
    d, q, r = (rng.integers(0, 10**7, 500) for _ in range(3))
    perm = rng.permutation(500)
    names = ["x", "y", "z"]
    assert latency.section(names, ids, d, q, r) == \
        latency.section(names, ids[perm], d[perm], q[perm], r[perm])


def test_text_table():
    sec = latency.section(["dot"], [0, 0], [0, 2_000_000], [1000, 1000], [5_000_000, 5_000_000])
    text = latency.render_text(sec)
    assert text.splitlines()[0] == "Latency"
    assert "dot" in text and "1.0000" in text and "2.0000" in text and "5.0000" in text
    assert latency.render_text({}) == "" and latency.section([], [], [], [], []) == {}


def test_numpy_grouping_equals_a_plain_loop():
    """The section as a plain Python loop computes it (sorted values per name,
    nearest-rank percentiles on them, sums of Python ints), on random ops."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 300):
        ids = rng.integers(0, 4, n)
        cols = [rng.integers(0, 10**9, n) for _ in range(3)]
        names = ["w", "x", "y", "z"]
        want = {}
        for k in sorted(set(ids.tolist())):
            row = {"Count": int((ids == k).sum())}
            total = 0
            for part, col in zip(latency.PARTS, cols):
                v = sorted(col[ids == k].tolist())
                total += sum(v)
                rank = lambda p: v[max(0, -(-p * len(v) // 100) - 1)]   # noqa: E731
                row[part] = {"Avg": round(sum(v) / len(v) / 1e6, 6),
                             "P50": round(rank(50) / 1e6, 6), "P95": round(rank(95) / 1e6, 6),
                             "Max": round(v[-1] / 1e6, 6)}
            want[names[k]] = (-total, row)
        got = latency.section(names, ids, *cols)
        assert list(got) == [k for k, _ in sorted(want.items(), key=lambda kv: (kv[1][0], kv[0]))]
        assert got == {k: row for k, (_, row) in want.items()}
