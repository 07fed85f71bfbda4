"""The trace as ``xprof explain``, ``report`` and ``diff`` read it: the one read model
(:class:`xprof.traces.model.Trace`) plus, from the same pass over the file, what those
commands read beside its slices: the Python-line samples (``--lines``, docs/lines.md).
(The custom-op call spans are the model's own: ``Trace.call_stats``, from its async
pairs.)

Why a module here and not in ``xprof.traces``: that collector is the CLI's
(``analysis/pylines.py``); the model knows nothing of it and feeds it the batches it
decodes (``Builder(collectors=...)``).
"""
from __future__ import annotations

from xprof.traces import model
from xprof.traces.model import Trace, settings_of  # noqa: F401  (settings_of: callers' name)

from xprof.mxcli.analysis.pylines import PythonLinesCollector

Timeline = Trace   # the name explain's analysis was written against: the same class


class Builder(model.Builder):
    """A :class:`~xprof.traces.model.Builder` that also collects the Python-line samples
    of the batches it is fed (``Trace.python_lines``)."""

    def __init__(self, records=True):
        # records=False: a reader of the slices and call spans alone (xprof stats): no
        # dependency records, sync points nor flow steps read
        self.lines = PythonLinesCollector()
        # explain, report and diff read of the links only the custom-op calls
        # (call_stats, call_span) and the largest flow id (a marked copy's arrows):
        # the rest is skipped at load (docs/cli-readers.md, issue #25's figures)
        super().__init__(collectors=(self.lines,), links="calls" if records else "spans",
                         records=records)

    def finish(self):
        tl = super().finish()
        tl.python_lines = self.lines
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
    ``report.extra["timeline"]``, with the trace's recorded settings. ``records=False``:
    without the dependency records and sync points (``xprof stats``' own pass)."""

    def __init__(self, records=True):
        self._builder = Builder(records)

    def feed(self, events):
        self._builder.feed(events)

    def finish(self, report):
        tl, self._builder = self._builder.finish(), None   # the report holds the Trace
        tl.settings = settings_of(report.top)
        tl.top = report.top
        report.extra["timeline"] = tl
