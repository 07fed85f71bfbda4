"""The command group: version, help with examples, one-line errors, ``python -m xprof.mxcli``."""
from __future__ import annotations

import pytest

from cli_helpers import cli, cli_subprocess


def test_version():
    from xprof.runtime import __version__

    res = cli("--version")
    assert res.exit_code == 0 and res.stdout == f"xprof {__version__}\n"
    proc = cli_subprocess("--version")
    assert proc.returncode == 0 and proc.stdout == f"xprof {__version__}\n"


@pytest.mark.parametrize("command", [[], ["validate"], ["stats"], ["trace"]])
def test_help_has_an_example(command):
    res = cli(*command, "--help")
    assert res.exit_code == 0
    assert "Example:" in res.stdout and "  xprof " in res.stdout


def test_group_lists_commands():
    res = cli("--help")
    for name in ("validate", "stats", "trace"):
        assert name in res.stdout


def test_unknown_command_is_one_line():
    res = cli("frobnicate")
    assert res.exit_code == 2
    assert res.stderr == "xprof: error: No such command 'frobnicate'.\n"


def test_python_dash_m_errors_have_no_traceback(tmp_path):
    proc = cli_subprocess("stats", "--sort-by", "nope", tmp_path / "x.json")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "xprof: error: Invalid value for '--sort-by': 'nope' is not one of 'total', 'self', 'avg', 'min', "
        "'max', 'count'."]


def test_cli_does_not_boot_the_runtime(tmp_path):
    # `xprof stats` must not import xprof.runtime (engine threads, env autostart of the
    # profiler that would write a profile.json over the file being read).
    import subprocess
    import sys

    code = ("import sys; from xprof.mxcli.main import main\n"
            "try:\n    main(['stats', '--help'])\nexcept SystemExit:\n    pass\n"
            "from xprof.mxcli.render import stats; from xprof.traces import stats as S\n"
            "print('xprof.runtime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_bare_command_prints_help_as_usage_error():
    res = cli()
    assert res.exit_code == 2
    assert res.stderr.startswith("Usage: xprof") and "validate" in res.stderr
    assert "xprof: error" not in res.stderr


@pytest.mark.parametrize("command", ["run", "stats", "trace", "validate"])
def test_every_command_has_version_and_an_example(command):
    from xprof.runtime import __version__

    res = cli(command, "--version")
    assert res.exit_code == 0 and res.stdout == f"xprof {__version__}\n"
    res = cli(command, "--help")
    assert res.exit_code == 0 and "Example:" in res.stdout and "  xprof " in res.stdout


def test_run_usage_names_script_and_args():
    res = cli("run", "--help")
    assert res.stdout.startswith("Usage: xprof run [OPTIONS] SCRIPT [ARGS]...")
