"""The progress bar appears only on a terminal and only after about a second."""
from __future__ import annotations

import io
import sys

from xprof.cli import progress


class _Reader:
    def total_bytes(self):
        return 100

    def bytes_read(self):
        return 50


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_no_bar_when_not_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    with progress.byte_progress(_Reader(), "x") as tick:
        tick()
    assert sys.stderr.getvalue() == ""


def test_bar_on_a_terminal_after_the_delay(monkeypatch):
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(progress, "DELAY_S", 3600.0)
    with progress.byte_progress(_Reader(), "reading") as tick:
        tick()
    assert fake.getvalue() == ""  # quick work: no bar
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    with progress.byte_progress(_Reader(), "reading") as tick:
        tick()
    assert "reading" in fake.getvalue()
