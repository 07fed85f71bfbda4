"""The layer and input shapes of each slice, read from the events' args while a
:class:`~.model.Trace` is loaded (``Builder(keys=True)``), and the collectives' args.

Why in the model: ``xprof diff`` matches ops by (name, layer, input shapes), ``xprof
stats --group-by layer|op,layer|shape`` groups by them and ``explain --what-if
layer:NAME`` selects by the layer; each read the args its own way. The ``Trace`` keeps a
slice's name, thread and times; this table keeps, for the few events that carry args,
their ``args.name`` (the layer xprof records on every engine op) and ``args["Input
Dims"]`` (xprof, PyTorch with ``record_shapes``) as interned ids, by the event's index in
the file (the slice's ``ordinal``; a ``B``'s for a ``B``/``E`` slice), and the ``Trace``
gets them as its ``layer``/``shape`` columns.

:func:`layer_of` and :func:`shapes_label` are the rules that name a layer and a list of
shapes (MXNet's naming, PyTorch's printing).
"""
from __future__ import annotations

import re
from operator import itemgetter

import numpy as np
import orjson

from .names import INPUT_DIMS

SHAPES_ARG = INPUT_DIMS        # PyTorch's key, which xprof writes too
LAYER_ARG = "name"
# what MXNet appends to a layer's name: a hybridized graph node's "_fwd"; a parameter
# (an update op carries its parameter's name); a Dense/Conv layer's own activation
_LAYER_SUFFIX = re.compile(
    r"(_fwd)?(_(l\d+_)?(i2h_|h2h_|h2r_)?(weight|bias|gamma|beta|alpha|running_mean|"
    r"running_var|moving_mean|moving_var))?(_(relu|sigmoid|tanh|softrelu|softsign))?(_fwd)?$")


def layer_of(name):
    """The layer a recorded ``args.name`` belongs to (``dense0_weight`` -> ``dense0``)."""
    stem = _LAYER_SUFFIX.sub("", name, count=1)
    return stem or name


def shapes_label(dims):
    """``[[8, 1, 28, 28], [20]]`` as text (PyTorch prints input shapes this way)."""
    return "[" + ", ".join("[" + ", ".join(str(d) for d in shape) + "]" for shape in dims) + "]"


def dims_of(value):
    """``value`` when it is a list of shapes (lists of ints), else None."""
    if type(value) is not list:
        return None
    for shape in value:
        if type(shape) is not list or any(type(d) is not int for d in shape):
            return None
    return value


class ArgKeys:
    """Fed batches of decoded events (:meth:`feed`), in file order, from the first.

    :meth:`finish` gives ``ordinal``/``layer``/``shapes`` (int64 arrays, one entry per
    event with a layer or shapes; -1: none) and the interned texts ``layers``/
    ``shape_labels``; :meth:`of_slices` the ids of slices by their ordinals."""

    def __init__(self):
        self._chunks = []   # (ordinals, layer ids, shape ids) arrays, a batch's in any order
        self.layers, self.shape_labels = [], []
        self._layer_ix, self._shape_ix = {}, {}
        self._inner_ix = {}   # an element's JSON without its outer brackets -> shape id

    def _intern(self, table, texts, value):
        ix = table.get(value)
        if ix is None:
            ix = table[value] = len(texts)
            texts.append(value)
        return ix

    def feed(self, events, v, base):
        """Add one batch (``v``: its view or None; ``base``: its first event's index in
        the file): its ``X`` events from the view's columns (their args, read once), the
        ``B`` events one by one."""
        if v is None:
            self._feed_events(events, base, range(len(events)))
            return
        if v.x_pos:
            self._feed_x(v, base)
        if len(v.x_pos) < len(events) and "B" in v.phs:
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
        if ords:
            self._chunks.append((np.array(ords, dtype=np.int64),
                                 np.array(layers_col, dtype=np.int64),
                                 np.array(shapes_col, dtype=np.int64)))

    def finish(self):
        chunks, self._chunks = self._chunks, []
        if chunks:
            ordinal, layer, shapes = (np.concatenate([c[j] for c in chunks]) for j in range(3))
            order = np.argsort(ordinal, kind="stable")   # X events before the others
            self.ordinal, self.layer, self.shapes = ordinal[order], layer[order], shapes[order]
        else:
            self.ordinal = self.layer = self.shapes = np.zeros(0, dtype=np.int64)

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
