"""Helpers shared by the profiler and custom-operator tests: a profiling session bound
to a temporary trace file, trace readers and structural checks.

Imported by ``tests/profiler/conftest.py`` and (through ``sys.path``) by
``tests/operator/conftest.py``; the name is unique so it cannot shadow anything.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

import pytest

import xprof.runtime as mx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -- session -----------------------------------------------------------------------------
def reset_profiler(scratch):
    """Stop, drop everything recorded, and put the default configuration back."""
    try:
        mx.nd.waitall()
    except Exception:  # noqa: BLE001 - an error left by an earlier test is not ours
        pass
    mx.profiler.set_state("stop")
    mx.profiler.set_config(filename=os.path.join(str(scratch), "reset-profile.json"))
    mx.profiler.dump(finished=True)
    mx.profiler.set_config()


@pytest.fixture
def prof(tmp_path):
    """A clean profiler session writing into the test's tmp_path (imported by the
    conftest files of the folders that use it)."""
    reset_profiler(tmp_path)
    session = Session(tmp_path)
    yield session
    reset_profiler(tmp_path)


class Session:
    """One profiling session writing to ``path`` (inside the test's tmp_path)."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.path = str(tmp_path / "trace.json")

    def start(self, **cfg):
        cfg.setdefault("filename", self.path)
        mx.profiler.set_config(**cfg)
        mx.profiler.set_state("run")

    def stop(self):
        mx.nd.waitall()
        mx.profiler.set_state("stop")

    def finish(self):
        """Stop, dump (ending the session) and return the trace document."""
        self.stop()
        return load(mx.profiler.dump(finished=True))

    def stats(self, **kwargs):
        return json.loads(mx.profiler.dumps(format="json", **kwargs))


# -- reading traces ----------------------------------------------------------------------
def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read())


def thread_names(doc):
    return {e["tid"]: e["args"]["name"] for e in doc["traceEvents"]
            if e.get("ph") == "M" and e["name"] == "thread_name"}


def events(doc, ph=None, cat=None, name=None):
    out = []
    for e in doc["traceEvents"]:
        if ph is not None and e.get("ph") not in ph:
            continue
        if cat is not None and e.get("cat") != cat:
            continue
        if name is not None and e.get("name") != name:
            continue
        out.append(e)
    return out


def name_counts(doc, ph="X", cat=None):
    """Counter of (cat, name) for the events of phase(s) ``ph``."""
    return collections.Counter((e.get("cat"), e["name"]) for e in events(doc, ph, cat))


def stat_counts(stats, domain):
    return {name: row["Count"] for name, row in stats["Time"].get(domain, {}).items()}


# -- structural checks -------------------------------------------------------------------
def check_document(doc):
    """The Chrome trace container: keys, metadata, small integer pid/tid."""
    assert isinstance(doc, dict)
    assert isinstance(doc["traceEvents"], list)
    assert doc["displayTimeUnit"] == "ms"
    other = doc["otherData"]
    for key in ("xprof_version", "command", "start_time", "clock"):
        assert key in other, key
    assert other["xprof_version"] == mx.__version__
    pnames = [e for e in doc["traceEvents"] if e.get("ph") == "M"
              and e["name"] == "process_name"]
    assert len(pnames) == 1
    tnames = thread_names(doc)
    for e in doc["traceEvents"]:
        assert isinstance(e["pid"], int) and 0 <= e["pid"] < 1 << 16, e
        if "tid" in e:
            assert isinstance(e["tid"], int) and 0 <= e["tid"] < 1 << 16, e
        if e["ph"] in ("X", "i", "s", "f", "b", "e"):
            assert e["tid"] in tnames, f"event on a thread without thread_name: {e}"
        if e["ph"] == "X":
            assert e["dur"] >= 0, e
    return doc


def check_nesting(doc):
    """On every thread, complete events are strictly nested or disjoint."""
    by_tid = collections.defaultdict(list)
    for e in events(doc, "X"):
        by_tid[e["tid"]].append((e["ts"], -e["dur"], e))
    for tid, evs in by_tid.items():
        evs.sort(key=lambda t: (t[0], t[1]))
        stack = []
        for ts, negdur, e in evs:
            end = ts - negdur
            while stack and stack[-1][1] <= ts:
                stack.pop()
            if stack:
                outer = stack[-1]
                assert end <= outer[1], (f"tid {tid}: {e['name']} [{ts}, {end}] overlaps "
                                         f"{outer[2]['name']} [{outer[0]}, {outer[1]}]")
            stack.append((ts, end, e))
    return by_tid


def enclosing(doc, ev, name_pred):
    """The X events on ``ev``'s thread satisfying ``name_pred`` that contain ``ev['ts']``."""
    return [e for e in events(doc, "X") if e["tid"] == ev["tid"] and name_pred(e["name"])
            and e["ts"] <= ev["ts"] <= e["ts"] + e["dur"]]


# -- files written by another thread or process -------------------------------------------------
def wait_until(predicate, timeout=30.0, what="condition"):
    """Poll ``predicate`` (no fixed sleeps standing in for synchronisation)."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


# -- subprocesses ------------------------------------------------------------------------
def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(extra or {})
    return env


def run_py(args, cwd, env_extra=None, timeout=90):
    """Run ``python args...`` in ``cwd`` with a clean XPROF_/MXNET_ environment."""
    return subprocess.run([sys.executable, *args], cwd=str(cwd), env=clean_env(env_extra),
                          capture_output=True, text=True, timeout=timeout)


def parse_table(text):
    """``dumps(format='table')`` -> {domain: (header_line, dash_line, [row lines])}."""
    sections = {}
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        domain, rule, header, dashes, rows = lines[0], lines[1], lines[2], lines[3], lines[4:]
        assert set(rule) == {"="} and len(rule) == max(len(domain), 1), block
        sections[domain] = (header, dashes, rows)
    return sections


def table_rows(header, dashes, rows):
    """Rows as (name, [numbers]) using the dash line's column ends; checks alignment."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
    ends = [end for _, end in spans[1:]]
    width = len(header)
    out = []
    for line in [header] + rows:
        assert len(line) == width, f"misaligned line {line!r} (width {width})"
    for line in rows:
        cells = []
        for end in ends:
            assert line[end:end + 1] in ("", " "), f"cell overruns column in {line!r}"
            cell = line[:end].rsplit(" ", 1)[-1]
            cells.append(float(cell))
        name_end = line[:ends[0]].rsplit(" ", 1)[0]
        out.append((name_end.rstrip(), cells))
    return out
