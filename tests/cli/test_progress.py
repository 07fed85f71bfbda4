"""The progress bar appears only on a terminal and only after about a second."""
from __future__ import annotations

import io
import sys

from xprof.mxcli.render import progress


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


def test_delayed_status_shows_while_slow_work_runs(monkeypatch):
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    with progress.delayed_status("xprof: writing the profile (5 events)") as shown:
        assert shown.wait(10), "the status never appeared"
    assert "writing the profile (5 events)" in fake.getvalue()
    monkeypatch.setattr(progress, "DELAY_S", 3600.0)
    quiet = _Tty()
    monkeypatch.setattr(sys, "stderr", quiet)
    with progress.delayed_status("quick") as shown:
        pass
    assert not shown.is_set() and quiet.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    with progress.delayed_status("piped") as shown:
        assert not shown.wait(0.05)
    assert sys.stderr.getvalue() == ""


def test_trace_reports_progress_while_reading_and_writing(tmp_path, monkeypatch):
    from contextlib import contextmanager

    from cli_helpers import X, cli, meta, write_trace

    seen = []

    @contextmanager
    def recording(reader, label):
        ticks = []
        yield lambda: ticks.append((reader.bytes_read(), reader.total_bytes()))
        seen.append((label, ticks))

    monkeypatch.setattr(progress, "byte_progress", recording)
    src = write_trace(tmp_path / "t.json", meta() + [X(f"op{k}", k, 0.5) for k in range(5000)])
    assert cli("trace", src, "-o", tmp_path / "o.json").exit_code == 0
    (read_label, reads), (write_label, writes) = seen
    assert (read_label, write_label) == ("reading", "writing")
    assert reads and reads[-1][0] == reads[-1][1] == src.stat().st_size
    assert [done for done, _ in writes] == [4096, 5000] and writes[-1][1] == 5000
