"""What identifies an operator across two runs: its layer and input shapes, by event.

``xprof diff`` matches the slices of two traces by (name, layer, input shapes): an
op's name alone mixes the two convolutions of a network, and its time stamps or order
differ between runs. The :class:`~.timeline.Timeline` keeps a slice's name, thread and
times but not its args, so this collector, fed the same batches (in the same pass),
keeps what the match needs from the few events that carry args: by the event's index
in the file (the timeline's ``ordinal``), its ``args.name`` (the layer xprof records)
and ``args["Input Dims"]`` (xprof, PyTorch with ``record_shapes``) as interned ids.
It also keeps process names, so the ranks of a merged multi-rank trace (``rank R:
...``) compare rank by rank, and the peak of the memory counters.
"""
from __future__ import annotations

import re

import numpy as np
import orjson

from .grouping import LAYER_ARG, SHAPES_ARG, dims_of, shapes_label

MEMORY_CATEGORY = "Device Storage"

_RANK = re.compile(r"^rank (\d+):")


class RowKeys:
    """Fed batches of decoded events (:meth:`feed`), in file order, from the first.

    After the pass: ``ordinal``/``layer``/``shapes`` (int64 arrays, one entry per event
    with a layer or shapes; -1: none), ``layers``/``shape_labels`` (the interned texts),
    ``ranks`` ({pid: rank} for processes named ``rank R: ...``)."""

    def __init__(self):
        self.index = 0
        self._ord, self._layer, self._shapes = [], [], []
        self.layers, self.shape_labels = [], []
        self._layer_ix, self._shape_ix = {}, {}
        self.ranks = {}
        self.memory_peak_kb = None

    def _intern(self, table, texts, value):
        ix = table.get(value)
        if ix is None:
            ix = table[value] = len(texts)
            texts.append(value)
        return ix

    def feed(self, events):
        base = self.index
        self.index += len(events)
        ords, layers_col, shapes_col = self._ord, self._layer, self._shapes
        layer_ix, shape_ix = self._layer_ix, self._shape_ix
        dumps = orjson.dumps
        for i, ev in enumerate(events):
            if type(ev) is not dict:
                continue
            args = ev.get("args")
            if not args or type(args) is not dict:
                continue
            ph = ev.get("ph")
            if ph == "X" or ph == "B":
                layer = args.get(LAYER_ARG)
                dims = args.get(SHAPES_ARG)
                li = -1
                if layer is not None and type(layer) is str and layer:
                    li = layer_ix.get(layer)
                    if li is None:
                        li = self._intern(layer_ix, self.layers, layer)
                si = -1
                if dims is not None:
                    try:   # interned by their JSON (C speed), labelled once per new one
                        raw = dumps(dims)
                    except TypeError:
                        raw = None
                    si = shape_ix.get(raw, -2) if raw is not None else -1
                    if si == -2:
                        label = _shapes(dims)
                        if label is None:
                            si = shape_ix[raw] = -1
                        else:
                            si = shape_ix[raw] = len(self.shape_labels)
                            self.shape_labels.append(label)
                if li >= 0 or si >= 0:
                    ords.append(base + i)
                    layers_col.append(li)
                    shapes_col.append(si)
            elif ph == "C":   # a memory counter: its peak (kB, as xprof stats shows it)
                name = ev.get("name")
                if ev.get("cat") == MEMORY_CATEGORY or (type(name) is str
                                                       and name.startswith("Memory:")):
                    for v in args.values():
                        if type(v) in (int, float) and v == v and abs(v) < 2 ** 63:
                            kb = v / 1000.0
                            if self.memory_peak_kb is None or kb > self.memory_peak_kb:
                                self.memory_peak_kb = kb
            elif ph == "M" and ev.get("name") == "process_name":
                m = _RANK.match(str(args.get("name", "")))
                if m:
                    try:
                        self.ranks[ev.get("pid")] = int(m.group(1))
                    except TypeError:   # an unhashable pid: no rank for it
                        pass

    def finish(self, report=None):
        self.ordinal = np.array(self._ord, dtype=np.int64)
        self.layer = np.array(self._layer, dtype=np.int64)
        self.shapes = np.array(self._shapes, dtype=np.int64)
        self._ord = self._layer = self._shapes = None
        if report is not None:
            report.extra["rowkeys"] = self

    def of_slices(self, ordinals):
        """``(layer ids, shape ids)`` of slices with these ordinals (-1: none)."""
        if not len(self.ordinal):
            none = np.full(len(ordinals), -1, dtype=np.int64)
            return none, none.copy()
        at = np.searchsorted(self.ordinal, ordinals)
        at_c = np.minimum(at, len(self.ordinal) - 1)
        hit = self.ordinal[at_c] == ordinals
        return (np.where(hit, self.layer[at_c], -1), np.where(hit, self.shapes[at_c], -1))


def _shapes(dims):
    dims = dims_of(dims)
    return None if dims is None else shapes_label(dims)
