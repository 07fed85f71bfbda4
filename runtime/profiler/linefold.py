"""Python-line samples -> trace events, at dump time (the trace form is in docs/lines.md).

A thread's samples (:mod:`.sampler`, in its lines buffer) are walked in time order and
folded: consecutive samples that share a stack prefix share slices. Each call with
samples becomes

* one **root** slice (``cat`` ``python_line``, named after what the call runs:
  ``forward``, ``backward``, ``create_operator``, or ``python`` for a thread outside
  any call) whose ``args`` carry the call's exact line table, ``op`` naming it
  (``MyOp``, ``_backward_MyOp``, ``MyOp (create_operator)``, ``python (<thread>)``):
  ``{"op": <name>, "call": <number>, "lines": [[function, file, line, weight ns,
  samples, blocked-in or null], ...]}``; the readers (``xprof stats --lines``, the
  report, ``xprof explain``) read only these;
* nested **frame** slices under it, one per (function, line) on the stack, from the
  user's ``forward`` down to the leaf (``name`` ``<function>:<line>``, ``args``
  ``{"file": ...}``): the flame chart Perfetto draws. They stop at :data:`MAX_DETAIL`
  per dump (counted in ``otherData.python_lines.detail_dropped``); the roots, at most
  one per sampled call, are never dropped, so the line table stays exact.

A sample stands for the time since the sampler's previous tick (its weight), never
before its call's start; at a call's end (a sample without a stack) the time since its
last sample is spread over its lines in proportion, so a call's rows add up to its
time from its first sample's segment to its end. A slice
spans its samples' segments: from the previous sample on this track (or the call's
start, or ``t - weight``, whichever is latest) to the sample. Each level ends
:data:`MARGIN_NS` before its parent, a root as much before its last sample (strict
nesting: viewers never guess which of two equal slices is the parent, even after
rounding float microseconds to nanoseconds).

Which line a sample's time counts for: the innermost frame of the user's code (not
the standard library, site-packages or xprof itself), else the outermost frame; a
sample waiting in the engine (``wait_for_var``/``wait_all``) counts as blocked in the
sync point the user's code called (the outermost xprof frame: ``asnumpy``,
``wait_to_read``...), already the call's Blocked time.
"""
import os
import sysconfig
from operator import itemgetter

from . import records

_TIME = itemgetter(records.T)
_NAME, _T, _W, _CALL, _T_START, _STACK = (records.position(records.LINE_SAMPLE, f) for f in (
    "name", "t", "w", "call", "t_start", "stack"))
CATEGORY = "python_line"
SETUP_SUFFIX = " (create_operator)"   # (sampler.SETUP_SUFFIX)


def _root_name(call_name):
    """A root's name: what the call runs (``forward``, ``backward``,
    ``create_operator``; ``python`` outside calls), never the op's name, which
    ``args.op`` holds: an op type may be named like the engine's own ops (``Custom``)
    or hold ``::``, which xprof's names keep for an op's sub-operators."""
    if call_name is None:
        return "python"
    if call_name.endswith(SETUP_SUFFIX):
        return "create_operator"
    return "backward" if call_name.startswith("_backward_") else "forward"
MAX_DETAIL = 50_000   # frame slices written per dump
# Each level ends this much before its parent (and a root before the next sample's
# segment): time stamps are written as float microseconds, which a viewer may truncate
# to whole nanoseconds one value at a time; 3 ns keep the nesting strict whatever it does.
MARGIN_NS = 3

_RUNTIME = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# xprof's own code: xprof.runtime, xprof.traces, xprof.mxcli (``xprof run``'s frames)
_XPROF_DIRS = (_RUNTIME,) + tuple(
    os.path.join(os.path.dirname(_RUNTIME.rstrip(os.sep)), d) + os.sep for d in ("traces", "cli"))
_ENGINE = os.path.join(_RUNTIME, "engine") + os.sep
_LIB_DIRS = tuple(sorted({os.path.abspath(p) + os.sep for p in (
    sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    if p}))
_WAITS = frozenset(("wait_for_var", "wait_all", "_wait_all"))


def _spread(table, ns):
    """Add ``ns`` to a call's line table in proportion to its weights (integer ns; the
    remainder to the largest): the unseen end of a call is like the rest of it, not like
    its last sample alone (that would favour whatever a call does last)."""
    total = sum(cell[0] for cell in table.values())
    if total <= 0:
        return
    given = 0
    for cell in table.values():
        part = ns * cell[0] // total
        cell[0] += part
        given += part
    max(table.values(), key=lambda cell: cell[0])[0] += ns - given


class _Code:
    """What the dump needs of one code object, worked out once per dump."""

    __slots__ = ("function", "file", "xprof", "lib", "wait")

    def __init__(self, code):
        self.function = code.co_qualname
        self.file = code.co_filename
        path = os.path.abspath(self.file) if not self.file.startswith("<") else self.file
        self.xprof = path.startswith(_XPROF_DIRS)
        self.lib = self.xprof or path.startswith(_LIB_DIRS) or path.startswith("<frozen")
        self.wait = path.startswith(_ENGINE) and code.co_name in _WAITS


class Folder:
    """Folds the samples of one dump; ``detail`` counts frame slices written."""

    def __init__(self, max_detail=MAX_DETAIL):
        self.codes = {}
        self.detail = 0
        self.dropped = 0
        self.max_detail = max_detail

    def _code(self, code):
        c = self.codes.get(code)
        if c is None:
            c = self.codes[code] = _Code(code)
        return c

    def attribute(self, frames):
        """``(index into frames, blocked in)`` of the frame a sample's time counts for;
        ``frames`` root first, as :class:`_Code` objects."""
        user = next((i for i in range(len(frames) - 1, -1, -1) if not frames[i].lib), None)
        if any(c.wait for c in frames):   # the sync point the user's code called
            for i in range(0 if user is None else user + 1, len(frames)):
                if frames[i].xprof:
                    return i, frames[i].function.rsplit(".", 1)[-1]
        return (0 if user is None else user), None

    def encode(self, samples, add, pid, tid, thread_name, us, floor=0):
        """Add the events of one lines buffer's ``samples`` (line-sample records in
        time order) with ``add``; ``us(t)``: a time stamp in the trace's microseconds;
        no slice starts before ``floor`` (the session's start)."""
        self._add, self._pid, self._tid, self._us = add, pid, tid, us
        self._thread_name = thread_name
        open_ = []    # [node, start, table (the root's)] from the root down
        last = None   # the previous sample's time on this track
        # (appended by the sampler and, for a call's end, by its thread: nearly sorted)
        for ev in sorted(samples, key=_TIME):
            name, t, w, number = ev[_NAME], ev[_T], ev[_W], ev[_CALL]
            t_start, stack = ev[_T_START], ev[_STACK]
            if stack is None:   # the call ended: spread the time since its last sample
                if last is not None and t > last and open_ and open_[0][0] == (number, name):
                    _spread(open_[0][2], t - last)
                    last = t
                continue
            start = t - w
            if last is not None and last > start:
                start = last
            if t_start and t_start > start:
                start = t_start
            if start < floor:
                start = floor
            if start >= t:   # (a sample at the call's start: a segment of 1 ns)
                start = t - 1
            if last is not None and start < last:
                start = last
            depth = len(stack) // 2
            nodes = [(number, name)]
            nodes += [(stack[2 * k], stack[2 * k + 1]) for k in range(depth - 1, -1, -1)]
            keep = 0
            if last is not None and start == last:   # contiguous: continue the prefix
                while keep < len(open_) and keep < len(nodes) and open_[keep][0] == nodes[keep]:
                    keep += 1
            for d in range(len(open_) - 1, keep - 1, -1):
                self._close(open_[d], d, last)
            del open_[keep:]
            for node in nodes[keep:]:
                open_.append([node, start, {} if not open_ else None])
            codes = [self._code(code) for code, _ in nodes[1:]]
            if codes:
                at, blocked = self.attribute(codes)
                c = codes[at]
                key = (c.function, c.file, nodes[1 + at][1], blocked)
            else:
                key = ("(no Python frame)", "", 0, None)
            if t_start and t - w < t_start:   # no weight from before the call began
                w = t - t_start
            table = open_[0][2]
            cell = table.get(key)
            if cell is None:
                table[key] = [w, 1]
            else:
                cell[0] += w
                cell[1] += 1
            last = t
        for d in range(len(open_) - 1, -1, -1):
            self._close(open_[d], d, last)
        return self

    def _close(self, entry, depth, end):
        """Write the slice of ``entry`` (``[node, start, table]``), ending at ``end``
        less ``MARGIN_NS * (depth + 1)``."""
        node, start, table = entry
        dur = max(end - MARGIN_NS * (depth + 1) - start, 0)
        if depth == 0:
            number, name = node
            lines = sorted(([f, file, line, w, n, blocked]
                            for (f, file, line, blocked), (w, n) in table.items()),
                           key=lambda r: -r[3])
            label = name if name is not None else f"python ({self._thread_name})"
            self._add({"name": _root_name(name), "cat": CATEGORY, "ph": "X",
                       "ts": self._us(start),
                       "dur": dur / 1000.0, "pid": self._pid, "tid": self._tid,
                       "args": {"op": label, "call": number, "lines": lines}})
            return
        if self.detail >= self.max_detail:
            self.dropped += 1
            return
        self.detail += 1
        code, line = node
        c = self._code(code)
        self._add({"name": f"{c.function}:{line}", "cat": CATEGORY, "ph": "X",
                   "ts": self._us(start), "dur": dur / 1000.0, "pid": self._pid,
                   "tid": self._tid, "args": {"file": c.file}})
