"""The Python-line samples of a :class:`~.model.Trace` (``Trace.python_lines``), read
while the trace is loaded.

The runtime writes each sampled custom-op call as a root slice of category
``python_line`` (named ``forward``/``backward``/``create_operator``; ``args``: ``{"op",
"call", "lines": [[function, file, line, weight ns, samples, blocked-in or null],
...]}``) with its stack as nested frame slices (``<function>:<line>``, ``args.file``),
runtime/profiler/linefold.py and docs/lines.md. They are no work slices: the
``Trace``'s timeline leaves them out (``line_*`` columns hold them apart). What the
readers ask of them is kept here, in one pass:

* ``tables``: ``{op: {(function, file, line, blocked): [weight ns, samples]}}``, the
  roots' line tables summed per op type, and ``calls``: ``{op: set of call numbers}``
  (``xprof stats --lines``, the report, ``explain``, ``diff``: cli/analysis/pylines.py);
* ``frames``: per thread key, ``[(start ns, end ns, root args or None, name, file)]``,
  every sample slice with a usable time (the stacks: cli/analysis/pystacks.py).
"""
from __future__ import annotations

from .names import PYTHON_LINE
from .rules import ns, thread_key

CATEGORY = PYTHON_LINE


class LineSamples:
    """See the module docstring; :meth:`feed` takes a batch view's ``X`` events."""

    def __init__(self):
        self.tables = {}
        self.calls = {}
        self.frames = {}

    def feed(self, xs, cats):
        """The ``X`` events ``xs`` (categories ``cats``) of one batch, in file order."""
        for ev, cat in zip(xs, cats):
            if cat != CATEGORY:
                continue
            args = ev.get("args")
            args = args if type(args) is dict else {}
            root = type(args.get("lines")) is list and type(args.get("op")) is str
            if root:
                self._add(args["op"], args.get("call"), args["lines"])
            ts, dur = ev.get("ts"), ev.get("dur")
            if type(ts) not in (int, float) or type(dur) not in (int, float) or dur < 0:
                continue
            start = ns(ts)
            self.frames.setdefault(thread_key(ev.get("pid"), ev.get("tid")), []).append(
                (start, start + ns(dur), args if root else None, str(ev.get("name")),
                 args.get("file")))

    def _add(self, op, call, lines):
        table = self.tables.get(op)
        if table is None:
            table = self.tables[op] = {}
            self.calls[op] = set()
        if type(call) is int and call:
            self.calls[op].add(call)
        for row in lines:
            if type(row) is not list or len(row) != 6:
                continue
            function, file, line, w, n, blocked = row
            if type(w) not in (int, float) or type(n) is not int:
                continue
            key = (str(function), str(file), line if type(line) is int else None,
                   blocked if type(blocked) is str else None)
            cell = table.get(key)
            if cell is None:
                table[key] = [w, n]
            else:
                cell[0] += w
                cell[1] += n
