"""The per-event rules every reader of a trace applies, written once.

Why one module: ``xprof stats``, ``explain``, ``report``, ``diff``, ``validate`` and
``trace`` read the same events. When each wrote its own "which thread is this", "is
this time usable", "how many nanoseconds is this" and "which ``B`` does this ``E``
close", the commands disagreed on the same file: thread id ``1`` and ``true`` were one
thread to ``stats`` and two to ``xprof trace A B`` (merge), and a slice's end could
differ by 1 ns between ``stats`` (``rint((ts + dur) * 1000)``) and ``validate``
(``rint(ts * 1000) + rint(dur * 1000)``). Each reader keeps its own *policy* (the
validator reports what the others skip); the rules below are what they agree on.

* **Keys** (:func:`id_key`, :func:`thread_key`): a pid, tid or id is its own key when
  it is hashable, with Python's equality: ``1``, ``1.0`` and ``true`` are one thread,
  ``"1"`` another. A list or object (malformed, but seen) is keyed by its bounded
  repr, tagged so that it never equals a string.
* **Usable times** (:func:`usable_time`, :func:`usable_dur`): a number (not a bool)
  whose nanoseconds fit int64, as Perfetto keeps them; a duration also ``>= 0``.
* **Units** (:func:`ns`, :func:`to_ns`, :func:`end_ns`): microseconds become integer
  nanoseconds by one rounding, half to even (Python's ``round`` and numpy's ``rint``
  agree); a slice's end is its start plus its rounded duration, never the rounding of
  the float sum, so every reader sees the same end.
* **Finite numbers** (:func:`finite_number`): an int or float (not a bool) that is
  neither infinite nor NaN (an int within a float's range): what a merge shifts, a counter sums and a sort index sorts.
* **Async pairs** (:func:`async_key`): a ``b`` and an ``e`` are one pair when their
  process, category, id (``id``, else ``id2``) and name are equal, whichever reader
  pairs them (the ``Trace``, ``xprof stats``' rows, the checker).
* **Ranks** (:func:`rank_label`, :func:`rank_of`): rank R of a distributed job is
  written ``rank R`` (a process's name ``rank R: ...``, its ``process_labels``, a merge's
  input label) and read back by one pattern.
* **B/E pairing** (:class:`OpenSlices`): per thread key, in file order, an ``E``
  closes the last open ``B`` (a stack), also when it comes before it (the pair is then
  dropped); an ``E`` with nothing open closes nothing.
"""
from __future__ import annotations

import math
import re

import numpy as np

# Nanoseconds Perfetto keeps in int64: a time at or beyond 2^63 ns fits no viewer
TIME_MAX_US = 2 ** 63 / 1000
_NS_CLIP = 2.0 ** 62   # to_ns clips beyond this, so huge times sort last, never wrap

_REPR = None


def short_repr(value):
    """``repr`` for messages and keys of malformed values: bounded in depth and length, so a
    value nested a thousand levels deep or a 4,000-digit integer cannot raise."""
    global _REPR
    if _REPR is None:
        import reprlib

        _REPR = reprlib.Repr()
        _REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 80, 80, 40
        _REPR.maxlist = _REPR.maxdict = _REPR.maxtuple = 6
    return _REPR.repr(value)


class Unhashable(tuple):
    """The key of a list or object used as an id: its bounded repr, as a type of its own
    so it never equals a string id that happens to read the same."""

    __slots__ = ()

    def __new__(cls, value):
        return tuple.__new__(cls, (short_repr(value),))

    def __str__(self):
        return self[0]

    __repr__ = __str__   # in messages, the value as it was written


def id_key(value):
    """The key of a pid, tid or id of any JSON type (see the module's rules)."""
    try:
        hash(value)
        return value
    except TypeError:
        return Unhashable(value)


def thread_key(pid, tid):
    """The key of an event's thread: ``(pid key, tid key)``."""
    return id_key(pid), id_key(tid)


def usable_time(value):
    """A number (int or float, not a bool) within +-2^63 ns."""
    return (type(value) is int or type(value) is float) and -TIME_MAX_US < value < TIME_MAX_US


def usable_dur(value):
    """A duration: a number in [0, 2^63 ns)."""
    return (type(value) is int or type(value) is float) and 0 <= value < TIME_MAX_US


def finite_number(value):
    """An int or float (not a bool), neither infinite nor NaN; an int also within what a
    float holds (a 400-digit integer is no time, no size, no sort index)."""
    t = type(value)
    if t is float:
        return math.isfinite(value)
    return t is int and -1e308 < value < 1e308


def rank_label(rank):
    """How rank ``rank`` is written: ``rank 3``."""
    return f"rank {rank}"


# ``rank R`` as a whole item of a comma-separated list of labels, or a name's ``rank R:``
_RANK_LABEL = re.compile(r"(?:^|,\s*)rank (\d+)(?:\s*,|$)")
_RANK_NAME = re.compile(r"^rank (\d+):")


def rank_of(name, labels=""):
    """The rank a process belongs to, from its ``process_labels`` (an item ``rank R``) or
    its name (``rank R: ...``); None when neither says."""
    found = (_RANK_LABEL.search(labels) if type(labels) is str else None) or \
        (_RANK_NAME.match(name) if type(name) is str else None)
    return int(found.group(1)) if found else None


def ns(us):
    """Microseconds (a usable time) as integer nanoseconds, rounded half to even."""
    return round(us * 1000)


def end_ns(ts, dur):
    """A slice's end in ns: its start plus its duration, each rounded once."""
    return round(ts * 1000) + round(dur * 1000)


def to_ns(us):
    """Microseconds (array or list) as int64 nanoseconds, as :func:`ns` rounds them.

    Times beyond what int64 ns hold (the validator reports them) are clipped, so they
    sort last instead of wrapping around; NaN becomes 0.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.rint(np.asarray(us, dtype=np.float64) * 1000)
    return np.clip(np.nan_to_num(out, nan=0.0), -_NS_CLIP, _NS_CLIP).astype(np.int64)


def to_ns_exact(us):
    """:func:`to_ns` for times already known usable and finite (no clipping pass)."""
    return np.rint(np.asarray(us, dtype=np.float64) * 1000).astype(np.int64)


def async_key(pid, cat, ident, name):
    """The key an async ``b``/``e`` pair is matched by: its process, category, id
    (``id``, else ``id2``) and name, each as :func:`id_key` keys it (an ``e`` closes the
    last open ``b`` of its key, :class:`OpenSlices`)."""
    return (id_key(pid), id_key(cat), id_key(ident), id_key(name))


class OpenSlices:
    """``B`` events waiting for their ``E`` (a stack per thread key), or async ``b``
    events waiting for their ``e`` (a stack per :func:`async_key`), in file order.

    Each reader stores what it needs of the ``B`` (a time, a name, an event number);
    the pairing itself, which ``B`` an ``E`` closes, is this class.
    """

    __slots__ = ("stacks",)

    def __init__(self):
        self.stacks = {}   # thread key -> [what begin() was given, ...]

    def begin(self, thread, item):
        stack = self.stacks.get(thread)
        if stack is None:
            stack = self.stacks[thread] = []
        stack.append(item)

    def end(self, thread):
        """What the matching ``B`` stored, or None when nothing is open on the thread."""
        stack = self.stacks.get(thread)
        return stack.pop() if stack else None

    def close(self, key):
        """:meth:`end`, the key forgotten once nothing is open under it (async ids are
        often one per pair: their stacks would otherwise stay, empty, one per pair)."""
        stack = self.stacks.get(key)
        if not stack:
            return None
        item = stack.pop()
        if not stack:
            del self.stacks[key]
        return item

    def top(self, thread):
        """The innermost open ``B``'s item (None when none is open), left open."""
        stack = self.stacks.get(thread)
        return stack[-1] if stack else None

    def left_open(self):
        """``(thread, item)`` of every ``B`` never closed, per thread in file order."""
        for thread, stack in self.stacks.items():
            for item in stack:
                yield thread, item
