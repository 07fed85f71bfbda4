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
from operator import itemgetter

import numpy as np
import orjson

from xprof.traces.batch import view
from xprof.mxcli.analysis.grouping import LAYER_ARG, SHAPES_ARG, dims_of, shapes_label

MEMORY_CATEGORY = "Device Storage"

_RANK = re.compile(r"^rank (\d+):")


class RowKeys:
    """Fed batches of decoded events (:meth:`feed`), in file order, from the first.

    After the pass: ``ordinal``/``layer``/``shapes`` (int64 arrays, one entry per event
    with a layer or shapes; -1: none), ``layers``/``shape_labels`` (the interned texts),
    ``ranks`` ({pid: rank} for processes named ``rank R: ...``)."""

    def __init__(self):
        self.index = 0
        self._chunks = []   # (ordinals, layer ids, shape ids) arrays, a batch's in any order
        self.layers, self.shape_labels = [], []
        self._layer_ix, self._shape_ix = {}, {}
        self._inner_ix = {}   # an element's JSON without its outer brackets -> shape id
        self.ranks = {}
        self.memory_peak_kb = None

    def _intern(self, table, texts, value):
        ix = table.get(value)
        if ix is None:
            ix = table[value] = len(texts)
            texts.append(value)
        return ix

    def feed(self, events):
        """Add one batch: its ``X`` events from the batch's shared columns (their args,
        read once for every collector), the others (``B`` slices, counters, metadata)
        one by one."""
        base = self.index
        self.index += len(events)
        v = view(events)
        if v is None:
            self._feed_events(events, base, range(len(events)))
            return
        if v.x_pos:
            self._feed_x(v, base)
        if len(v.x_pos) < len(events):
            self._feed_events(v.others(), base, v.other_pos())

    def _feed_x(self, v, base):
        """The layer and shapes of the ``X`` events with args (as :meth:`_feed_events`
        reads them), interned column by column: one ``get`` per field and event, the
        shapes keyed by their JSON (one C call each), labelled once per new one."""
        args = v.args()
        if set(map(type, args)) == {dict} and min(map(len, args)) > 0:
            pos = v.x_pos   # every X event with args (an engine op's): no test per event
        else:
            pos = [k for k, a in zip(v.x_pos, args) if a and type(a) is dict]
            if not pos:
                return
            if len(pos) < len(args):
                args = [a for a in args if a and type(a) is dict]
        layer_ix = self._layer_ix
        layers = _column(args, LAYER_ARG)
        try:
            li = list(map(layer_ix.get, layers))
        except TypeError:   # an unhashable layer (a list): judged one by one below
            li = [None] * len(layers)
        if None in li:
            li = [i if i is not None else
                  (self._intern(layer_ix, self.layers, x) if type(x) is str and x else -1)
                  for i, x in zip(li, layers)]
        si = self._shape_ids(_column(args, SHAPES_ARG))
        li = np.array(li, dtype=np.int64)
        si = np.array(si, dtype=np.int64)
        keep = (li >= 0) | (si >= 0)
        self._chunks.append((np.array(pos, dtype=np.int64)[keep] + base, li[keep], si[keep]))

    def _shape_ids(self, dims):
        """The shape ids of a column of ``args["Input Dims"]`` values (-1: none)."""
        have = [j for j, d in enumerate(dims) if d is not None]
        si = [-1] * len(dims)
        if not have:
            return si
        if len(have) < len(dims):
            dims_in = [dims[j] for j in have]
        else:
            dims_in = dims
        ids = self._split_shapes(dims_in)
        if ids is None:   # not all plain lists of int lists: one by one
            ids = list(map(self._shape_id, dims_in))
        for j, ix in zip(have, ids):
            si[j] = ix
        return si

    def _split_shapes(self, dims):
        """Shape ids of ``dims`` from one JSON text of them all, cut where one element
        ends and the next begins (``]],[[``), or None when that text is not a list of
        lists of integer lists (any other kind of value: one by one). A cut is right
        when every piece, put back in ``[[...]]``, is such a list: the pieces then
        rejoin into the text, which is the JSON of exactly those values; each piece is
        checked once, when first seen."""
        try:
            raw = orjson.dumps(dims)
        except TypeError:
            return None
        if not raw.startswith(b"[[[") or raw.translate(None, b"0123456789,-[]"):
            return None
        parts = raw[3:-3].split(b"]],[[")
        if len(parts) != len(dims):
            return None
        inner = self._inner_ix
        ids = list(map(inner.get, parts))
        if None in ids:
            for p in set(p for i, p in zip(ids, parts) if i is None):
                try:
                    value = orjson.loads(b"[[" + p + b"]]")
                except orjson.JSONDecodeError:
                    return None
                if dims_of(value) is None:
                    return None
                inner[p] = self._shape_id(value)
            ids = list(map(inner.get, parts))
        return ids

    def _shape_id(self, dims):
        """The shape id of one ``args["Input Dims"]`` value (-1: not shapes), interned by
        its JSON, labelled once per new one."""
        try:
            raw = orjson.dumps(dims)
        except TypeError:
            return -1
        ix = self._shape_ix.get(raw)
        if ix is None:
            label = _shapes(dims)
            if label is None:
                ix = self._shape_ix[raw] = -1
            else:
                ix = self._shape_ix[raw] = len(self.shape_labels)
                self.shape_labels.append(label)
        return ix

    def _feed_events(self, events, base, positions):
        """Event by event (``positions``: each event's index in its batch)."""
        ords, layers_col, shapes_col = [], [], []
        layer_ix, shape_ix = self._layer_ix, self._shape_ix
        dumps = orjson.dumps
        for i, ev in zip(positions, events):
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
        if ords:
            self._chunks.append((np.array(ords, dtype=np.int64),
                                 np.array(layers_col, dtype=np.int64),
                                 np.array(shapes_col, dtype=np.int64)))

    def finish(self, report=None):
        chunks, self._chunks = self._chunks, []
        if chunks:
            ordinal, layer, shapes = (np.concatenate([c[j] for c in chunks]) for j in range(3))
            order = np.argsort(ordinal, kind="stable")   # X events before the others
            self.ordinal, self.layer, self.shapes = ordinal[order], layer[order], shapes[order]
        else:
            self.ordinal = self.layer = self.shapes = np.zeros(0, dtype=np.int64)
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


def _column(dicts, key):
    """``[d.get(key) for d in dicts]``, by one C-level walk when every dict has it."""
    try:
        return list(map(itemgetter(key), dicts))
    except KeyError:
        return [d.get(key) for d in dicts]


def _shapes(dims):
    dims = dims_of(dims)
    return None if dims is None else shapes_label(dims)
