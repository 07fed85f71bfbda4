"""How slices nest on a thread and which slice a flow step binds to: the rules, once.

Why one module: the validator (``checker.py``) judges traces by these rules
and ``xprof trace`` (``normalize.py``) moves and filters flow steps by them;
if the two disagreed, ``xprof trace`` would write arrows the validator
rejects, or drop arrows the viewers would draw.

The rules (what Perfetto and catapult both do):

* time is compared in integer nanoseconds, ``rint(ts_us * 1000)``, end =
  start + ``rint(dur_us * 1000)``, so float noise is not an overlap;
* a thread's slices are taken sorted by start, longer first on equal starts,
  then file order; each must end no later than the slice it starts inside
  (equal boundaries are fine: a slice that ends where the next starts is its
  sibling); one that ends later *overlaps*: it is reported and is nobody's
  parent;
* ``s``, ``t`` and an ``f`` with ``"bp": "e"`` bind to the innermost slice of
  their thread that encloses their ts (start <= ts <= end); an ``f`` without
  ``bp`` binds to the next slice of the thread starting at or after its ts.
"""
from __future__ import annotations

import bisect

import numpy as np

OUTSIDE = -1  # parent of a top-level slice


def to_ns(ts_us):
    """Microseconds (array or list) as int64 nanoseconds, as Perfetto rounds them."""
    return np.rint(np.asarray(ts_us, dtype=np.float64) * 1000).astype(np.int64)


def binds_to_next(ph, bp):
    """True for the one flow step that binds to the *next* slice (an ``f`` without bp 'e')."""
    return ph == "f" and bp != "e"


def sort_order(starts, ends, index):
    """Positions of slices in nesting order: by start, longer first, then ``index``."""
    return np.lexsort((index, starts - ends, starts))


def nest(s, e):
    """Parents of slices already in :func:`sort_order` (lists of int ns).

    Returns ``(parent, overlaps)``: ``parent[k]`` is the position of the slice
    ``k`` starts inside, or ``OUTSIDE``; ``overlaps`` lists ``(k, parent k,
    ns it ends too late)`` for slices that end after the one they start
    inside.  An overlapping slice keeps its parent (so walks upwards pass
    through it) but is never anyone's parent itself.
    """
    parent = [OUTSIDE] * len(s)
    overlaps = []
    stack = []  # positions of the open, properly nested slices
    for k in range(len(s)):
        start, end = s[k], e[k]
        while stack and e[stack[-1]] <= start:
            stack.pop()
        if stack:
            parent[k] = stack[-1]
            if end > e[stack[-1]]:
                overlaps.append((k, stack[-1], end - e[stack[-1]]))
                continue
        stack.append(k)
    return parent, overlaps


def flat(s, e):
    """True when no slice starts inside another (then all are top level): numpy, no loop."""
    return len(s) < 2 or bool(np.all(np.maximum.accumulate(e)[:-1] <= s[1:]))


class SliceTree:
    """One thread's slices, nested by the rules above, for binding flow steps one by one.

    ``items`` are any objects; ``starts``/``ends`` their times in µs.  After
    construction ``self.items`` is in nesting order.
    """

    def __init__(self, items, starts, ends):
        s, e = to_ns(starts), to_ns(starts) + (to_ns(ends) - to_ns(starts))
        order = sort_order(s, e, np.arange(len(items)))
        self.items = [items[k] for k in order.tolist()]
        self._s = s[order].tolist()
        self._e = e[order].tolist()
        self._parent, overlaps = nest(self._s, self._e)
        self._overlapping = {k for k, _, _ in overlaps}

    def enclosing(self, ts_us, accept=None):
        """The innermost slice enclosing ``ts_us`` for which ``accept(item)`` holds, or None."""
        ts = int(to_ns(ts_us))
        k = bisect.bisect_right(self._s, ts) - 1
        while k >= 0:
            if (self._e[k] >= ts and k not in self._overlapping
                    and (accept is None or accept(self.items[k]))):
                return self.items[k]
            k = self._parent[k]
        return None

    def next_at_or_after(self, ts_us, accept=None):
        """The first slice starting at or after ``ts_us`` (for which ``accept`` holds), or None."""
        ts = int(to_ns(ts_us))
        for k in range(bisect.bisect_left(self._s, ts), len(self.items)):
            if accept is None or accept(self.items[k]):
                return self.items[k]
            # a filtered-out slice: the viewers bind to the next one left in the output
        return None
