"""Sources of the readers: a file (or several) in, a ``Trace`` or a stats Report out.

Two kinds of input, told apart by content (never by file name):

* a Chrome trace (xprof, MXNet 1.x, PyTorch; JSON object or array form, gzip or not):
  loaded once into a :class:`~xprof.traces.model.Trace` (:func:`read_trace`, with a
  progress bar and one-line errors), of which ``xprof stats`` is a function
  (``analysis/stats_report.py``); several traces are merged on the way in
  (``traces/merging.py``);
* a oneDNN verbose log (``dnnl_verbose,`` / ``onednn_verbose,`` lines): its own reader,
  ``formats/onednn.py``, statistics only.

A new input format: a class with ``claims(head)`` (the first 64 KiB of the
decompressed file) and ``read(paths, options)`` returning a Report, put in
:data:`SOURCES` before :class:`ChromeTrace` (the fallback).
"""
from __future__ import annotations

import click

from xprof.mxcli.errors import fail
from xprof.mxcli.render.progress import byte_progress
from xprof.mxcli.formats.onednn import looks_like_onednn, read_onednn
from xprof.traces import model
from xprof.traces.tracefile import READ_ERRORS, TraceError, open_binary
from xprof.mxcli.analysis.stats_processors import Options
from xprof.mxcli.analysis.stats_report import Report, stats_report

_BOM_AND_SPACE = b"\xef\xbb\xbf \t\r\n"


def _is_json(head):
    return head.lstrip(_BOM_AND_SPACE)[:1] in (b"{", b"[")


def _paths(paths):
    return list(paths) if isinstance(paths, (list, tuple)) else [paths]


def _shown(paths):
    return ", ".join(map(str, _paths(paths)))


class OneDNNLog:
    """oneDNN (and MKL-DNN) verbose logs, v0 to v3."""

    @staticmethod
    def claims(head):
        return not _is_json(head) and looks_like_onednn(head)

    @staticmethod
    def read(paths, options):
        if len(_paths(paths)) > 1:
            fail(f"{_shown(paths)}: several inputs are read as Chrome traces merged; "
                 f"{_paths(paths)[0]} is a oneDNN verbose log (read it alone)")
        path = _paths(paths)[0]
        with open_binary(path) as f:
            return Report(path=path, stats=read_onednn(f).stats)


class ChromeTrace:
    """Chrome Trace Event Format files; the fallback, so its error names both formats."""

    @staticmethod
    def claims(head):
        return True

    @staticmethod
    def read(paths, options):
        group = options.group_by != "name"
        tl, reader = load(paths, links="pairs", records="times", keys=group)
        return stats_report(tl, options, _shown(paths), reader.truncated)


# Tried in order; the first whose claims() is true reads the file.
SOURCES = [OneDNNLog, ChromeTrace]


def _claims(source, path):
    """Whether ``source`` claims the file at ``path`` (False when it cannot be read: the
    reader then says why)."""
    try:
        with open_binary(path) as f:
            return source.claims(f.read(1 << 16))
    except (TraceError, *READ_ERRORS):
        return False


def _check_json(path):
    with open_binary(path) as f:
        head = f.read(1 << 16)
    if not _is_json(head):
        fail(f"{path}: neither a Chrome trace (JSON) nor a oneDNN verbose log "
             f"(lines starting dnnl_verbose, or onednn_verbose,)")


def load(paths, links="all", records=True, keys=True):
    """``(Trace, reader)`` of a Chrome trace, or of several merged (exit 2 with one line
    when one cannot be read), with a progress bar on a terminal; a warning for a
    truncated file. ``links``, ``records``, ``keys``: what the load keeps
    (``traces/builder.py``)."""
    try:
        for path in _paths(paths):
            _check_json(path)
        reader = model.open_reader(paths)
        with byte_progress(reader, "reading") as tick:
            tl, _ = model.load(reader=reader, on_batch=tick, links=links, records=records,
                               keys=keys)
    except TraceError as exc:
        fail(str(exc))
    except READ_ERRORS as exc:   # EOFError: a cut gzip stream; zlib.error: a corrupt one
        fail(f"{_shown(paths)}: read error: {exc}")
    if reader.truncated:
        click.echo(f"xprof: warning: {_shown(paths)} is truncated; statistics cover the "
                   f"events before the cut", err=True)
    return tl, reader


def read_trace(paths, links="all", records=True, keys=True):
    """The :class:`~xprof.traces.model.Trace` of ``paths`` (see :func:`load`)."""
    return load(paths, links, records, keys)[0]


def read_report(paths, options=None):
    """The stats Report of ``paths`` (exit 2 with one line when it cannot be read);
    ``options``: what ``xprof stats`` asked for (``--group-by`` shapes the rows)."""
    options = options or Options()
    try:
        with open_binary(_paths(paths)[0]) as f:
            head = f.read(1 << 16)
        source = next(s for s in SOURCES if s.claims(head))
        return source.read(paths, options)
    except TraceError as exc:
        fail(str(exc))
    except READ_ERRORS as exc:   # EOFError: a cut gzip stream; zlib.error: a corrupt one
        fail(f"{_shown(paths)}: read error: {exc}")
