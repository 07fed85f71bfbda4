"""A batch of decoded trace events seen as columns, computed once for every collector fed it.

Why: one streaming pass feeds each batch to several collectors (``xprof report``: the
statistics, custom-op calls, latency, its overview and the explain timeline), and each
walked the batch's events in Python on its own, reading the same fields of the same
``X`` events (most of any trace). :class:`Batch` is the list the reader decoded, with
its :class:`BatchView` (every event's phase, the ``X`` events and their fields) made on
the first collector's request and kept for the others. Collectors also accept a plain
list (tests, callers with events in hand): :func:`view` then computes the view for that
call only.
"""
from __future__ import annotations

from operator import itemgetter

X_FIELDS = ("ts", "dur", "cat", "name", "pid", "tid")
_X_GETS = tuple(itemgetter(f) for f in X_FIELDS)
_PH = itemgetter("ph")


class BatchView:
    """The columns of one batch: ``phs`` (each event's ``ph``), ``x_pos`` (positions of
    the ``X`` events), ``xs`` (those events); :meth:`fields`, :meth:`args` and
    :meth:`others` on demand."""

    # No reference to the batch itself: a Batch holds its view, and a cycle would keep
    # every batch alive while the readers run with the garbage collector off.
    __slots__ = ("phs", "x_pos", "xs", "_others", "_fields", "_args", "names")

    def __init__(self, events):
        try:
            self.phs = list(map(_PH, events))
        except (KeyError, TypeError):
            self.phs = [ev.get("ph") for ev in events]   # AttributeError: not all objects
        if self.phs.count("X") == len(self.phs):   # all slices: no test per event
            self.x_pos = list(range(len(self.phs)))
        else:
            self.x_pos = [k for k, ph in enumerate(self.phs) if ph == "X"]
        if len(self.x_pos) < len(events):
            self.xs = [events[k] for k in self.x_pos]
            self._others = [ev for ev, ph in zip(events, self.phs) if ph != "X"]
        else:
            self.xs, self._others = list(events), []
        self._fields = self._args = None
        self.names = None   # the pass's name numbering, when the batch carries one

    def fields(self):
        """``(ts, dur, cat, name, pid, tid)`` of the ``X`` events, one sequence each
        (None where an event lacks the key)."""
        if self._fields is None:
            try:   # one C-level walk per field (zip(*rows) of a batch's tuples: 5x slower)
                cols = tuple(list(map(get, self.xs)) for get in _X_GETS)
            except KeyError:
                cols = tuple([ev.get(f) for ev in self.xs] for f in X_FIELDS)
            self._fields = cols
        return self._fields

    def args(self):
        """``args`` of the ``X`` events (None where absent)."""
        if self._args is None:
            self._args = [ev.get("args") for ev in self.xs]
        return self._args

    def others(self):
        """Every event that is not ``X``, in order (positions: :meth:`other_pos`)."""
        return self._others

    def other_pos(self):
        """The positions of :meth:`others` in the batch."""
        return [k for k, ph in enumerate(self.phs) if ph != "X"]

    @property
    def has_pairs(self):
        """Whether the batch holds ``B``/``E`` events."""
        return "B" in self.phs or "E" in self.phs


class Batch(list):
    """Decoded events (a list) that keep their :class:`BatchView` once made. Not to be
    changed after it was fed to a collector.

    ``names``: the pass's numbering of slice names (``{name: number}``, a new name
    numbered ``len(names)``), given by the pass to every batch, so that the collectors
    fed them (the statistics, the timeline) number names once, in one dict, instead of
    each keeping its own (a trace of a million names: a million entries less); None
    for a batch without it (the collector then numbers names itself)."""

    __slots__ = ("_view", "names")

    def __init__(self, events=(), names=None):
        super().__init__(events)
        self.names = names

    def view(self):
        try:
            return self._view
        except AttributeError:
            try:
                self._view = BatchView(self)
                self._view.names = self.names
            except AttributeError:    # an event that is not an object
                self._view = None
            return self._view


def view(events):
    """The :class:`BatchView` of ``events`` (kept by a :class:`Batch`), or None when an
    event is not a JSON object (the collector then reads event by event)."""
    if type(events) is Batch:
        return events.view()
    try:
        return BatchView(events)
    except AttributeError:
        return None
