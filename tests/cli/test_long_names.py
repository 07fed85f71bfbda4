"""One very long event name costs its own length, never a column padded to it on every
row nor a fixed-width copy of every name (#40.11): a 1 MB name made ``xprof stats`` print
527 MB, ``xprof diff`` take gigabytes. Names are bounded on output
(``xprof.traces.names.bounded``), as the report already did; JSON and CSV keep them
whole (they grow with them, no more)."""
from __future__ import annotations

import json
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest

from cli_helpers import X, cli, meta, write_trace

from xprof.traces.names import NAME_LIMIT

LONG = "<b>x</b>" * (1_000_000 // 8)   # 1 MB


def _trace(tmp_path):
    events = meta() + [X(f"op{i}", 10 * i, 5) for i in range(60)] + [X(LONG, 700, 5)]
    return write_trace(tmp_path / "long.json", events)


@pytest.mark.parametrize("extra", [[], ["--flat"], ["--by-process"]])
def test_stats_tables_bound_a_long_name(tmp_path, extra):
    res = cli("stats", _trace(tmp_path), *extra)
    assert res.exit_code == 0, res.stderr
    assert len(res.stdout) < 200_000, len(res.stdout)   # was 60 rows x 1 MB
    assert LONG[:NAME_LIMIT - 1] + "\u2026" in res.stdout
    assert "op59" in res.stdout


def test_stats_json_keeps_the_name_whole(tmp_path):
    res = cli("stats", _trace(tmp_path), "--format", "json")
    assert res.exit_code == 0
    assert len(res.stdout) < 3 * len(LONG)
    assert LONG in json.loads(res.stdout)["Time"]["operator"]


def test_diff_reads_a_long_name_without_copying_every_name_to_its_width(tmp_path):
    """``steps_ns`` once tested names for ``ProfilerStep#`` on ``names.astype(str)``:
    61 names x 10 MB x 4 bytes."""
    from xprof.mxcli.analysis.diff import steps_ns

    names = [f"op{i}" for i in range(60)] + ["x" * 10_000_000]
    tl = SimpleNamespace(names=names, name=np.arange(61), start=np.zeros(61, np.int64),
                         end=np.ones(61, np.int64), sync_slice=np.zeros(0, np.int64))
    tracemalloc.start()
    try:
        assert steps_ns(SimpleNamespace(tl=tl)) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


def test_diff_of_a_trace_with_a_long_name(tmp_path):
    path = _trace(tmp_path)
    res = cli("diff", path, path)
    assert res.exit_code == 0, res.stderr
    assert len(res.stdout) < 200_000
