"""``xprof diff A B``: what changed between two runs, and a regression gate for CI.

Only the options and the output live here; the comparison is ``analysis/diff.py``,
the table ``render.diff_table``, the page ``render/html/diffpage.py``.
"""
from __future__ import annotations

import sys

import click

FORMATS = ("text", "json", "markdown", "table")   # table: text's older spelling (errors)


def run_diff(a, b, fmt="text", out=None, report=None, fail_on=(), top=25, annotate=None,
             summary_to=None, lines_diff_out=None):
    """Compare, print, write the page, apply the gate; return the exit code (0 or 1)."""
    import orjson

    from xprof.mxcli.analysis.diff import diff, gate_rows, parse_gate
    from xprof.mxcli.streaming.pair import load_pair
    from xprof.mxcli.errors import fail

    specs = []
    for spec in fail_on:
        try:
            specs.append(parse_gate(spec))
        except ValueError as exc:
            fail(str(exc))
    from xprof.mxcli.errors import format_of

    fmt = format_of(fmt)
    out = out or sys.stdout
    doc = diff(*load_pair(a, b))
    _check_gate_names(doc, specs, fail_on)
    failed = gate_rows(doc, specs) if specs else []
    reasons = [r for r, _ in failed]
    if fmt == "json":
        out.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif fmt == "markdown":
        from xprof.mxcli.render.markdown import diff as diff_md
        out.write(diff_md(doc, reasons, top))
    else:
        from xprof.mxcli.render import diff_table
        diff_table(doc, out, top)
    if annotate == "github":   # workflow commands: GitHub reads them from stdout
        from xprof.mxcli.render.annotate import github
        names = {row["name"] for _, row in failed if row} | \
            {row["name"].split("::")[0] for _, row in failed if row}
        for line in github(doc, names):
            out.write(line + "\n")
    if lines_diff_out is not None:
        write_lines_diff(a, b, lines_diff_out)
    if summary_to is not None:
        from xprof.mxcli.render.markdown import diff as diff_md
        try:
            with open(summary_to, "a", encoding="utf-8") as f:
                f.write(diff_md(doc, reasons, top) + "\n")
        except OSError as exc:
            fail(f"--summary-to {str(summary_to)!r}: cannot write ({exc.strerror or exc})")
    if report is not None:
        write_page(doc, report)
        click.echo(f"xprof: diff report written to {report}", err=True)
    if reasons:
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        click.echo(f"xprof: diff: regression: {reasons[0]}{more}", err=True)
        return 1
    return 0


def write_lines_diff(a, b, path):
    """``--lines-diff-out``: the custom ops' sampled stacks of both runs as one
    differential collapsed file (``frame;... A B``, microseconds: flamegraph.pl's
    difffolded input), written whole or not at all."""
    from xprof.traces.atomic import write_atomic

    from xprof.mxcli.errors import fail
    from xprof.mxcli.analysis.pystacks import collapsed_diff, stacks_of
    from xprof.mxcli.streaming.sources import read_trace

    stacks = []
    for path_in in (a, b):   # (the Python-line samples only: no records, no links)
        tl = read_trace(path_in, links="calls", records=False, keys=False)
        stacks.append(stacks_of(tl.python_lines))
    try:
        write_atomic(path, collapsed_diff(*stacks).encode("utf-8"))
    except OSError as exc:
        fail(f"--lines-diff-out {str(path)!r}: cannot write ({exc.strerror or exc})")


def _check_gate_names(doc, specs, fail_on):
    """``--fail-on op:NAME:P%`` naming no op or layer of either trace would pass the gate
    unseen (a typo in CI): one line, exit 2, naming it and a few names there are."""
    from .errors import fail

    names = set()
    for row in (*doc["rows"], *doc.get("added", ()), *doc.get("removed", ())):
        names.update(n for n in (row.get("name"), row.get("layer")) if n)
    for spec, (kind, name, _) in zip(fail_on, specs):
        if kind == "op" and name not in names:
            import difflib
            close = difflib.get_close_matches(name, sorted(map(str, names)), n=3)
            hint = f"; close: {', '.join(close)}" if close else ""
            fail(f"--fail-on {spec!r}: no op or layer named {name!r} in A or B, so it "
                 f"could never fail{hint}")


def write_page(doc, path):
    import os

    from xprof.traces.atomic import write_atomic

    from xprof.mxcli.errors import fail
    from xprof.mxcli.render.html.diffpage import render

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        fail(f"--report {str(path)!r}: folder {folder!r} does not exist")
    try:
        write_atomic(path, render(doc).encode("utf-8"))
    except OSError as exc:
        fail(f"--report {str(path)!r}: cannot write ({exc.strerror or exc})")


@click.command("diff")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
              show_default=True, help="json: the whole comparison as one document; "
                                      "markdown: the verdict, then GitHub-flavoured tables "
                                      "(table: text's older spelling).")
@click.option("--annotate", type=click.Choice(("github",)), default=None,
              help="Also print GitHub Actions annotations (::error/::warning file=,line=) "
                   "for regressed custom-op lines and custom ops whose source is known.")
@click.option("--lines-diff-out", "lines_diff_out", type=click.Path(dir_okay=False),
              default=None, metavar="FILE",
              help="Also write the custom ops' sampled Python stacks of A and B as a "
                   "differential collapsed file (frame;... A B, us: flamegraph.pl's "
                   "difffolded form).")
@click.option("--summary-to", "summary_to", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Append the Markdown comparison to FILE (e.g. "
                                   "\"$GITHUB_STEP_SUMMARY\").")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              metavar="OUT.html", help="Also write the comparison as one self-contained page.")
@click.option("--fail-on", "fail_on", multiple=True, metavar="THRESHOLD",
              help="Exit 1 on a significant regression above it: P% (any op whose median "
                   "change moves 2% of wall, or the step time), wall:P%, or op:NAME:P% (an "
                   "op or layer name); repeatable.")
@click.option("--top", type=click.IntRange(min=1), default=25, show_default=True,
              metavar="N", help="Rows in the table.")
def diff_cmd(a, b, fmt, annotate, lines_diff_out, summary_to, report, fail_on, top):
    """Compare two traces A (before) and B (after): ops matched by name, layer and
    input shapes, medians with a noise floor, the critical path's change.

    A and B may be xprof, MXNet 1.x or PyTorch traces (gzipped or not). A row is
    significant when the bootstrap interval of its median ratio B/A lies outside
    a 10% noise floor around 1 and around the run-wide drift (docs/diff.md).

    \b
    Example:
      xprof diff before.json after.json
      xprof diff before.json after.json --format json
      xprof diff before.json after.json --report diff.html
      xprof diff base.json new.json --fail-on 10%      # exit 1 on a regression
    """
    import gc

    from xprof.mxcli.errors import refuse_overwrite

    if report is not None:
        refuse_overwrite("--report", report, [a, b])
    gc.disable()   # millions of short-lived dicts while reading, no cycles
    if summary_to is not None:
        refuse_overwrite("--summary-to", summary_to, [a, b])
    if lines_diff_out is not None:
        refuse_overwrite("--lines-diff-out", lines_diff_out, [a, b])
    click.get_current_context().exit(run_diff(a, b, fmt, report=report, fail_on=fail_on,
                                              top=top, annotate=annotate,
                                              summary_to=summary_to,
                                              lines_diff_out=lines_diff_out))
