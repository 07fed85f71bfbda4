"""``xprof trace``: write a normalized, validated copy of a Chrome trace, streaming.

One pass reads the input into the normalizer's compact columns (bounded
memory, see ``streaming/normalize.py``); the output is then written to a temp
file chunk by chunk while the same checker as ``xprof validate`` reads each
chunk back, and the temp file replaces OUT only if the output is valid (or
``--force``).
"""
from __future__ import annotations

import os

import click


def write_atomic(path, chunks, compress, keep=lambda tmp: True):
    """The shared atomic writer (:mod:`xprof.traces.atomic`), fsynced: a reader (or a
    crash) must never see a half-written trace; ``keep(tmp)`` may refuse the new file
    (the old one then stays). Returns whether the file was replaced."""
    from xprof.traces.atomic import write_atomic as write

    return write(path, chunks, compress=compress, durable=True, keep=keep)


def _decode_chunk(raw, huge_ints):
    """Events of one output chunk, read back as ``xprof validate`` would read them
    (integers of 20+ digits by the standard library: orjson makes floats of them)."""
    import json
    import sys

    import orjson

    try:
        if not huge_ints:
            return orjson.loads(raw)
    except orjson.JSONDecodeError:   # nesting beyond 1024
        pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        return json.loads(raw)
    finally:
        sys.setrecursionlimit(limit)


def _source(profiles, align):
    """The input: one trace file, or the merge of several (cli/streaming/merge.py)."""
    from xprof.mxcli.errors import fail
    from xprof.mxcli.streaming.merge import MergedTrace
    from xprof.traces.tracefile import TraceReader

    if len(profiles) <= 1 and align is None:
        return TraceReader(profiles[0] if profiles else "profile.json")
    kind, _, marker = (align or "start").partition(":")
    try:
        return MergedTrace(profiles or ["profile.json"], kind, marker or None)
    except ValueError as e:
        fail(str(e))


def check_chunk(checker, norm, first_index, start, count):
    """Check the output's events ``[start, start + count)`` from the normalizer's columns:
    runs of plain events in bulk (:meth:`Checker.check_columns`), the others decoded one
    by one, in order (the async and flow pairing rules depend on it)."""
    import numpy as np

    cols = norm.output_columns(start, start + count)
    plain, labels = cols["plain"], cols["labels"]
    begin = 0
    for j in np.flatnonzero(plain == 0).tolist() + [count]:
        if j > begin:
            run = slice(begin, j)
            checker.check_columns(first_index + begin, plain[run], cols["ts"][run], cols["dur"][run],
                                  cols["pid"][run], cols["tid"][run], cols["id"][run],
                                  cols["label"][run], labels)
        if j < count:
            checker.check_batch(first_index + j,
                                _decode_chunk(b"[" + norm.event_json(start + j) + b"]", True), True)
        begin = j + 1


def checked_output(norm, top, checker, progress, decode=False):
    """The output's bytes (head, events, tail), each chunk checked by ``checker`` on the way.

    A chunk is checked from the normalizer's columns (:func:`check_chunk`) unless it may
    hold integers beyond 2^53 (their rule looks into every value) or ``decode``: then its
    bytes are read back as ``xprof validate`` reads a file (tests compare the two).
    """
    import orjson

    from xprof.mxcli.streaming.normalize import dumps
    from xprof.traces.tracefile import digit_runs

    header = norm.header()
    checker.check_top(top)
    checker.check_batch(0, header, True)
    yield b'{"traceEvents": [\n' + b",\n".join(orjson.dumps(e) for e in header)
    first = not header
    base = len(header)
    for start, count, raw in norm.chunks():
        long_ints, huge_ints = digit_runs(raw)
        if long_ints or decode:
            checker.check_batch(base + start, _decode_chunk(b"[" + raw + b"]", huge_ints), long_ints)
        else:
            check_chunk(checker, norm, base + start, start, count)
        yield (b"" if first else b",\n") + raw
        first = False
        progress(start + count)
    checker.finish()
    yield b"\n]" + b"".join(b",\n" + orjson.dumps(k) + b": " + dumps(v) for k, v in top.items()) + b"}\n"


class _Counting:
    """Progress of the writing phase, in events, for progress.byte_progress."""

    def __init__(self, total):
        self.total, self.done = total, 0

    def total_bytes(self):
        return self.total

    def bytes_read(self):
        return self.done


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

    from xprof.mxcli import render
    from xprof.mxcli.errors import fail, refuse_overwrite
    from xprof.mxcli.render.progress import byte_progress
    from xprof.mxcli.streaming.checker import Checker
    from xprof.mxcli.streaming.normalize import Normalizer
    from xprof.traces.tracefile import TraceError, event_labels

    if since is not None and until is not None and since > until:
        fail(f"--since {since:g} is after --until {until:g}; the window would be empty")
    if os.path.isdir(output):
        fail(f"--output {output!r} is a directory, expected a file name")
    refuse_overwrite("--output", output, profiles)
    if not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        fail(f"--output {output!r}: folder {os.path.dirname(os.path.abspath(output))!r} does not exist")
    gc.disable()
    reader = _source(profiles, align)
    norm = Normalizer()
    try:
        with byte_progress(reader, "reading") as tick:
            for batch, _ in reader.batches():
                norm.feed(batch)
                tick()
    except TraceError as exc:
        fail(str(exc))
    for d in domains:
        if d not in norm.categories:
            fail(f"unknown domain {d!r}; available: "
                 f"{', '.join(map(repr, sorted(norm.categories))) or 'none'}")
    if reader.lone_surrogates:
        norm.notes.append(f"wrote U+FFFD for the lone surrogate escapes (such as \\ud800) of "
                          f"{render.plural(reader.lone_surrogates, 'string')}")
    for note in norm.finish(domains, since, until, name_glob):
        click.echo(f"xprof: note: {note}", err=True)
    top = Normalizer.top(reader.top)
    checker = Checker()
    writing = _Counting(norm.count())

    def keep(tmp):
        if not checker.errors or force:
            return True
        missing = checker.unnamed()
        if missing:
            checker.fill_names(event_labels(tmp, missing))
        click.echo(render.validation_text(checker, 20))
        click.echo(f"xprof: the normalized trace would be invalid; nothing written to {output} "
                   f"(use --force to write it anyway)", err=True)
        return False

    def progress(done):
        writing.done = done
        tick()

    try:
        with byte_progress(writing, "writing") as tick:
            written = write_atomic(output, checked_output(norm, top, checker, progress),
                                   output.endswith(".gz"), keep)
    except OSError as exc:   # a full or read-only filesystem: the temp file is gone
        fail(f"--output {output!r}: cannot write ({exc.strerror or exc}); "
             f"{os.path.abspath(output)!r} is unchanged")
    if not written:
        click.get_current_context().exit(1)
    click.echo(f"xprof: wrote {output} ({render.plural(checker.events, 'event')} from "
               f"{render.plural(norm.read, 'input event')}; output has "
               f"{render.plural(checker.errors, 'error')} and "
               f"{render.plural(checker.warnings, 'warning')})", err=True)
