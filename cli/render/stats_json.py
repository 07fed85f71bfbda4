"""``--format json``: the ``profiler.dumps(format='json')`` document, indented.

Sections are written as the processors left them in ``report.doc``; the
SECTIONS table is here for symmetry with the other renderers (a section that
needs a JSON shape other than its ``doc`` entry maps it here).
"""
from __future__ import annotations

import click

import orjson


def _as_is(rows):
    return rows


SECTIONS = {"Time": _as_is, "Memory": _as_is, "Counter": _as_is,
            "Time by process": _as_is, "Rank spread": _as_is, "Operator Latency": _as_is,
            "Communication": _as_is, "Overlap": _as_is}


def document(report):
    """The JSON text (UTF-8 bytes), with a trailing newline."""
    doc = {k: SECTIONS.get(k, _as_is)(v) for k, v in report.doc.items()}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def render(report, out):
    # bytes, to the stream's binary side: a million rows are a document of hundreds of
    # MB, of which no str copy is made
    click.echo(nl=False, file=out, message=document(report))
