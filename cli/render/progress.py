"""A byte-based progress bar that only appears when it helps.

Why so restrained: output is often piped or parsed, so the bar goes to
stderr, only when stderr is a terminal, and only once the work has already
taken about a second (quick runs never flash a bar).
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager

DELAY_S = 1.0


@contextmanager
def byte_progress(reader, label):
    """Yield ``tick()``; call it now and then while ``reader`` consumes its file."""
    interactive = sys.stderr.isatty()
    started = time.monotonic()
    state = {"bar": None, "task": None, "last": 0.0}

    def tick():
        if not interactive:
            return
        now = time.monotonic()
        if now - state["last"] < 0.1:
            return
        state["last"] = now
        if state["bar"] is None:
            if now - started < DELAY_S:
                return
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

            state["bar"] = Progress(TextColumn(label), BarColumn(), DownloadColumn(),
                                    console=Console(stderr=True), transient=True)
            state["bar"].start()
            state["task"] = state["bar"].add_task(label, total=reader.total_bytes() or None)
        state["bar"].update(state["task"], completed=reader.bytes_read())

    try:
        yield tick
    finally:
        if state["bar"] is not None:
            state["bar"].stop()


@contextmanager
def delayed_status(label):
    """Show ``label`` with a spinner and the elapsed time on a terminal's stderr while the
    body runs, from ``DELAY_S`` on (for work with no byte count, e.g. the end-of-run dump).

    A timer thread starts the display, so the body needs no ticks; the display is
    gone when the body ends. Yields the threading.Event set once it is shown.
    """
    import threading

    shown = threading.Event()
    if not sys.stderr.isatty():
        yield shown
        return
    state = {"status": None, "done": False}
    lock = threading.Lock()

    def start():
        with lock:
            if state["done"]:
                return
            from rich.console import Console

            state["status"] = Console(stderr=True).status(label)
            state["status"].start()
            shown.set()

    timer = threading.Timer(DELAY_S, start)
    timer.daemon = True
    timer.start()
    try:
        yield shown
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["status"] is not None:
                state["status"].stop()
