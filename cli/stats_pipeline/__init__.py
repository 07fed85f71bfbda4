"""``xprof stats`` as named stages: sources -> processors -> renderers.

Why stages: new tables (idle time, critical path, per-call breakdowns, ...)
arrive one engineer at a time; each stage is a list or a dict one line long,
so a new piece is one entry in one place and never an ``if`` in the command.

* :mod:`.sources` turns a file into a :class:`~.report.Report`: a Chrome
  trace (xprof, MXNet 1.x, PyTorch; plain or gzip) streamed through every
  collector in ``sources.TRACE_COLLECTORS``, or a oneDNN verbose log.
* :mod:`.processors` are functions ``report = processor(report, options)``
  run in the order of ``processors.PIPELINE`` (ordering, domain selection,
  top-N).
* :mod:`.renderers` hold one module per output format (``table``, ``json``,
  ``csv``), picked by name from ``renderers.RENDERERS``; each renders every
  section of the report through its own per-section table.

:func:`run` is the whole pipeline; ``cli/stats.py`` only parses options.
"""
from __future__ import annotations

from .processors import Options, process
from .renderers import render
from .by_process import ByProcess
from .communication import Communication
from .sources import read_report

__all__ = ["Options", "run"]


def run(path, options, fmt, out):
    """Read ``path``, process it with ``options``, write format ``fmt`` to ``out``."""
    if options.lines is not None:
        from . import pylines
        return pylines.run(path, options, fmt, out)
    extra = [ByProcess(), Communication()] if options.by_process else []
    render(fmt, process(read_report(path, options, extra), options), out)
