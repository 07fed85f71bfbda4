"""Helpers for the CLI tests: fixture paths, tiny trace writers, a CLI runner.

A plain module (not conftest.py) so test files can import it by a name no other
conftest shadows."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from xprof.mxcli.main import main
from xprof.mxcli.streaming.checker import Checker
from xprof.mxcli.streaming.normalize import Normalizer
from xprof.traces.tracefile import DEFAULT_CHUNK, TraceReader

REPO = Path(__file__).resolve().parents[2]
# Real traces and logs of other tools (MXNet 1.9.1, PyTorch 2.13, oneDNN 2.4 / 3.12), in
# the repository so a fresh clone runs every test; copies, never edited.
FIXTURES = REPO / "tests" / "fixtures"
TRACES = FIXTURES / "traces"
ONEDNN = FIXTURES / "onednn"


def meta(pid=0, tid=1, process="proc", thread="main thread"):
    return [
        {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": process}},
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": thread}},
    ]


def X(name, ts, dur, tid=1, pid=0, cat="operator", **extra):
    ev = {"name": name, "cat": cat, "ph": "X", "ts": ts, "dur": dur, "pid": pid, "tid": tid}
    ev.update(extra)
    return ev


def write_trace(path, events, form="object", **top):
    """Write events as an object-form (default) or array-form trace; returns the path."""
    path = Path(path)
    doc = {"traceEvents": events, **top} if form == "object" else events
    path.write_text(json.dumps(doc))
    return path


class Result:
    def __init__(self, code, stdout, stderr):
        self.exit_code, self.stdout, self.stderr = code, stdout, stderr


def cli(*args):
    """Run the xprof group in-process; stdout and stderr separately."""
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return Result(res.exit_code, res.stdout, res.stderr)


def cli_subprocess(*args, timeout=120, env=None):
    """Run ``python -m xprof.mxcli`` in a fresh interpreter (real pipes, real exit code);
    ``env``: variables to set there (every other XPROF_*/MXNET_* one is removed)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))},
           **(env or {})}
    return subprocess.run([sys.executable, "-m", "xprof.mxcli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout)


# -- in-memory forms of the streaming readers (the commands stream; tests hold lists) --
def check_events(events, top=None, truncated=False):
    """The strict checker over in-memory events (a test's convenience)."""
    checker = Checker()
    checker.check_top(top or {}, truncated)
    for i, ev in enumerate(events):
        checker.check(i, ev, True)
    return checker.finish()


def normalize(events, top=None, domains=(), since_ms=None, until_ms=None, name_glob=None):
    """Return ``(document, notes)``: the normalized trace object and what was dropped.

    In-memory convenience over :class:`Normalizer` (tests, small traces); the
    event dicts are modified (their pid/tid/id are taken out).
    """
    norm = Normalizer()
    norm.feed(events)
    notes = norm.finish(domains, since_ms, until_ms, name_glob)
    out = norm.header()
    for _, _, raw in norm.chunks():
        out.extend(json.loads(b"[" + raw + b"]"))
    return {"traceEvents": out, **Normalizer.top(top)}, notes


def read_events(path, chunk_size=DEFAULT_CHUNK):
    """All events of a trace in a list plus the reader (for ``top``/``form``/``truncated``)."""
    reader = TraceReader(path, chunk_size)
    events = []
    for batch, _ in reader.batches():
        events.extend(batch)
    return events, reader
