"""Several trace files read as one :class:`~.model.Trace`, merged on the way in.

Why: a distributed job leaves one trace per rank (``profile.rank0.json``, ...); ``xprof
stats rank*.json --by-process`` should read them without an intermediate file. The
rules are those of ``xprof trace A B -o merged.json`` (``cli/streaming/merge.py``, its
default ``--align start``), applied while each file is read once:

* every input's processes get small pids no other input uses, numbered in order of
  first appearance, file by file; flow ids are the input's own (two inputs' flows never
  meet; async pairs are keyed by their process, :func:`.rules.async_key`, so they never
  meet either);
* a process keeps its name prefixed by its input's label (``rank R`` when the file
  records its rank, ``otherData.rank``, else the file's name), an unnamed one is
  ``<label>: process <pid>``, and a ranked input's processes are labelled ``rank R``
  (what ``--by-process`` reads, :func:`.rules.rank_of`);
* every input's clock starts at 0: its times are moved back by its first event's time.
"""
from __future__ import annotations

import os

from .rules import finite_number, id_key, rank_label
from .tracefile import TraceReader

_FLOW = frozenset("stf")


class Input:
    """What is learnt of one input while it is read."""

    def __init__(self, path):
        self.path = str(path)
        self.pids = {}        # original pid key -> new pid
        self.first_ts = None
        self.rank = None
        self.label = None
        self.top = {}


class MergedInputs:
    """The batches of ``paths``, rewritten as one trace's (see the module docstring);
    ``truncated``: whether one input was cut; :meth:`finish` names the ``Trace``'s
    processes and moves its clocks once every input is read."""

    def __init__(self, paths):
        self.inputs = [Input(p) for p in paths]
        self.truncated = False
        self.top = {}
        self._next_pid = 1
        self._readers = []

    def batches(self):
        for k, info in enumerate(self.inputs):
            reader = TraceReader(info.path)
            self._readers.append(reader)
            for batch, maybe_big in reader.batches():
                self._rewrite(batch, k, info)
                yield batch, maybe_big
                batch = None   # not kept while the next is decoded
            info.top = reader.top
            self.truncated = self.truncated or reader.truncated
            other = reader.top.get("otherData") if isinstance(reader.top, dict) else None
            if isinstance(other, dict) and type(other.get("rank")) is int:
                info.rank = other["rank"]
        names = [os.path.basename(i.path) for i in self.inputs]
        for info, name in zip(self.inputs, names):
            info.label = rank_label(info.rank) if info.rank is not None else \
                (name if names.count(name) == 1 else info.path)
        self.top = {"otherData": {"merged_by": "xprof", "align": "start", "inputs": [
            {"file": i.path, "label": i.label, **({"rank": i.rank} if i.rank is not None
                                                  else {})} for i in self.inputs]}}

    def bytes_read(self):
        return sum(r.bytes_read() for r in self._readers)

    def total_bytes(self):
        return sum(os.path.getsize(i.path) for i in self.inputs if os.path.exists(i.path))

    def _rewrite(self, batch, k, info):
        pids = info.pids
        first = info.first_ts
        for ev in batch:
            if type(ev) is not dict:
                continue
            key = id_key(ev.get("pid"))
            pid = pids.get(key)
            if pid is None:
                pid = pids[key] = self._next_pid
                self._next_pid += 1
            ev["pid"] = pid
            ph = ev.get("ph")
            if ph == "M":
                continue
            ts = ev.get("ts")
            if finite_number(ts) and (first is None or ts < first):
                first = ts
            if ph in _FLOW:
                for field in ("id", "id2"):
                    if field in ev:
                        ev[field] = (k, id_key(ev[field]))
        info.first_ts = first

    def finish(self, tl):
        """Name the ``Trace``'s processes after their inputs and start every input's
        clock at 0 (its slices, pairs, flow steps and dependency times)."""
        names, labels = {}, {}
        shift_of_pid = {}
        for info in self.inputs:
            shift = round(info.first_ts * 1000) if info.first_ts is not None else 0
            for key, pid in info.pids.items():
                shift_of_pid[pid] = shift
                name = tl.process_names.get(pid)
                if name is None:
                    names[pid] = f"{info.label}: process {key}"
                elif name == info.label or name.startswith(info.label + ":"):
                    names[pid] = name
                else:
                    names[pid] = f"{info.label}: {name}"
                own = [tl.process_labels[pid]] if pid in tl.process_labels else []
                if info.rank is not None:
                    own.insert(0, rank_label(info.rank))
                if own:
                    labels[pid] = ", ".join(own)
        tl.process_names, tl.process_labels = names, labels
        tl.move_clocks(shift_of_pid)
