"""Failures that used to end in a traceback or a silent pass (#40.13): out of memory in a
reading command, a killed diff reader (which exited 1, the gate's "regression"), a
``--fail-on op:NAME`` that names nothing. Each is one ``xprof: error:`` line, exit 2."""
from __future__ import annotations

import os
import signal

import pytest

from cli_helpers import X, cli, meta, write_trace

from xprof.traces import tracefile


def _trace(tmp_path, name="t.json"):
    return write_trace(tmp_path / name, meta() + [X(f"op{i % 3}", 10 * i, 5)
                                                   for i in range(30)])


def _one_error_line(res):
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("xprof: error: "), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


@pytest.mark.parametrize("argv", [["stats"], ["explain"], ["report", "-o", "r.html"],
                                  ["trace", "-o", "o.json"], ["diff", "A"], ["validate"]])
def test_out_of_memory_is_one_line_exit_2(tmp_path, monkeypatch, argv):
    path = _trace(tmp_path)

    def no_memory(self, *args, **kwargs):
        raise MemoryError
        yield   # (a generator, as the real one)

    monkeypatch.setattr(tracefile.TraceReader, "batches", no_memory)
    args = [a if a not in ("r.html", "o.json", "A") else str(tmp_path / a) for a in argv]
    if argv[0] == "diff":
        args[1] = path
    res = cli(args[0], path, *args[1:])
    assert res.exit_code == 2
    line = _one_error_line(res)
    assert f"out of memory in xprof {argv[0]}" in line


def killed(path):
    """In the forked reader of A: killed (the OOM killer, a user's kill)."""
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_diff_reader_is_one_line_exit_2_not_the_gates_1(tmp_path, monkeypatch):
    from xprof.mxcli.streaming import pair

    monkeypatch.setattr(pair, "_load_or_error", killed)
    a, b = _trace(tmp_path, "a.json"), _trace(tmp_path, "b.json")
    res = cli("diff", a, b, "--fail-on", "10%")
    assert res.exit_code == 2
    assert "a reader process in xprof diff ended before it finished" in _one_error_line(res)


def test_fail_on_an_op_that_is_in_neither_trace_is_refused(tmp_path):
    a = _trace(tmp_path, "a.json")
    res = cli("diff", a, a, "--fail-on", "op:opp1:10%")
    assert res.exit_code == 2
    line = _one_error_line(res)
    assert "no op or layer named 'opp1' in A or B" in line and "op1" in line
    assert cli("diff", a, a, "--fail-on", "op:op1:10%").exit_code == 0
