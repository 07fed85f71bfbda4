"""How slices nest on a thread and which slice a flow step binds to: the rules, once.

Why one module: the validator (``checker.py``) judges traces by these rules
and ``xprof trace`` (``normalize.py``) moves and filters flow steps by them;
if the two disagreed, ``xprof trace`` would write arrows the validator
rejects, or drop arrows the viewers would draw.

The rules (what Perfetto and catapult both do):

* time is compared in integer nanoseconds, ``rint(ts_us * 1000)``, end =
  start + ``rint(dur_us * 1000)`` (``rules.py``: the units every reader uses), so
  float noise is not an overlap;
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

import numpy as np

from .rules import to_ns

_BLOCK = 1 << 16   # slices gathered at a time (parents_nested)

OUTSIDE = -1  # parent of a top-level slice


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


def parents_nested(ss, es, top):
    """Each slice's parent (position, -1: none) in slices in :func:`sort_order` (int64
    ns arrays; ``top``: nothing is open at its start), when they nest properly; None
    when some slice overlaps its parent's end (then :func:`nest` applies the rule).

    The parent is the nearest earlier slice still open at the start (``end > start``),
    found for every slice at once by pointer jumping: each candidate that has ended
    is replaced by its own candidate (everything between them ended before the
    candidate's start, hence before this start), so a few vectorized rounds do (about
    the nesting depth, at most log2 of the slices more)."""
    n = len(ss)
    # (positions as int32 below 2^31 slices, and the round's two gathers by blocks: a
    # 1M-slice thread's first round is ``xprof stats``' peak otherwise)
    ptr = np.arange(-1, n - 1, dtype=np.int32 if n < 2 ** 31 else np.int64)
    ptr[top] = -1
    todo = np.flatnonzero(~top).astype(ptr.dtype)
    while len(todo):
        cand = ptr[todo]
        ended = np.empty(len(todo), dtype=bool)
        for c0 in range(0, len(todo), _BLOCK):
            c1 = c0 + _BLOCK
            ended[c0:c1] = es[cand[c0:c1]] <= ss[todo[c0:c1]]
        todo, cand = todo[ended], cand[ended]
        ended = None
        ptr[todo] = ptr[cand]
        cand = None
        todo = todo[ptr[todo] >= 0]
    has = ptr >= 0
    if bool(np.any(es[has] > es[ptr[has]])):
        return None
    return ptr


def flat(s, e):
    """True when no slice starts inside another (then all are top level): numpy, no loop."""
    return len(s) < 2 or bool(np.all(np.maximum.accumulate(e)[:-1] <= s[1:]))


class SliceTree:
    """One thread's slices, nested by the rules above, for binding many flow steps at once.

    ``items`` are the slices' labels (e.g. event positions, a numpy array);
    ``starts``/``ends`` their times in µs; ``index`` breaks ties (file order).
    The queries take int64 ns arrays and return labels, ``-1`` where nothing binds.
    """

    def __init__(self, items, starts, ends, index):
        s, e = to_ns(starts), to_ns(ends)
        order = sort_order(s, e, np.asarray(index))
        self.items = np.asarray(items)[order]
        self._s, self._e = s[order], e[order]
        if flat(self._s, self._e):
            self._parent = np.full(len(order), OUTSIDE, np.int64)
            self._usable = np.ones(len(order), bool)
        else:
            parent, overlaps = nest(self._s.tolist(), self._e.tolist())
            self._parent = np.asarray(parent, np.int64)
            self._usable = np.ones(len(order), bool)
            self._usable[[k for k, _, _ in overlaps]] = False

    def enclosing(self, ts):
        """Innermost slice with start <= ts <= end (an overlapping slice never binds)."""
        k = enclosing(self._s, self._e, self._parent, self._usable, ts)
        return np.where(k >= 0, self.items[np.maximum(k, 0)] if len(self.items) else -1, -1)

    def next_at_or_after(self, ts):
        """The first slice (in nesting order) starting at or after ts."""
        k = next_at_or_after(self._s, ts)
        return np.where(k >= 0, self.items[np.maximum(k, 0)] if len(self.items) else -1, -1)


def enclosing(s, e, parent, usable, ts):
    """Positions (among one thread's slices in :func:`sort_order`: int ns ``s``/``e``,
    their ``parent`` positions, ``usable`` False for an overlapping one) of the innermost
    slice with start <= ts <= end for each of ``ts``; -1 where none."""
    k = np.searchsorted(s, ts, side="right") - 1
    while True:
        live = k >= 0
        kk = np.where(live, k, 0)
        miss = live & ~((e[kk] >= ts) & usable[kk])
        if not miss.any():
            break
        k = np.where(miss, parent[kk], k)
    return k


def next_at_or_after(s, ts):
    """Positions of the first slice (in :func:`sort_order`) starting at or after each of
    ``ts``; -1 where none."""
    k = np.searchsorted(s, ts, side="left")
    return np.where(k < len(s), k, -1)


def bind(s, e, parent, usable, ts, to_next):
    """The slice each flow step binds to (see the module's rules; arguments as
    :func:`enclosing`, ``to_next`` True for a step binding to the next slice,
    :func:`binds_to_next`), -1 where none."""
    return np.where(to_next, next_at_or_after(s, ts), enclosing(s, e, parent, usable, ts))


def parents(s, e):
    """``(parent, overlapping)`` of one thread's slices in :func:`sort_order` (int64 ns
    arrays): the parent position of each (``OUTSIDE`` at top level) and a bool per slice,
    True for one that ends after its parent (it keeps the parent but parents nobody).
    Numpy alone when the slices nest properly (a few rounds); :func:`nest` otherwise."""
    n = len(s)
    if n < 2 or flat(s, e):
        return np.full(n, OUTSIDE, np.int64), np.zeros(n, bool)
    reach = np.maximum.accumulate(e)
    top = np.r_[True, reach[:-1] <= s[1:]]
    parent = parents_nested(s, e, top)
    overlapping = np.zeros(n, bool)
    if parent is None:
        walked, overlaps = nest(s.tolist(), e.tolist())
        parent = np.asarray(walked, np.int64)
        overlapping[[k for k, _, _ in overlaps]] = True
    return parent, overlapping


def nesting(thread, start, end):
    """``(parent, depth, overlapping)`` of slices sorted by thread, start, longer first,
    per thread by the rules of :mod:`.slices` (a slice's parent is the innermost one it
    starts inside; one that overlaps its parent's end, ``overlapping``, keeps it but
    parents nobody). int32 columns: 8 bytes a slice for both. A thread whose slices
    never nest costs one numpy pass."""
    n = len(start)
    parent = np.full(n, OUTSIDE, dtype=np.int32)
    overlapping = np.zeros(n, dtype=bool)
    if n < 2:
        return parent, np.zeros(n, dtype=np.int32), overlapping
    bounds = np.flatnonzero(np.r_[True, thread[1:] != thread[:-1], True]).tolist()
    for a, b in zip(bounds[:-1], bounds[1:]):
        local, over = parents(start[a:b], end[a:b])
        inside = local >= 0
        if inside.any():
            parent[a:b] = np.where(inside, local + a, OUTSIDE)
            overlapping[a:b] = over
    depth = np.zeros(n, dtype=np.int32)
    up = parent.copy()
    while True:   # one pass per level of nesting
        inside = up >= 0
        if not inside.any():
            break
        depth += inside
        up = np.where(inside, parent[np.maximum(up, 0)], OUTSIDE)
    return parent, depth, overlapping
