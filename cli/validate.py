"""``xprof validate``: is this trace loaded the same by Perfetto and chrome://tracing?"""
from __future__ import annotations

import click


@click.command("validate")
@click.argument("trace", metavar="TRACE")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: one line per violation; json: one document.")
@click.option("--max-errors", type=click.IntRange(min=0), default=20, show_default=True,
              metavar="N", help="Lines of detail in text output (0: all); a per-rule summary follows.")
def validate(trace, fmt, max_errors):
    """Check TRACE (Chrome Trace Event JSON, gzipped or not) strictly.

    Prints one line per violation (event index, phase, name, why; at most
    --max-errors of them), a per-rule summary (rule, count, first example),
    the totals, and (on stderr), when xprof trace repairs every violation,
    the exact command that does. Exit status: 0 valid (warnings allowed), 1 violations found,
    2 unreadable input.

    \b
    Example:
      xprof validate profile.json
      xprof validate --format json trace.json.gz | jq .errors
    """
    import gc

    from xprof.mxcli import render
    from xprof.mxcli.errors import fail
    from xprof.mxcli.render.progress import byte_progress
    from xprof.mxcli.streaming.checker import Checker
    from xprof.traces.tracefile import TraceError, TraceReader, event_labels

    gc.disable()  # millions of short-lived dicts, no cycles: the collector only costs time
    reader = TraceReader(trace)
    checker = Checker()
    index = 0
    try:
        with byte_progress(reader, "validating") as tick:
            for batch, maybe_big in reader.batches():
                checker.check_batch(index, batch, maybe_big)
                index += len(batch)
                tick()
    except TraceError as exc:
        fail(str(exc))
    checker.check_top(reader.top, reader.truncated, reader.lone_surrogates)
    checker.finish()
    missing = checker.unnamed()
    if missing:
        # Slices are kept as numbers only (bounded memory); a second pass over the file,
        # paid only when such violations exist, recovers their phase and name.
        checker.fill_names(event_labels(trace, missing))
    if fmt == "json":
        click.echo(render.validation_json(trace, checker, reader.form, reader.truncated), nl=False)
    else:
        click.echo(render.validation_text(checker, max_errors))
        hint = render.repair_hint(trace, checker.violations)
        if hint:  # advice, not the result: stderr, after everything else
            click.echo(hint, err=True)
    click.get_current_context().exit(1 if checker.errors else 0)
