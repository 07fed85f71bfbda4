"""Readers: pure functions (no click) from trace files and logs to events, checks and statistics.

The statistics model they build is :mod:`xprof.traces.stats`, imported normally: it lives
in ``xprof.traces``, which imports no engine (see docs/architecture.md), so reading a
trace never boots the runtime. The per-event rules every reader applies (keys of
processes and threads, usable times, ns, B/E pairing) are :mod:`xprof.traces.rules`.
"""
from __future__ import annotations


def stats_module():
    """The shared statistics module (``xprof.traces.stats``); kept for callers written
    before it could be imported directly."""
    from xprof.traces import stats

    return stats

