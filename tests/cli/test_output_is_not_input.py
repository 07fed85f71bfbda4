"""A command never writes its result over the file it reads.

``xprof report same.json -o same.json`` used to replace the trace with the HTML page
(and ``trace``, a merge and ``explain --mark-trace`` their input): now each is refused
with one line, exit 2, the input untouched, whether the output names the input by the
same path, another spelling of it, a symlink or a hard link.
"""
import os

import pytest

from cli_helpers import X, cli, meta, write_trace


@pytest.fixture
def trace(tmp_path):
    return write_trace(tmp_path / "t.json", meta() + [X("op", 0, 10), X("op", 20, 5)])


def _alias(trace, how):
    """A path that names ``trace``, spelled ``how``."""
    folder = trace.parent
    if how == "symlink":
        os.symlink(trace, folder / "link.json")
        return folder / "link.json"
    if how == "hard link":
        os.link(trace, folder / "hard.json")
        return folder / "hard.json"
    return trace if how == "same path" else folder / "." / trace.name


COMMANDS = {
    "report": lambda src, out: ("report", src, "-o", out),
    "trace": lambda src, out: ("trace", src, "-o", out),
    "merge": lambda src, out: ("trace", src.parent / "other.json", src, "-o", out),
    "explain --mark-trace": lambda src, out: ("explain", src, "--mark-trace", out),
}


@pytest.mark.parametrize("how", ["same path", "other spelling", "symlink", "hard link"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_naming_the_input_is_refused(trace, command, how):
    write_trace(trace.parent / "other.json", meta() + [X("op2", 0, 10)])
    before = trace.read_bytes()
    res = cli(*map(str, COMMANDS[command](trace, _alias(trace, how))))
    assert res.exit_code == 2, res.stdout + res.stderr
    assert "is the input" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert trace.read_bytes() == before


def test_another_output_is_written(trace, tmp_path):
    res = cli("report", str(trace), "-o", str(tmp_path / "r.html"))
    assert res.exit_code == 0 and (tmp_path / "r.html").is_file()
