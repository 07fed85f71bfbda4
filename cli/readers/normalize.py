"""Normalize a Chrome trace: sorted, small ids, named tracks, Custom Operator on its own tracks.

Why: traces from MXNet (64-bit hashed pids/tids and ids, B/E pairs), PyTorch
(string pids) or a mix of threads load differently, or not at all, in the
viewers.  ``xprof trace`` rewrites them into one shape that both Perfetto and
catapult read the same way.  The whole trace is held in memory (it must be
sorted); the output is validated by the caller before anything is written.

What changes:

* ``B``/``E`` pairs (matched per thread in file order) become ``X`` events
  (the B's fields, ``dur`` = E.ts - B.ts, args merged); unmatched ones are
  dropped and counted in the notes;
* events are sorted by ``ts``; at equal ts, an ``f`` without ``bp`` comes
  first (it binds to the *next* slice, which must not already have begun),
  then longer ``X`` before shorter (parents before children), then file order;
* pids and tids become small integers in order of first appearance; every
  process and thread gets a name (existing names are kept; unnamed ones are
  called ``process <old pid>`` / ``thread <old tid>``); integer async and
  flow ids are renumbered too (JavaScript cannot hold 64-bit ids);
* thread-bound events of the ``Custom Operator`` domain move to a separate
  thread per original thread, named ``<thread name> · Custom Operator``.
  A flow step binds to a slice on its own track, so each flow event (s/t/f)
  moves to the track of the slice it bound to in the input (rules in
  ``slices.py``), the innermost *kept* slice: filters keep an arrow whose
  ends are inside kept slices, and drop it whole (with a note) only when an
  end binds to no kept slice;
* counters lose their (meaningless) tid; global and process instants too.

Filters: ``domains`` (category, exact), ``name_glob`` (fnmatch, case
sensitive), and a window ``[since_ms, until_ms]`` measured from the first
event's ts; a slice or async pair is kept if it overlaps the window.
"""
from __future__ import annotations

import fnmatch
import math

from .slices import SliceTree, binds_to_next

CUSTOM_OP = "Custom Operator"
LANE_SUFFIX = " · Custom Operator"
_FLOW = ("s", "t", "f")


def _key(value):
    try:
        hash(value)
        return ("s", value) if isinstance(value, str) else ("v", value)
    except TypeError:
        return ("r", repr(value))


def _num(value):
    return (type(value) is int or type(value) is float) and math.isfinite(value)


class _Item:
    __slots__ = ("ev", "seq", "pid", "tid", "keep", "lane", "end", "partner", "bound")

    def __init__(self, ev, seq, pid, tid):
        self.ev = ev
        self.seq = seq
        self.pid = pid
        self.tid = tid
        self.keep = True
        self.lane = ""
        self.end = ev["ts"]
        self.partner = None
        self.bound = None


class _Meta:
    def __init__(self):
        self.process_name = {}
        self.thread_name = {}
        self.process_sort = {}
        self.thread_sort = {}
        self.process_labels = {}

    def add(self, ev):
        name = ev.get("name")
        args = ev.get("args") if type(ev.get("args")) is dict else {}
        pid = _key(ev.get("pid"))
        thread = (pid, _key(ev.get("tid")))
        if name == "process_name" and isinstance(args.get("name"), str) and args["name"]:
            self.process_name[pid] = args["name"]
        elif name == "thread_name" and isinstance(args.get("name"), str) and args["name"]:
            self.thread_name[thread] = args["name"]
        elif name == "process_sort_index" and _num(args.get("sort_index")):
            self.process_sort[pid] = args["sort_index"]
        elif name == "thread_sort_index" and _num(args.get("sort_index")):
            self.thread_sort[thread] = args["sort_index"]
        elif name == "process_labels" and isinstance(args.get("labels"), str):
            self.process_labels[pid] = args["labels"]


def _collect(events, notes):
    """Metadata, and the timed events as items (B/E pairs folded into X)."""
    meta = _Meta()
    items = []
    open_b = {}
    dropped = 0
    for seq, ev in enumerate(events):
        if type(ev) is not dict:
            dropped += 1
            continue
        ph = ev.get("ph")
        if ph == "M":
            meta.add(ev)
            continue
        if not _num(ev.get("ts")):
            dropped += 1
            continue
        thread = (_key(ev.get("pid")), _key(ev.get("tid")))
        if ph == "B":
            open_b.setdefault(thread, []).append((seq, ev))
            continue
        if ph == "E":
            stack = open_b.get(thread)
            if not stack or ev["ts"] < stack[-1][1]["ts"]:
                dropped += 1
                continue
            b_seq, b = stack.pop()
            x = {k: v for k, v in b.items() if k not in ("ph", "dur", "args")}
            x["ph"] = "X"
            x["dur"] = ev["ts"] - b["ts"]
            args = {}
            for part in (b.get("args"), ev.get("args")):
                if type(part) is dict:
                    args.update(part)
            if args:
                x["args"] = args
            ev, seq = x, b_seq
        items.append(_Item(ev, seq, thread[0], thread[1]))
    unmatched = sum(len(s) for s in open_b.values())
    if unmatched:
        notes.append(f"dropped {unmatched} B events that never ended")
    if dropped:
        notes.append(f"dropped {dropped} malformed or unmatched events")
    return meta, items


def _pair_async(items):
    """Link async b to e (per cat and id, as a stack) so filters keep or drop both."""
    open_ = {}
    for item in items:
        ph = item.ev.get("ph")
        if ph not in ("b", "e"):
            continue
        key = (_key(item.ev.get("cat")), _key(item.ev.get("id", item.ev.get("id2"))))
        if ph == "b":
            open_.setdefault(key, []).append(item)
        elif open_.get(key):
            begin = open_[key].pop()
            begin.partner, item.partner = item, begin
            begin.end = item.ev["ts"]
    for item in items:
        if item.ev.get("ph") == "X" and _num(item.ev.get("dur")):
            item.end = item.ev["ts"] + item.ev["dur"]


def _apply_filters(items, domains, since_ms, until_ms, name_glob):
    if not items:
        return
    t0 = min(item.ev["ts"] for item in items)
    lo = -math.inf if since_ms is None else t0 + since_ms * 1000.0
    hi = math.inf if until_ms is None else t0 + until_ms * 1000.0
    for item in items:
        ev = item.ev
        if item.partner is not None and ev.get("ph") == "e":
            continue  # decided with its b
        if ev.get("ph") in _FLOW:
            continue  # decided by the slices its steps bind to (_bind_flows)
        keep = True
        cat = ev.get("cat")
        if domains and not (isinstance(cat, str) and cat in domains):
            keep = False
        elif name_glob is not None and not (isinstance(ev.get("name"), str)
                                            and fnmatch.fnmatchcase(ev["name"], name_glob)):
            keep = False
        elif item.end < lo or ev["ts"] > hi:
            keep = False
        item.keep = keep
        if item.partner is not None:
            item.partner.keep = keep


def _bind_flows(items, notes):
    """Bind each flow step to the innermost *kept* slice of its input thread (rules: slices.py).

    A flow is kept when every step binds; it then moves with each step to the
    track of its slice.  Filters do not judge flow events themselves: an
    arrow between two kept slices is kept whatever its own cat or name.
    """
    by_thread = {}
    for item in items:
        if item.keep and item.ev.get("ph") == "X":
            by_thread.setdefault((item.pid, item.tid), []).append(item)
    trees = {key: SliceTree(slices, [it.ev["ts"] for it in slices], [it.end for it in slices])
             for key, slices in by_thread.items()}
    flows = {}
    for item in items:
        if item.ev.get("ph") in _FLOW:
            flows.setdefault(_key(item.ev.get("id", item.ev.get("id2"))), []).append(item)
    outside = 0
    for steps in flows.values():
        ok = True
        for step in steps:
            tree = trees.get((step.pid, step.tid))
            ts = step.ev["ts"]
            if tree is None:
                step.bound = None
            elif binds_to_next(step.ev.get("ph"), step.ev.get("bp")):
                step.bound = tree.next_at_or_after(ts)
            else:
                step.bound = tree.enclosing(ts)
            if step.bound is None:
                ok = False
                break
        for step in steps:
            step.keep = ok
            if ok:
                step.lane = step.bound.lane
        if not ok:
            outside += 1
    if outside:
        why = ("no kept slice encloses it (filtered out, or not in the input)"
               if any(not it.keep for it in items if it.ev.get("ph") == "X")
               else "no slice encloses it in the input")
        notes.append(f"dropped {outside} flow arrow{'' if outside == 1 else 's'} with a start or "
                     f"end that binds to no slice: {why}")


def _sort_key(item):
    ev = item.ev
    ph = ev.get("ph")
    if binds_to_next(ph, ev.get("bp")):
        second = -math.inf
    elif ph == "X":
        second = -(item.end - ev["ts"])
    else:
        second = 0.0
    return (ev["ts"], second, item.seq)


def _display(value):
    return repr(value[1]) if value[0] == "s" else str(value[1])


def _fallback_name(kind, old):
    """A string pid/tid is the viewers' own label for the track; otherwise '<kind> <old id>'."""
    if old[0] == "s" and old[1]:
        return old[1]
    return f"{kind} {_display(old)}"


def normalize(events, top=None, domains=(), since_ms=None, until_ms=None, name_glob=None):
    """Return ``(document, notes)``: the normalized trace object and what was dropped.

    The event dicts are reused (modified in place) to halve peak memory; the
    caller must not use ``events`` afterwards.
    """
    notes = []
    meta, items = _collect(events, notes)
    _pair_async(items)
    _apply_filters(items, set(domains), since_ms, until_ms, name_glob)
    for item in items:
        ev = item.ev
        ph = ev.get("ph")
        if ev.get("cat") == CUSTOM_OP and (ph == "X" or (ph in ("i", "I") and ev.get("s", "t") == "t")):
            item.lane = CUSTOM_OP
    _bind_flows(items, notes)
    kept = sorted((it for it in items if it.keep), key=_sort_key)

    pids, tids, async_ids, flow_ids = {}, {}, {}, {}
    out = []
    for item in kept:
        ev = item.ev  # updated in place: the input events are not used afterwards
        ph = ev.get("ph")
        pid = pids.setdefault(item.pid, len(pids))
        ev["pid"] = pid
        thread_bound = not (ph == "C" or (ph in ("i", "I") and ev.get("s", "t") in ("g", "p")))
        if thread_bound and item.tid != ("v", None):
            ev["tid"] = tids.setdefault((item.pid, item.tid, item.lane), len(tids) + 1)
        else:
            ev.pop("tid", None)
        if type(ev.get("id")) is int:
            table = flow_ids if ph in ("s", "t", "f") else async_ids
            ev["id"] = table.setdefault(ev["id"], len(table) + 1)
        out.append(ev)

    header = []
    for old, pid in pids.items():
        name = meta.process_name.get(old)
        if name is None:
            name = _fallback_name("process", old)
        header.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
        if old in meta.process_sort:
            header.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                           "args": {"sort_index": meta.process_sort[old]}})
        if old in meta.process_labels:
            header.append({"name": "process_labels", "ph": "M", "pid": pid,
                           "args": {"labels": meta.process_labels[old]}})
    for (old_pid, old_tid, lane), tid in tids.items():
        base = meta.thread_name.get((old_pid, old_tid))
        if base is None:
            base = _fallback_name("thread", old_tid)
        name = base + LANE_SUFFIX if lane else base
        pid = pids[old_pid]
        header.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}})
        if (old_pid, old_tid) in meta.thread_sort:
            header.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                           "args": {"sort_index": meta.thread_sort[(old_pid, old_tid)]}})

    doc = {"traceEvents": header + out}
    top = dict(top or {})
    top.pop("traceEvents", None)
    unit = top.pop("displayTimeUnit", "ms")
    doc["displayTimeUnit"] = unit if unit in ("ms", "ns") else "ms"
    other = top.pop("otherData", None)
    doc.update(top)
    doc["otherData"] = dict(other) if isinstance(other, dict) else {}
    doc["otherData"]["normalized_by"] = "xprof trace"
    return doc, notes
