"""The one error type commands raise for bad input; main.py prints it as one line, exit 2."""
from __future__ import annotations

import click


class XprofError(click.ClickException):
    """A user-facing error: names the bad value and what is allowed; no traceback."""

    exit_code = 2


def fail(message):
    raise XprofError(message)


# One --format vocabulary across commands: text, json, csv, html, markdown where each
# applies. Older spellings are kept one release, with a note (docs/cli-readers.md).
FORMAT_ALIASES = {"table": "text"}


def format_of(fmt):
    """``fmt`` in the common vocabulary (an older spelling: a note on stderr, its new
    name returned)."""
    new = FORMAT_ALIASES.get(fmt)
    if new is None:
        return fmt
    click.echo(f"xprof: note: --format {fmt} is now --format {new} ({fmt} is kept for "
               f"one release)", err=True)
    return new


def refuse_overwrite(option, output, inputs):
    """Exit 2 when ``output`` is one of ``inputs``: by resolved path, or, when both exist,
    by device and inode (a symlink or a hard link to the input counts). A command that
    wrote its result over the file it reads would destroy it before (or while) reading."""
    import os

    out_real = os.path.realpath(output)
    try:
        out_stat = os.stat(output)
    except OSError:
        out_stat = None
    for src in inputs:
        same = os.path.realpath(src) == out_real
        if not same and out_stat is not None:
            try:
                st = os.stat(src)
            except OSError:
                continue
            same = (st.st_dev, st.st_ino) == (out_stat.st_dev, out_stat.st_ino)
        if same:
            fail(f"{option} {str(output)!r} is the input {str(src)!r}; write the output to "
                 f"another file")
