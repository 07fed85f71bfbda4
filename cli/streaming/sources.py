"""Sources of ``xprof stats``: a file in, a :class:`~.report.Report` out.

Two kinds of input, told apart by content (never by file name):

* a Chrome trace (xprof, MXNet 1.x, PyTorch; JSON object or array form,
  gzip or not), streamed in batches through every collector of
  :data:`TRACE_COLLECTORS`: memory stays bounded whatever the file size;
* a oneDNN verbose log (``dnnl_verbose,`` / ``onednn_verbose,`` lines).

A new input format: a class with ``claims(head)`` (the first 64 KiB of the
decompressed file) and ``read(path, options)`` returning a Report, put in
:data:`SOURCES` before :class:`ChromeTrace` (the fallback).

A new analysis that needs the trace's events (not only the aggregate): a
collector class (built with the :class:`~.processors.Options`) with ``feed(events)`` and
``finish(report)`` (store what it
found in ``report.extra[<its name>]``), appended to :data:`TRACE_COLLECTORS`;
a processor then turns it into a section.  One pass over the file serves
every collector.
"""
from __future__ import annotations

import click

from xprof.mxcli.errors import fail
from xprof.mxcli.render.progress import byte_progress
from xprof.traces.batch import Batch
from xprof.mxcli.analysis.timeline import TimelineCollector
from xprof.mxcli.analysis.trace_stats import TraceStats
from xprof.mxcli.analysis.pylines import PythonLinesCollector
from xprof.mxcli.formats.onednn import looks_like_onednn, read_onednn
from xprof.traces.tracefile import READ_ERRORS, TraceError, TraceReader, open_binary
from xprof.mxcli.analysis.latency import LatencyCollector
from xprof.mxcli.analysis.stats_processors import Options
from xprof.mxcli.analysis.stats_report import Report

_BOM_AND_SPACE = b"\xef\xbb\xbf \t\r\n"


def _is_json(head):
    return head.lstrip(_BOM_AND_SPACE)[:1] in (b"{", b"[")


class StatsTotals:
    """The aggregate tables (Time, Memory, Counter): the collector every trace feeds. Its
    slices are counted from the pass's ``Trace`` (``analysis/trace_stats.py``); the
    streaming part keeps what the ``Trace`` leaves out (counters, async pairs, ...)."""

    needs_trace = True

    def __init__(self, options):
        self._collector = TraceStats(options.group_by)

    def feed(self, events):
        self._collector.feed(events)

    def finish(self, report):
        self._collector.use_trace(report.extra["timeline"])
        report.stats = self._collector.finish()


class CustomOpCalls:
    """The ``Custom Operator Calls`` breakdown: the ``Trace``'s call spans
    (``Trace.call_stats``, paired in its build), else derived from the rows."""

    needs_trace = True

    def __init__(self, options):
        pass

    def feed(self, events):
        pass

    def finish(self, report):   # after StatsTotals: the section derives from its rows
        tl = report.extra["timeline"]
        report.stats.calls = tl.call_stats
        if tl.call_span is not None:   # the calls widen the wall time
            report.stats.add_span_ns(*tl.call_span)


# Collectors fed every batch of a Chrome trace, in this order.
TRACE_COLLECTORS = [StatsTotals, CustomOpCalls, LatencyCollector, PythonLinesCollector]


class OneDNNLog:
    """oneDNN (and MKL-DNN) verbose logs, v0 to v3."""

    @staticmethod
    def claims(head):
        return not _is_json(head) and looks_like_onednn(head)

    @staticmethod
    def read(path, options, collectors=(), skip=()):
        with open_binary(path) as f:
            return Report(path=path, stats=read_onednn(f).stats)


class ChromeTrace:
    """Chrome Trace Event Format files; the fallback, so its error names both formats."""

    @staticmethod
    def claims(head):
        return True

    @staticmethod
    def read(path, options, collectors=(), skip=()):
        with open_binary(path) as f:
            head = f.read(1 << 16)
        if not _is_json(head):
            fail(f"{path}: neither a Chrome trace (JSON) nor a oneDNN verbose log "
                 f"(lines starting dnnl_verbose, or onednn_verbose,)")
        reader = TraceReader(path)
        made = [make(options) for make in TRACE_COLLECTORS if make not in skip]
        # the pass's one Trace, finished first: the statistics are queries on it (a
        # caller's TimelineCollector is that Trace, else one is made when needed)
        given = list(collectors)
        trace = [c for c in given if isinstance(c, TimelineCollector)][:1]
        if not trace and any(getattr(c, "needs_trace", False) for c in made):
            trace = [TimelineCollector(records=False)]   # slices alone
        collectors = trace + made + [c for c in collectors if c not in trace]
        names = {}   # slice names numbered once for every collector (Batch.names)
        with byte_progress(reader, "reading") as tick:
            for batch, _ in reader.batches():
                batch = Batch(batch, names)   # its columns made once, for every collector
                for collector in collectors:
                    collector.feed(batch)
                tick()
            batch = names = None   # the collectors' finish may need the room
        report = Report(path=path, stats=None, truncated=reader.truncated, top=reader.top)
        last = max([k for k, c in enumerate(collectors) if getattr(c, "needs_trace", False)],
                   default=-1)
        for k, collector in enumerate(collectors):
            collector.finish(report)
            if k == last and trace and trace[0] not in given:
                report.extra.pop("timeline", None)   # its queries done: its room goes back
        if reader.truncated:
            click.echo(f"xprof: warning: {path} is truncated; statistics cover the events "
                       f"before the cut", err=True)
        return report


# Tried in order; the first whose claims() is true reads the file.
SOURCES = [OneDNNLog, ChromeTrace]


def read_report(path, options=None, collectors=(), skip=()):
    """The Report of ``path`` (exit 2 with one line when it cannot be read).

    ``options``: what ``xprof stats`` asked for (``--group-by`` shapes the rows);
    ``collectors``: more collector instances fed the same pass, for a caller that needs
    more than ``xprof stats`` does (``xprof report``'s overview), at no cost to stats;
    ``skip``: classes of :data:`TRACE_COLLECTORS` such a caller does not need (their
    sections are then absent)."""
    try:
        with open_binary(path) as f:
            head = f.read(1 << 16)
        source = next(s for s in SOURCES if s.claims(head))
        return source.read(path, options or Options(), collectors, skip)
    except TraceError as exc:
        fail(str(exc))
    except READ_ERRORS as exc:   # EOFError: a cut gzip stream; zlib.error: a corrupt one
        fail(f"{path}: read error: {exc}")
