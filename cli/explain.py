"""``xprof explain``: why the profiled window took as long as it did (the critical path)."""
from __future__ import annotations

import click


def _pct(ns, wall):
    return f"{100.0 * ns / wall:5.1f}%" if wall > 0 else "    -"


def _ms(ns):
    return f"{ns / 1e6:10.3f} ms"


def render_text(a, doc_findings, top=10):
    """The human summary of an Analysis (plain text, one block per question)."""
    from xprof.mxcli.analysis.explain import FALLBACK_NOTE

    wall = a.wall
    lines = []
    if a.serial:
        lines.append(f"note: {FALLBACK_NOTE}")
    skipped = getattr(a.tl, "skipped_deps", 0)
    if skipped:
        lines.append(f"note: {skipped:,} dependency record{'s' if skipped != 1 else ''} "
                     f"skipped (not lists of integers within 2^62; xprof validate names "
                     f"them)")
    lines.append(f"wall time        {_ms(wall)}")
    lines.append(f"critical path    {_ms(a.path.length)}  {_pct(a.path.length, wall)} of wall")
    lines.append("")
    lines.append("composition of the path (% of wall)")
    for label, kind in (("op run time", "op"), ("queue waits", "queue"),
                        ("dependency hand-offs", "dependency"), ("Python / gaps", "python"),
                        ("blocked in custom ops", "blocked")):
        ns = a.by_kind.get(kind, 0)
        if kind == "blocked" and not ns:
            continue   # (no custom call waited at a sync point on the path)
        lines.append(f"  {label:<28}{_ms(ns)}  {_pct(ns, wall)}")
    ranked = a.top_ops(top)
    if ranked:
        lines.append("")
        lines.append(f"top ops on the path (run time; what each waited for)")
        width = min(40, max(len(n) for n, _ in ranked))
        for name, ns in ranked:
            calls = a.calls.get(name, 0)
            cause = a.waited_for(name)
            waited = ""
            if cause:
                label, n = cause
                waited = f"waited for {label}" + (f" ({n} of {calls})" if calls > 1 else "")
            lines.append(f"  {name:<{width}}  {_ms(ns)}  {_pct(ns, wall)}  "
                         f"{calls:>7} call{'s' if calls != 1 else ' '}  {waited}".rstrip())
    table = a.thread_table()
    if table:
        lines.append("")
        lines.append("threads (busy / blocked at sync points / idle, % of wall)")
        width = max(len(n) for n in table)
        for name, (busy, blocked, idle, _) in table.items():
            lines.append(f"  {name:<{width}}  busy {_pct(busy, wall)}  "
                         f"blocked {_pct(blocked, wall)}  idle {_pct(idle, wall)}")
    if a.stragglers:
        lines.append("")
        lines.append("stragglers (per step: the rank the other ranks waited for at its "
                     "collectives)")
        for st in a.stragglers:
            worst = st["worst"]
            lines.append(f"  step {st['step']:>3}: rank {st['last_rank']} last at "
                         f"{st['last_at']} of {st['collectives']} collectives, up to "
                         f"{st['waited_ms']:.3f} ms late ({worst['name']}, key "
                         f"{worst['key']!r})")
    lines.append("")
    if doc_findings:
        lines.append("findings")
        lines.extend(f"  - {f['text']}" for f in doc_findings)
    else:
        lines.append("findings: none (no share of the path crossed a threshold)")
    return "\n".join(lines) + "\n"


@click.command("explain")
@click.argument("trace", default="profile.json", metavar="[TRACE]")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]),
              default="text", show_default=True,
              help="json: wall_ms, critical_path_ms, composition, critical_path, by_name, "
                   "top_ops, threads, findings; markdown: the verdict, then "
                   "GitHub-flavoured tables.")
@click.option("--mark-trace", "mark_out", metavar="OUT.json", default=None,
              help="Also write a copy of TRACE with the critical path flagged in args and "
                   "linked by flow arrows (for Perfetto).")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              metavar="N", help="Ops listed in the text output.")
@click.option("--what-if", "what_if", multiple=True, metavar="SPEC",
              help="Predict a change by replaying the run: OP=0.5x, OP=+2ms, "
                   "layer:NAME=0.5x, custom:TYPE=0.5x, custom:TYPE=0, python=0.5x, "
                   "workers=N, custom_pool=N (repeatable: each alone, then all "
                   "together). Without it, 'what would help' lists the top ops.")
def explain(trace, fmt, mark_out, top, what_if):
    """Explain the wall time of TRACE (default profile.json): its critical path.

    The path runs back from the last sync point through the engine's recorded
    dependencies: op run times, queue waits, dependency hand-offs and Python
    time on the threads that pushed the ops. Traces without dependency data
    (MXNet 1.x, PyTorch) are read assuming each thread's ops ran serially.

    \b
    Example:
      xprof explain profile.json
      xprof explain profile.json --format json | jq .findings
      xprof explain profile.json --mark-trace marked.json
      xprof explain profile.json --what-if 'Convolution=0.5x' --what-if workers=4
    """
    import gc

    import orjson

    from xprof.mxcli.analysis import explain as ex
    from xprof.mxcli.errors import fail, refuse_overwrite
    from xprof.traces.tracefile import TraceError

    from xprof.traces import whatif as grammar

    if mark_out is not None:
        refuse_overwrite("--mark-trace", mark_out, [trace])
    try:
        specs = [grammar.parse(text) for text in what_if]
    except ValueError as exc:
        fail(str(exc))
    gc.disable()   # millions of short-lived dicts while reading, no cycles
    try:
        analysis = ex.analyze(trace, layers=any(s.kind == "layer" for s in specs))
    except TraceError as exc:
        fail(str(exc))
    except (OSError, EOFError) as exc:
        fail(f"{trace}: read error: {exc}")
    if not len(analysis.tl.start):
        fail(f"{trace}: no slices (complete events or B/E pairs) to explain")
    if mark_out is not None:
        from xprof.mxcli.analysis.mark import chunks
        from xprof.traces.atomic import write_atomic

        try:   # fsynced, as xprof trace writes: a crash never leaves half a trace
            write_atomic(mark_out, chunks(trace, analysis), compress=str(mark_out).endswith(".gz"),
                         durable=True)
        except OSError as exc:
            fail(f"--mark-trace {mark_out}: cannot write: {exc.strerror or exc}")
    from xprof.mxcli.analysis import whatif

    gc.enable()
    try:
        key, answer, replayed = whatif.answer(analysis, specs)
    except ValueError as exc:   # a spec that matches nothing in this trace
        fail(str(exc))
    if key is None and specs:
        fail(f"{trace}: cannot predict {', '.join(s.text for s in specs)}: {answer}")
    if fmt in ("json", "markdown"):
        doc = analysis.to_dict(segments=fmt == "json")
        if key is not None:
            doc[key] = answer
            doc["replay"] = replayed
        if analysis.serial:
            click.echo(f"xprof: note: {ex.FALLBACK_NOTE}", err=True)
        if fmt == "markdown":
            from xprof.mxcli.render.markdown import explain as explain_md
            click.echo(explain_md(doc, trace), nl=False)
        else:
            click.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
    else:
        from xprof.mxcli.analysis.findings import findings

        text = render_text(analysis, findings(analysis.facts()), top)
        if key == "what_if":
            text += "\n" + "\n".join(whatif.what_if_text(
                answer, analysis.wall, whatif.steps_ms(whatif.rp.model_of(
                    analysis.tl, analysis.graph)), replayed)) + "\n"
        elif key == "what_would_help" and answer:
            text += "\n" + "\n".join(whatif.help_text(answer)) + "\n"
        click.echo(text, nl=False)
