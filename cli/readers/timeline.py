"""The trace as ``xprof explain``, ``report`` and ``diff`` read it: the one read model
(:class:`xprof.traces.model.Trace`) plus, from the same pass over the file, what those
commands read beside its slices: the Python-line samples (``--lines``, docs/lines.md)
and the custom-op call spans (the shares of the calls' Python time).

Why a module here and not in ``xprof.traces``: those two collectors are the CLI's
(``readers/pylines.py``, ``readers/callspans.py``); the model knows nothing of them and
feeds them the batches it decodes (``Builder(collectors=...)``).
"""
from __future__ import annotations

from xprof.traces import model
from xprof.traces.model import Trace, settings_of  # noqa: F401  (settings_of: callers' name)

from .callspans import CallSpanCollector
from .pylines import PythonLinesCollector

Timeline = Trace   # the name explain's analysis was written against: the same class


class Builder(model.Builder):
    """A :class:`~xprof.traces.model.Builder` that also collects the Python-line samples
    and the call spans of the batches it is fed (``Trace.python_lines``/``call_stats``)."""

    def __init__(self):
        self.lines = PythonLinesCollector()
        self.call_spans = CallSpanCollector()
        super().__init__(collectors=(self.lines, self.call_spans))

    def finish(self):
        tl = super().finish()
        tl.python_lines = self.lines
        tl.call_stats = self.call_spans.calls
        return tl


def from_events(events):
    """A :class:`Trace` of an in-memory list of events (tests, callers with events)."""
    return model.from_events(events, Builder())


def load(path, on_batch=None, collectors=()):
    """``(trace, reader)`` of the file at ``path``, streamed once (raises TraceError);
    ``on_batch()`` after each batch, ``collectors`` fed each batch's events."""
    return model.load(path, on_batch, collectors, Builder())


class TimelineCollector:
    """The :class:`Trace` built from the batches another pass decodes (a
    stats-pipeline collector: ``xprof report``'s and ``xprof diff``'s statistics pass):
    ``report.extra["timeline"]``, with the trace's recorded settings."""

    def __init__(self):
        self._builder = Builder()

    def feed(self, events):
        self._builder.feed(events)

    def finish(self, report):
        tl = self._builder.finish()
        tl.settings = settings_of(report.top)
        tl.top = report.top
        report.extra["timeline"] = tl
