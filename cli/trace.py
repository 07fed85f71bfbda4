"""``xprof trace``: write a normalized, validated copy of a Chrome trace."""
from __future__ import annotations

import os

import click


def write_atomic(path, chunks, compress):
    """Write byte chunks to ``path`` via a temp file in the same folder and os.replace.

    Why: a reader (or a crash) must never see a half-written trace; the old
    file stays intact until the new one is complete.
    """
    import gzip
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".xprof-trace-", suffix=".tmp", dir=folder)
    try:
        mask = os.umask(0o022)   # mkstemp's 0600 would make the copy private
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as raw:
            sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) if compress else raw
            for chunk in chunks:
                sink.write(chunk)
            if compress:
                sink.close()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def serialize(doc):
    """``(head, event_chunks, tail)``: the document as bytes, one event per line.

    Event chunks are kept apart so the output check can see, per chunk, whether
    the bytes hold integers that may exceed 2**53 (see tracefile.py).
    """
    import orjson

    events = doc["traceEvents"]
    chunks = []
    for k in range(0, len(events), 4096):
        part = b",\n".join(orjson.dumps(e) for e in events[k:k + 4096])
        chunks.append((k, (b",\n" if k else b"") + part))
    tail = [b"\n]"]
    for key, value in doc.items():
        if key != "traceEvents":
            tail.append(b",\n" + orjson.dumps(key) + b": " + orjson.dumps(value))
    tail.append(b"}\n")
    return b'{"traceEvents": [\n', chunks, b"".join(tail)


def _source(profiles, align):
    """The input: one trace file, or the merge of several (cli/readers/merge.py)."""
    from .errors import fail
    from .readers.merge import MergedTrace
    from .readers.tracefile import TraceReader

    if len(profiles) <= 1 and align is None:
        return TraceReader(profiles[0] if profiles else "profile.json")
    kind, _, marker = (align or "start").partition(":")
    try:
        return MergedTrace(profiles or ["profile.json"], kind, marker or None)
    except ValueError as e:
        fail(str(e))


def check_serialized(doc, chunks):
    """Validate exactly what would be written (the events, chunk by chunk)."""
    from .readers.checker import Checker
    from .readers.tracefile import digit_runs

    events = doc["traceEvents"]
    checker = Checker()
    checker.check_top({k: v for k, v in doc.items() if k != "traceEvents"})
    for start, raw in chunks:
        checker.check_batch(start, events[start:start + 4096], digit_runs(raw)[0])
    checker.finish()
    checker.fill_names({i: (events[i].get("ph", ""), events[i].get("name", ""))
                        for i in checker.unnamed()})
    return checker


class _TraceCommand(click.Command):
    """``--align marker NAME`` is one option with two words: it is read as
    ``--align marker:NAME``."""

    def parse_args(self, ctx, args):
        args = list(args)
        for i, arg in enumerate(args[:-2]):
            if arg == "--align" and args[i + 1] == "marker":
                args[i + 1:i + 3] = ["marker:" + args[i + 2]]
                break
        return super().parse_args(ctx, args)


@click.command("trace", cls=_TraceCommand)
@click.argument("profiles", nargs=-1, metavar="[PROFILE]...")
@click.option("-o", "--output", required=True, metavar="OUT",
              help="Output file; gzipped when it ends in .gz.")
@click.option("--domain", "domains", multiple=True, metavar="NAME",
              help="Only events of this domain (category); repeatable.")
@click.option("--since", type=click.FloatRange(min=0), default=None, metavar="MS",
              help="Drop what ends before this many ms after the first event.")
@click.option("--until", type=click.FloatRange(min=0), default=None, metavar="MS",
              help="Drop what starts after this many ms after the first event.")
@click.option("--name", "name_glob", default=None, metavar="GLOB",
              help="Only events whose name matches GLOB (fnmatch, e.g. 'conv*').")
@click.option("--force", is_flag=True, help="Write the output even if it fails validation.")
@click.option("--align", default=None, metavar="start|clock|marker NAME",
              help="Merging several profiles: put each one's first event at 0 (start, "
                   "the default), place them by their recorded wall clock (clock), or "
                   "line up the instant event NAME present in every file (marker NAME).")
def trace(profiles, output, domains, since, until, name_glob, force, align):
    """Normalize PROFILE (default profile.json) into OUT; several PROFILEs are merged
    into one timeline (each input's processes named after its file or rank).

    Sorted by time, small pid/tid numbers with process and thread names,
    Custom Operator events on their own named tracks (flow arrows kept),
    filtered by domain, name and time window. The output is validated
    first: if it would be invalid, the violations are listed and nothing is
    written (exit 1) unless --force. Exit 2 for unreadable input or bad
    options.

    \b
    Example:
      xprof trace profile.json -o clean.json
      xprof trace mxnet_profile.json -o ops.json.gz --domain operator --since 5 --until 20
      xprof trace profile.rank0.json profile.rank1.json -o merged.json --align clock
    """
    import gc

    from . import render
    from .errors import fail
    from .readers.checker import Checker
    from .readers.normalize import normalize
    from .readers.tracefile import TraceError, TraceReader

    if since is not None and until is not None and since > until:
        fail(f"--since {since:g} is after --until {until:g}; the window would be empty")
    if os.path.isdir(output):
        fail(f"--output {output!r} is a directory, expected a file name")
    if not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        fail(f"--output {output!r}: folder {os.path.dirname(os.path.abspath(output))!r} does not exist")
    gc.disable()
    reader = _source(profiles, align)
    checked = Checker()  # the input, for the report: normalizing fixes much of it
    events = []
    try:
        for batch, maybe_big in reader.batches():
            checked.check_batch(len(events), batch, maybe_big)
            events.extend(batch)
    except TraceError as exc:
        fail(str(exc))
    checked.check_top(reader.top, reader.truncated)
    checked.finish()
    if domains:
        present = {ev.get("cat") for ev in events if isinstance(ev, dict)}
        present = sorted(c for c in present if isinstance(c, str))
        for d in domains:
            if d not in present:
                fail(f"unknown domain {d!r}; available: "
                     f"{', '.join(map(repr, present)) or 'none'}")
    doc, notes = normalize(events, reader.top, domains, since, until, name_glob)
    del events
    for note in notes:
        click.echo(f"xprof: note: {note}", err=True)
    head, chunks, tail = serialize(doc)
    out_check = check_serialized(doc, chunks)
    if out_check.errors and not force:
        for v in out_check.violations:
            click.echo(render.violation_line(v))
        click.echo(render.summary_line(out_check.events, out_check.errors, out_check.warnings))
        click.echo(f"xprof: the normalized trace would be invalid; nothing written to {output} "
                   f"(use --force to write it anyway)", err=True)
        click.get_current_context().exit(1)
    write_atomic(output, [head, *(raw for _, raw in chunks), tail], output.endswith(".gz"))
    n = len(doc["traceEvents"])
    click.echo(f"xprof: wrote {output} ({n} events; input had {checked.errors} errors and "
               f"{checked.warnings} warnings, output has {out_check.errors} errors and "
               f"{out_check.warnings} warnings)", err=True)
