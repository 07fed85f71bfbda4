"""``xprof stats``'s document: a file in, its tables out, in one of :data:`FORMATS`.

The stages (pyinstrument's pipeline): a source reads the file into a
:class:`~xprof.mxcli.analysis.stats_report.Report` (``streaming/sources.py``: a Chrome
trace loaded into a ``Trace``, ``stats_report`` a function of it; or a oneDNN log,
``formats/onednn.py``), processors order
and cut it (``analysis/stats_processors.py``), a renderer writes it: one module per
format (``stats_text``, ``stats_json``, ``stats_csv``, ``stats_markdown``), picked by
name from :data:`RENDERERS`. ``--lines`` is a document of its own (``render/lines.py``).
A new output format: a module with ``render(report, out)`` and one entry here.
"""
from __future__ import annotations

from xprof.mxcli.analysis.stats_processors import Options, process
from xprof.mxcli.render import stats_csv, stats_json, stats_markdown, stats_text
from xprof.mxcli.streaming.sources import read_report

__all__ = ["FORMATS", "Options", "RENDERERS", "process", "render", "run"]

RENDERERS = {"text": stats_text, "json": stats_json, "csv": stats_csv,
             "markdown": stats_markdown}
FORMATS = frozenset(RENDERERS)
# older spellings, kept one release (docs/cli-readers.md): "table" is "text"
ALIASES = {"table": "text"}


def render(fmt, report, out):
    RENDERERS[ALIASES.get(fmt, fmt)].render(report, out)


def run(paths, options, fmt, out):
    """Read ``paths`` (one trace, or several merged), process it with ``options``, write
    format ``fmt`` to ``out``."""
    if options.lines is not None:
        from xprof.mxcli.render import lines
        return lines.run(paths, options, fmt, out)
    render(fmt, process(read_report(paths, options), options), out)
