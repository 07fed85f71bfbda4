"""Renderers of ``xprof stats``: one module per output format, picked by name.

Each module has ``render(report, out)`` (``out`` a text stream) and a
``SECTIONS`` table with one entry per report section (``Time``, ``Memory``,
``Counter``).  A new output format: a module here with those two names and
one entry in :data:`RENDERERS` (``--format`` lists its keys).  A new section:
one entry in the ``SECTIONS`` table of every module.
"""
from __future__ import annotations

from . import csv, json, markdown, table

# "text" is "table"'s name in the other commands' vocabulary (text|json|csv|markdown)
RENDERERS = {"table": table, "text": table, "json": json, "csv": csv, "markdown": markdown}


def render(fmt, report, out):
    RENDERERS[fmt].render(report, out)
