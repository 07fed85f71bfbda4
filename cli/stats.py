"""``xprof stats``: per-domain aggregate tables from a trace or a oneDNN verbose log.

Only the options live here; the work is the pipeline in ``render/stats.py ``
(sources -> processors -> renderers).
"""
from __future__ import annotations

import os
import sys

import click

from xprof.traces.stats import SORT_KEYS  # stdlib only: `--help` stays fast

# render/stats.py RENDERERS' keys (and --lines' stack formats); spelled out so `--help`
# needs no import.
FORMATS = ("text", "json", "csv", "markdown", "collapsed", "speedscope",
           "table")   # table: text's older spelling (errors.FORMAT_ALIASES)
# Same as analysis/grouping.GROUP_BY.
GROUP_BY = ("name", "layer", "op,layer", "shape")


@click.command("stats")
@click.argument("profiles", nargs=-1, metavar="[PROFILE]...")
@click.option("--sort-by", type=click.Choice(SORT_KEYS), default="total", show_default=True,
              help="Row order within a domain (memory/counter rows: total = by Max).")
@click.option("--ascending", is_flag=True, help="Smallest first (default: largest first).")
@click.option("--domain", "domains", multiple=True, metavar="NAME",
              help="Only this domain (category); repeatable.")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N rows per domain.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
              show_default=True, help="json: the profiler.dumps() schema; csv: one row per "
                                      "entry; markdown: GitHub-flavoured tables, the top "
                                      "operator first; with --lines, collapsed "
                                      "(flamegraph.pl) or speedscope: the sampled stacks "
                                      "(table: text's older spelling).")
@click.option("--flat", is_flag=True,
              help="One table of all time rows ranked by --sort-by, the domain as a column "
                   "(--top N: the first N rows).")
@click.option("--include-waits", is_flag=True,
              help="With --flat, keep the API domain's sync waits (waitall, wait_to_read, "
                   "asnumpy, ...), left out by default.")
@click.option("--group-by", type=click.Choice(GROUP_BY), default="name", show_default=True,
              help="Rows of operator events: by name; by layer (one row per layer, its "
                   "forward, backward and update ops summed; '(no layer)' for the rest); "
                   "by op,layer (one row per op and layer); or by input shapes (args "
                   "'Input Dims').")
@click.option("--by-process", is_flag=True,
              help="Also a Time table per process and, for several ranks, each op's "
                   "spread over the ranks (min/median/max of its total, slowest rank).")
@click.option("--lines", "lines", is_flag=False, flag_value="", default=None,
              metavar="[OP_TYPE]",
              help="Only the Python lines each custom operator's time went to (sampled "
                   "while profiling): function, file, line, self ms, % of its Python "
                   "time; OP_TYPE: that op type only.")
def stats(profiles, sort_by, ascending, domains, top, fmt, flat, include_waits, group_by,
          by_process, lines):
    """Aggregate PROFILE (default profile.json) per domain and name.

    PROFILE is a Chrome trace (xprof, MXNet 1.x, PyTorch; gzipped or not) or
    a oneDNN verbose log (DNNL_VERBOSE / ONEDNN_VERBOSE output). Times are
    in ms, memory in kB. Several traces (one per rank) are read as one, merged
    as `xprof trace A B` merges them (each file's processes named after its
    rank or file, clocks starting at 0).

    \b
    CSV columns: section,domain,name,count,total,self,percent,min,max,avg,unit
    (total, self and percent are empty for Memory and Counter rows).

    \b
    Time rows: Self = time not spent in slices nested inside on the same
    thread; % = share of the profile's wall time (first to last slice).

    \b
    Example:
      xprof stats profile.json --sort-by avg --top 10
      xprof stats trace.json.gz --domain operator --format csv > ops.csv
      xprof stats profile.json --flat --sort-by self --top 10
      xprof stats profile.json --group-by layer --domain operator
      xprof stats dnnl_verbose.log
      xprof stats merged.json --by-process
      xprof stats profile.rank0.json profile.rank1.json --by-process
      xprof stats profile.json --lines MyOp
    """
    import gc

    from xprof.mxcli.render import stats as stats_doc

    gc.disable()  # see validate: no cycles among the decoded events
    from xprof.mxcli.errors import fail

    if include_waits and not flat:
        fail("--include-waits only applies to --flat")
    if lines and os.path.isfile(lines) and not profiles:
        profiles, lines = (lines,), ""   # `--lines TRACE`: that trace, every op type
    profiles = list(profiles) or ["profile.json"]
    profile = " ".join(profiles)
    from xprof.mxcli.errors import format_of

    fmt = format_of(fmt)
    if fmt in ("collapsed", "speedscope") and lines is None:
        fail(f"--format {fmt} is the sampled Python stacks: it goes with --lines "
             f"(xprof stats {profile} --lines --format {fmt})")
    options = stats_doc.Options(sort_by, ascending, frozenset(domains), top, flat,
                                     include_waits, group_by, by_process, lines)
    stats_doc.run(profiles, options, fmt, sys.stdout)
