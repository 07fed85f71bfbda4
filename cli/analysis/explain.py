"""``explain``: why the profiled window took as long as it did, as one plain document.

:func:`explain` is the pure entry point (``xprof explain --format json`` prints exactly
its result; ``xprof report`` builds on it)::

    {"wall_ms", "critical_path_ms",
     "composition": {"op_ms", "queue_ms", "handoff_ms", "python_ms", "blocked_ms"},
     "critical_path": [{"name", "cat", "tid", "ts", "dur", "kind"}, ...],
     "by_name": {op name: ms of run time on the path},
     "top_ops": [{"name", "path_ms", "calls", "waited_for"}, ...],
     "threads": {thread name: {"busy_ms", "blocked_ms", "idle_ms"}},
     "findings": [{"text", "figure"}, ...]}

``composition`` is the path's length by kind of segment (it sums to
``critical_path_ms``); ``top_ops`` ranks the op names by run time on the path, with the
number of their slices on it and what most of those waited for (the text output's
columns; ``waited_for`` is None when nothing is recorded).

``ts``/``dur`` of a path segment are in microseconds on the trace's own clock (find it in
Perfetto at that time); ``kind`` is ``op``, ``queue``, ``dependency``, ``python`` or
``blocked`` (a custom call's code waiting at a sync point inside it: named ``blocked
inside Op.forward on X``, X the op it waited for).
:func:`analyze` returns the intermediate :class:`Analysis` (columns, no per-segment
dicts) that the text output and ``--mark-trace`` use, so a million-op path is summarized
without building a million dicts.
"""
from __future__ import annotations

import heapq
import os
from collections import Counter

import numpy as np

from xprof.traces.names import PURE_PYTHON

from xprof.traces import model
from xprof.traces.model import Trace

from xprof.mxcli.analysis import critical_path as cp
from xprof.mxcli.analysis.depgraph import Graph
from xprof.mxcli.analysis.stragglers import arrivals, steps
from xprof.mxcli.analysis.findings import THRESHOLDS, findings
from xprof.mxcli.analysis.ints import unique
from xprof.mxcli.analysis.threads import CUSTOM, WORKER, busy_blocked_idle

FALLBACK_NOTE = ("no dependency data in this trace (not recorded by the xprof engine): "
                 "assuming each thread's ops ran one after another (per-thread serial)")
_MS = 1e6
# the document's composition keys and the path's segment kinds they sum
COMPOSITION = (("op_ms", "op"), ("queue_ms", "queue"), ("handoff_ms", "dependency"),
               ("python_ms", "python"), ("blocked_ms", "blocked"))


class Analysis:
    """Everything ``explain`` derives from one timeline (plain data)."""

    stragglers = ()   # per step, the last rank at its collectives (analyze() sets it)
    layers = None     # per dependency record, its layer name (analyze(layers=True))

    def __init__(self, tl, graph, path, threads, serial):
        self.tl, self.graph, self.path, self.threads, self.serial = tl, graph, path, threads, serial
        lo, hi = path.window
        self.wall = hi - lo
        kinds = np.array(path.kind, dtype=np.int64)
        dur = np.array(path.t1, dtype=np.int64) - np.array(path.t0, dtype=np.int64)
        self.by_kind = {cp.KINDS[k]: int(dur[kinds == k].sum()) for k in range(len(cp.KINDS))}
        op = kinds == cp.OP
        rows = np.array(path.row, dtype=np.int64)
        # per name number: run time on the path (ns) and slices on it, as arrays (a
        # path of a million names makes no dict unless :attr:`by_name` is asked)
        self._name_ns = np.zeros(len(tl.names))
        self._name_calls = np.zeros(len(tl.names), dtype=np.int64)
        self._by_name = self._calls = None
        self._cause_name = self._cause_label = self._cause_count = np.zeros(0, np.int64)
        self._path_name_id = None
        if op.any():
            names = tl.name[rows[op]]
            self._name_ns = np.bincount(names, weights=dur[op], minlength=len(tl.names))
            uniq_rows = unique(rows[op])
            self._name_calls = np.bincount(tl.name[uniq_rows], minlength=len(tl.names))
            self._causes(rows, op)

    @property
    def by_name(self):
        """{op name: ns of run time on the path} of every op name on the path."""
        if self._by_name is None:
            names, sums = self.tl.names, self._name_ns
            self._by_name = {names[n]: int(sums[n]) for n in np.flatnonzero(sums).tolist()}
        return self._by_name

    @property
    def calls(self):
        """Counter {op name: its slices on the path}."""
        if self._calls is None:
            names, counts = self.tl.names, self._name_calls
            self._calls = Counter({names[n]: int(counts[n])
                                   for n in np.flatnonzero(counts).tolist()})
        return self._calls

    def _causes(self, rows, op):
        """For each op name on the path, how often each cause made it wait: the
        predecessor's name, or its push (by which thread). Kept as columns (name,
        cause label, count; sorted by name, then label): :meth:`waited_for` reads one
        name's, so a path of a million names makes no dict per name."""
        tl, g = self.tl, self.graph
        cause = np.array(self.path.cause, dtype=np.int64)[op]
        r = rows[op]
        order = np.lexsort((-cause, r))            # per row, the segment with a cause first
        r, cause = r[order], cause[order]
        first = np.r_[True, r[1:] != r[:-1]]
        r, cause = r[first], cause[first]
        label = np.where(cause >= 0, tl.name[np.maximum(cause, 0)], -1).astype(np.int64)
        if g is not None and len(g):
            k = np.searchsorted(g.slice, r)
            k = np.minimum(k, len(g) - 1)
            is_rec = g.slice[k] == r
            pushed = (cause < 0) & is_rec
            label[pushed] = -2 - g.pusher[k[pushed]]
        pairs, counts = np.unique(np.stack([tl.name[r].astype(np.int64), label]), axis=1,
                                  return_counts=True)
        self._cause_name, self._cause_label, self._cause_count = pairs[0], pairs[1], counts

    def _cause_text(self, lab):
        tl = self.tl
        if lab >= 0:
            return tl.names[lab]
        if lab <= -2:
            return f"its push ({tl.thread_name(-2 - lab)})"
        return "the previous slice (serial)" if self.serial else "nothing recorded"

    @property
    def causes(self):
        """{op name: Counter of cause texts} of every op name on the path."""
        out = {}
        for n, lab, c in zip(self._cause_name.tolist(), self._cause_label.tolist(),
                             self._cause_count.tolist()):
            out.setdefault(self.tl.names[n], Counter())[self._cause_text(lab)] += c
        return out

    # -- the document ---------------------------------------------------------------------
    def waited_for(self, name):
        """What most path occurrences of op ``name`` waited for, with the count (the text
        output's last column): ``(label, count)``, or None."""
        if self._path_name_id is None:   # asked name by name (the text output): indexed
            self._path_name_id = {self.tl.names[n]: n
                                  for n in unique(self._cause_name).tolist()}
        n = self._path_name_id.get(name)
        return None if n is None else self._most_common(n)

    def waited_for_many(self, names):
        """{name: :meth:`waited_for` of it} of the op ``names`` on the path (one scan of
        the path's names, no index of them all)."""
        want = set(names)
        names_ = self.tl.names
        return {names_[n]: self._most_common(n)
                for n in unique(self._cause_name).tolist() if names_[n] in want}

    def _most_common(self, n):
        a, b = np.searchsorted(self._cause_name, [n, n + 1]).tolist()
        causes = Counter()
        for lab, c in zip(self._cause_label[a:b].tolist(), self._cause_count[a:b].tolist()):
            causes[self._cause_text(lab)] += c
        return causes.most_common(1)[0]

    def top_ops(self, n=None):
        """[(name, ns on the path)] by run time on the path, longest first."""
        return [(self.tl.names[i], ns) for i, ns in self._top(n)]

    def _top(self, n=None):
        """[(name number, ns on the path)] of :meth:`top_ops`: with ``n``, from the names
        whose time reaches the ``n``-th largest (ties at it ranked by name as well)."""
        sums = self._name_ns
        ids = np.flatnonzero(sums)
        if n is not None and len(ids) > n:
            whole = np.floor(sums[ids])   # the ns compared (int() of the float sums)
            kth = np.partition(whole, len(whole) - n)[len(whole) - n]
            ids = ids[whole >= kth]
        names = self.tl.names
        items = [(i, int(sums[i])) for i in ids.tolist()]
        key = lambda item: (-item[1], names[item[0]])   # noqa: E731
        return sorted(items, key=key) if n is None else heapq.nsmallest(n, items, key=key)

    def thread_table(self):
        """{unique thread name: (busy_ns, blocked_ns, idle_ns, role)} in thread order."""
        out = {}
        for th in sorted(self.threads):
            name = self.tl.thread_name(th)
            if name in out:
                name = f"{name} (tid {self.tl.threads[th][1]})"
            out[name] = self.threads[th]
        return out

    def facts(self):
        """What :func:`~.findings.findings` reads: ``by_name`` and ``calls`` hold the op
        with the most run time on the path only (the one a finding names)."""
        path, tl, g = self.path, self.tl, self.graph
        kinds = np.array(path.kind, dtype=np.int64)
        dur = np.array(path.t1, dtype=np.int64) - np.array(path.t0, dtype=np.int64)
        rows = np.array(path.row, dtype=np.int64)
        op = kinds == cp.OP
        small = (0, 0)
        custom_queue = 0
        edges = 0
        path_workers = 0
        if op.any():
            r = unique(rows[op])
            run = tl.end[r] - tl.start[r]
            sel = run < THRESHOLDS["small_op_us"] * 1000
            small = (int(sel.sum()), int(run[sel].sum()))
        threads = np.array(path.thread, dtype=np.int64)
        roles = {th: v[3] for th, v in self.threads.items()}
        if op.any():   # the engine workers that ran ops on the path
            path_workers = sum(1 for th in unique(threads[op]).tolist()
                               if roles.get(th) == WORKER)
        if g is not None and len(g):
            q = np.flatnonzero(kinds == cp.QUEUE)
            calls = _is_call(tl)
            if len(q):   # queue waits of custom-op calls: for the custom-op pool
                custom_queue = int(dur[q][calls[tl.name[rows[q]]]].sum())
            edges = int(np.count_nonzero(np.array(path.cause, dtype=np.int64) >= 0))
        # the threads whose Python is on the path, most first (a finding names its own)
        py = kinds == cp.PYTHON
        py_threads = []
        if py.any():
            sums = np.bincount(threads[py], weights=dur[py])
            py_threads = [(tl.thread_name(int(t)), int(sums[t]))
                          for t in np.argsort(-sums, kind="stable").tolist() if sums[t] > 0]
        role_list = list(roles.values())
        top = self._top(1)   # findings name the op with the most time on the path
        by_name = {self.tl.names[i]: ns for i, ns in top}
        calls = {self.tl.names[i]: int(self._name_calls[i]) for i, _ in top}
        return {"wall": self.wall, "by_kind": self.by_kind, "by_name": by_name,
                "calls": calls, "threads": self.thread_table(), "small_ops": small,
                "custom_queue_ns": custom_queue, "custom_threads": role_list.count(CUSTOM),
                "workers": path_workers, "python_threads": py_threads,
                "dependency_edges": edges,
                "has_dependencies": not self.serial, "settings": self.tl.settings,
                "python_lines": self.python_lines()}

    def python_lines(self):
        """``{op: rows}`` of the trace's Python-line samples (``xprof stats --lines``'s
        rows)."""
        from xprof.mxcli.analysis.pylines import section

        return section(getattr(self.tl, "python_lines", None),
                       getattr(self.tl, "call_stats", None))[0]

    def segments(self):
        """The path as dicts, adjacent Python segments of one thread merged."""
        tl, path = self.tl, self.path
        out = []
        prev = None
        for kind, th, t0, t1, row, cause in zip(path.kind, path.thread, path.t0, path.t1,
                                                path.row, path.cause):
            if kind == cp.PYTHON and prev is not None and prev[0] == th and prev[1] == t0:
                seg = out[-1]
                seg["dur"] = round(seg["dur"] + (t1 - t0) / 1000.0, 3)
                prev = (th, t1)
                continue
            if kind == cp.PYTHON or row < 0:
                name, cat = "Python", "python"
            elif kind == cp.BLOCKED:
                name, cat = blocked_label(tl, row, cause), tl.cats[tl.cat[row]]
            else:
                name, cat = tl.names[tl.name[row]], tl.cats[tl.cat[row]]
            out.append({"name": name, "cat": cat, "tid": tl.threads[th][1],
                        "ts": round(t0 / 1000.0, 3), "dur": round((t1 - t0) / 1000.0, 3),
                        "kind": cp.KINDS[kind]})
            prev = (th, t1) if kind == cp.PYTHON else None
        return out

    def to_dict(self, segments=True, top=None):
        """The explain document; ``segments=False`` leaves out ``critical_path`` (one
        dict per segment: a million-op path makes millions, which a summary such as
        ``xprof report``'s does not draw); ``top``: ``by_name`` and ``top_ops`` cut to
        the first ``top`` names (a page that draws that many)."""
        doc = {"wall_ms": round(self.wall / _MS, 6),
               "critical_path_ms": round(self.path.length / _MS, 6),
               "composition": {key: round(self.by_kind.get(kind, 0) / _MS, 6)
                               for key, kind in COMPOSITION}}
        if segments:
            doc["critical_path"] = self.segments()
        ranked = self._top(top)
        names = self.tl.names
        doc["by_name"] = {names[i]: round(v / _MS, 6) for i, v in ranked}
        waited = self.waited_for_many([names[i] for i, _ in ranked])
        doc["top_ops"] = [{"name": names[i], "path_ms": round(v / _MS, 6),
                           "calls": int(self._name_calls[i]),
                           "waited_for": (waited.get(names[i]) or (None,))[0]}
                          for i, v in ranked]
        doc["threads"] = {n: {"busy_ms": round(b / _MS, 6), "blocked_ms": round(k / _MS, 6),
                              "idle_ms": round(i / _MS, 6)}
                          for n, (b, k, i, _) in self.thread_table().items()}
        doc["findings"] = findings(self.facts())
        if self.stragglers:
            doc["stragglers"] = self.stragglers
        return doc


def _is_call(tl):
    """Per name number: is it a custom-op call's slice (``<op>::pure_python``)?"""
    suffix = "::" + PURE_PYTHON
    return np.array([n.endswith(suffix) for n in tl.names] or [False], dtype=bool)


def method_of(name):
    """``Heavy.forward`` for a custom call's slice ``Heavy::pure_python``,
    ``Heavy.backward`` for ``_backward_Heavy::pure_python``; other names as they are."""
    op = name.split("::", 1)[0] if name.endswith("::" + PURE_PYTHON) else None
    if op is None:
        return name
    if op.startswith("_backward_"):
        return op[len("_backward_"):] + ".backward"
    return op + ".forward"


def blocked_label(tl, row, cause):
    """``blocked inside Heavy.forward on _plus_scalar``: a ``blocked`` segment of the path
    (``row`` the call's slice, ``cause`` the slice it waited for, -1: nothing running)."""
    inside = method_of(tl.names[tl.name[row]])
    if cause < 0:
        return f"blocked inside {inside}"
    return f"blocked inside {inside} on {tl.names[tl.name[cause]]}"


def trace_of(source, keys=False):
    """A ``Trace`` from a path (str/PathLike), a ``Trace``, or a list of trace events;
    ``keys``: with its layer and shape columns (a path's load; events always have them)."""
    if isinstance(source, Trace):
        return source
    if isinstance(source, (str, os.PathLike)):
        # of the links only the custom-op calls and the largest flow id (--mark-trace)
        return model.load(source, links="calls", records=True, keys=keys)[0]
    from xprof.traces.model import Builder

    return model.from_events(source, Builder(links="calls", keys=True))


def analyze(source, layers=False):
    """The :class:`Analysis` of a trace (path, ``Trace`` or events), with the straggler
    of each step when the trace has collectives (:mod:`.stragglers`); ``layers``: also
    each dependency record's layer name (``analysis.layers``, for ``layer:`` what-ifs)."""
    tl = trace_of(source, keys=layers)
    if tl.has_dependencies:
        graph = Graph(tl)
        path = cp.dependency_path(tl, graph)
        serial = False
    else:
        graph = None
        path = cp.serial_path(tl)
        serial = True
    analysis = Analysis(tl, graph, path, busy_blocked_idle(tl, path.window, graph), serial)
    analysis.stragglers = steps(arrivals(tl.collectives))
    if layers and graph is not None and tl.layer is not None:
        ids = tl.layer[graph.slice]
        analysis.layers = [tl.layers[i] if i >= 0 else None for i in ids.tolist()]
    return analysis


def explain(source):
    """The explain document (see the module docstring) of a trace path, ``Trace`` or list
    of events. Raises ``TraceError`` for an unreadable file."""
    return analyze(source).to_dict()
