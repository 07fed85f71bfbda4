"""Merge several Chrome traces (ours, MXNet's, PyTorch's) into one timeline.

Each input is read twice, streaming: a first pass learns what the second needs (the
file's top-level keys, its first timestamp, the named marker, its processes and which
of them are named), the second yields its events rewritten:

* processes get small pids that no other input uses (in order of first appearance,
  file by file), keep their names prefixed by the input's label (``rank R`` when the
  trace says which rank wrote it, else the file name), and are sorted file by file;
  a ranked input's processes also get the label ``rank R`` (``process_labels``), which
  ``xprof stats --by-process`` reads;
* flow ids (``s``/``t``/``f``), async ids (``b``/``n``/``e``, legacy ``S``/``T``/``F``/
  ``p``) and object ids are renumbered per input, so ids of two inputs never meet;
* clocks are aligned (``align``): ``start`` puts every input's first event at 0;
  ``clock`` places inputs by their recorded wall-clock anchor (xprof's
  ``otherData.start_time``, PyTorch's ``baseTimeNanoseconds``, or timestamps that are
  already microseconds since the epoch, as MXNet writes them); ``marker`` puts the
  first instant event named ``marker`` of every input at the same time.

:class:`MergedTrace` reads like a :class:`.tracefile.TraceReader` (``batches()``,
``top``, ``truncated``, ``lone_surrogates``, progress in bytes), so ``xprof trace`` treats a merge as one more input.
"""
from __future__ import annotations

import datetime
import os

from xprof.traces.rules import finite_number as _num, id_key as _key, rank_label

from xprof.traces.tracefile import TraceError, TraceReader

ALIGNS = ("start", "clock", "marker")
_FLOW = frozenset("stf")
_ASYNC = frozenset("bneSTFp")
_INSTANT = frozenset("iIR")
_EPOCH_US = (1e15, 1e17)   # timestamps in this range are µs since 1970 (2001..5138)


class _Input:
    """What the first pass learned about one file."""

    def __init__(self, path):
        self.path = path
        self.top = {}
        self.first_ts = None
        self.marker_ts = None
        self.pids = []            # original pid keys in order of first appearance
        self.named = set()        # pid keys with a process_name
        self.labelled = {}        # pid key -> its process_labels
        self.rank = None
        self.label = None
        self.shift = 0.0          # µs added to every timestamp

    def wall_anchor_us(self):
        """Microseconds since the epoch at this file's ts 0, or None."""
        other = self.top.get("otherData")
        if isinstance(other, dict) and isinstance(other.get("start_time"), str):
            try:
                when = datetime.datetime.fromisoformat(other["start_time"])
            except ValueError:
                when = None
            if when is not None and when.tzinfo is not None:
                return when.timestamp() * 1e6
        base = self.top.get("baseTimeNanoseconds")
        if _num(base):
            return base / 1000
        if self.first_ts is not None and _EPOCH_US[0] <= self.first_ts < _EPOCH_US[1]:
            return 0.0
        return None


class MergedTrace:
    """The merged events of ``paths``, as a trace reader would give them."""

    def __init__(self, paths, align="start", marker=None):
        if align not in ALIGNS:
            raise ValueError(f"--align {align!r} is not known; use one of "
                             f"{', '.join(ALIGNS)}")
        if (align == "marker") != (marker is not None):
            raise ValueError("--align marker needs the marker's name (--align marker NAME)")
        self.paths = [str(p) for p in paths]
        self.align = align
        self.marker = marker
        self.top = {}
        self.truncated = False
        self.lone_surrogates = 0   # as the readers of the second pass counted them
        self.inputs = []
        self._reading = None
        self._done_bytes = 0

    # -- progress, as a TraceReader's: bytes of the second pass over every input --------
    def total_bytes(self):
        return sum(os.path.getsize(p) for p in self.paths if os.path.exists(p))

    def bytes_read(self):
        return self._done_bytes + (self._reading.bytes_read() if self._reading else 0)

    # -- first pass --------------------------------------------------------------------
    def _scan(self, path):
        info = _Input(path)
        reader = TraceReader(path)
        seen = set()
        for batch, _ in reader.batches():
            for ev in batch:
                if type(ev) is not dict:
                    continue
                pid = _key(ev.get("pid"))
                if pid not in seen:
                    seen.add(pid)
                    info.pids.append(pid)
                ph = ev.get("ph")
                if ph == "M":
                    args = ev.get("args") if type(ev.get("args")) is dict else {}
                    if ev.get("name") == "process_name" and isinstance(args.get("name"), str):
                        info.named.add(pid)
                    elif ev.get("name") == "process_labels" and \
                            isinstance(args.get("labels"), str):
                        info.labelled[pid] = args["labels"]
                    continue
                ts = ev.get("ts")
                if not _num(ts):
                    continue
                if info.first_ts is None or ts < info.first_ts:
                    info.first_ts = ts
                if info.marker_ts is None and ph in _INSTANT and ev.get("name") == self.marker:
                    info.marker_ts = ts
        info.top = reader.top
        self.truncated = self.truncated or reader.truncated
        other = info.top.get("otherData")
        if isinstance(other, dict) and type(other.get("rank")) is int:
            info.rank = other["rank"]
        return info

    def _plan(self):
        self.inputs = [self._scan(p) for p in self.paths]
        names = [os.path.basename(p) for p in self.paths]
        for info, name in zip(self.inputs, names):
            unique = names.count(name) == 1
            info.label = rank_label(info.rank) if info.rank is not None else \
                (name if unique else info.path)
        timed = [i for i in self.inputs if i.first_ts is not None]
        if self.align == "start":
            for info in timed:
                info.shift = -info.first_ts
        elif self.align == "clock":
            anchors = []
            for info in timed:
                anchor = info.wall_anchor_us()
                if anchor is None:
                    raise TraceError(f"--align clock: {info.path} records no wall-clock "
                                     "time (no otherData.start_time, no "
                                     "baseTimeNanoseconds, timestamps not since the epoch); "
                                     "use --align start or --align marker NAME")
                anchors.append(anchor)
            base = min((a + i.first_ts for a, i in zip(anchors, timed)), default=0.0)
            for anchor, info in zip(anchors, timed):
                info.shift = anchor - base
        else:
            missing = [i.path for i in timed if i.marker_ts is None]
            if missing:
                raise TraceError(f"--align marker: no instant event named {self.marker!r} "
                                 f"in {', '.join(missing)}")
            lead = max((i.marker_ts - i.first_ts for i in timed), default=0.0)
            for info in timed:
                info.shift = lead - info.marker_ts
        self.top = {"displayTimeUnit": "ms", "otherData": {
            "merged_by": "xprof trace", "align": self.align,
            **({"marker": self.marker} if self.marker is not None else {}),
            "inputs": [{"file": i.path, "label": i.label, "shift_us": round(i.shift, 3),
                        **({"rank": i.rank} if i.rank is not None else {})}
                       for i in self.inputs]}}

    # -- second pass -------------------------------------------------------------------
    def batches(self):
        """``(events, maybe_big)`` batches of the merged trace, input by input."""
        self._plan()
        next_pid = 1
        next_id = 1
        for info in self.inputs:
            pids = {}
            for pid in info.pids:
                pids[pid] = next_pid
                next_pid += 1
            yield self._process_metadata(info, pids), False
            ids = {}
            reader = self._reading = TraceReader(info.path)
            for batch, maybe_big in reader.batches():
                out = []
                for ev in batch:
                    if type(ev) is not dict:
                        out.append(ev)
                        continue
                    ev = dict(ev)
                    pid = pids[_key(ev.get("pid"))]
                    ev["pid"] = pid
                    ph = ev.get("ph")
                    if ph == "M":
                        ev.pop("ts", None)
                        if not self._keep_metadata(ev, info):
                            continue
                    elif _num(ev.get("ts")):
                        ev["ts"] = round(ev["ts"] + info.shift, 3)
                    if ph in _FLOW or ph in _ASYNC or "id" in ev or "id2" in ev:
                        next_id = _renumber(ev, ph, pid, ids, next_id)
                    out.append(ev)
                yield out, maybe_big
            self.lone_surrogates += reader.lone_surrogates
            self._done_bytes += reader.total_bytes()
            self._reading = None

    def _keep_metadata(self, ev, info):
        """Rewrite a metadata event for the merge; False drops it."""
        name = ev.get("name")
        args = ev.get("args") if type(ev.get("args")) is dict else {}
        if name == "process_name" and isinstance(args.get("name"), str):
            ev["args"] = dict(args, name=_prefixed(info.label, args["name"]))
        elif name in ("process_sort_index", "process_labels"):
            return False       # written once per process by _process_metadata
        return True

    def _process_metadata(self, info, pids):
        """Names for unnamed processes, sort order file by file, rank labels."""
        out = []
        for key, pid in pids.items():
            if key not in info.named:
                out.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                            "args": {"name": f"{info.label}: process {key}"}})
            out.append({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0,
                        "args": {"sort_index": pid}})
            labels = [info.labelled[key]] if key in info.labelled else []
            if info.rank is not None:
                labels.insert(0, rank_label(info.rank))
            if labels:
                out.append({"name": "process_labels", "ph": "M", "pid": pid, "tid": 0,
                            "args": {"labels": ", ".join(labels)}})
        return out


def _prefixed(label, name):
    return name if name == label or name.startswith(label + ":") else f"{label}: {name}"


def _renumber(ev, ph, pid, ids, next_id):
    """Give ``ev``'s id (or id2) this input's new number for it; return the next free
    number. Flows, async events and objects are numbered apart, as the viewers key
    them apart; a ``local`` id2 is scoped to its process."""
    kind = "flow" if ph in _FLOW else "async" if ph in _ASYNC else "object"
    if "id" in ev:
        key = (kind, _key(ev["id"]))
        if key not in ids:
            ids[key] = next_id
            next_id += 1
        ev["id"] = ids[key]
    id2 = ev.get("id2")
    if type(id2) is dict and len(id2) == 1:
        scope, value = next(iter(id2.items()))
        key = (kind, scope, pid if scope == "local" else None, _key(value))
        if key not in ids:
            ids[key] = next_id
            next_id += 1
        ev["id2"] = {scope: ids[key]}
    return next_id
