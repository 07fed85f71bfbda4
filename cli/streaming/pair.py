"""Two traces read side by side for ``xprof diff`` (and ``xprof run --baseline``): A in a
forked process while this one reads B (each trace's reading is its own, and there are
two cores), each read once into what the comparison needs (``analysis/diff.py``'s
:class:`~xprof.mxcli.analysis.diff.Summary`). Errors of either are one line, exit 2.
"""
from __future__ import annotations

from xprof.mxcli.analysis.diff import run_of, summarize


def load_summary(path):
    return summarize(load_run(path))


def load_pair(a, b):
    """The :class:`Summary` of both traces, read side by side: A in a forked process
    while this one reads B (each trace's reading is its own, and there are two cores);
    read here one after the other where a fork is not available."""
    import multiprocessing as mp

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return load_summary(a), load_summary(b)
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=ctx,
                             initializer=_end_with_parent) as pool:
        future = pool.submit(_load_or_error, a)
        sb = load_summary(b)
        kind, value = future.result()
    if kind == "error":
        from xprof.mxcli.errors import fail
        fail(value)
    return value, sb


def _end_with_parent():
    """In the reader: SIGKILL when the diff's process dies (Linux ``PR_SET_PDEATHSIG``):
    a diff killed (or crashed) mid-read leaves no reader behind, waiting for ever."""
    import ctypes
    import signal
    import sys
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))
        except (OSError, AttributeError):
            pass


def _load_or_error(path):
    """In the child: the summary, or the one-line error (an XprofError does not cross
    the process boundary as itself)."""
    import click
    try:
        return "ok", load_summary(path)
    except click.ClickException as exc:
        return "error", exc.format_message()


def load_run(path):
    """Read ``path`` (an xprof, MXNet 1.x or PyTorch trace) once into a ``Trace`` with
    its layer and shape columns, and make the diff's :class:`Run` of it (exit 2 if
    unreadable)."""
    from xprof.mxcli.errors import fail
    from xprof.mxcli.streaming.sources import OneDNNLog, _claims, read_trace

    if _claims(OneDNNLog, path):
        fail(f"{path}: not a Chrome trace; xprof diff compares traces")
    # of the links only the custom-op calls (explain's and the calls section's)
    tl = read_trace(path, links="calls", records=True, keys=True)
    if not len(tl.start):
        fail(f"{path}: no slices (complete events or B/E pairs) to compare")
    return run_of(path, tl)
