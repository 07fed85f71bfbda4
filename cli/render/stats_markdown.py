"""``--format markdown``: the statistics as GitHub-flavoured Markdown (``cli/markdown.py``),
the top operator first."""
from __future__ import annotations

import click

from xprof.mxcli.render import markdown

SECTIONS = {}   # every section through markdown.stats (it picks what a reviewer reads)


def render(report, out):
    click.echo(nl=False, file=out, message=markdown.stats(report.doc, report.path))
