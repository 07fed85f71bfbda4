"""Every ``XPROF_*``/``MXNET_*`` value xprof reads is checked before any work.

A malformed value used to surface where it was read: ``XPROF_ENGINE_EXIT_TIMEOUT=abc``
ran the whole script, then printed three tracebacks and wrote no profile. Now ``xprof
run`` refuses it before the script starts (one line naming the variable, the value and
what is allowed; exit 2; an existing profile untouched), and a script importing
``xprof.runtime`` gets the same line as its error.
"""
import os
import re
import subprocess
import sys

import pytest

from xprof.runtime import _env

BAD = {  # a malformed value for every setting that has a form
    name: ("abc" if name not in ("ENGINE_TYPE", "PROFILER_MODE") else "fast")
    for name, check in _env.SETTINGS.items() if check("abc") is not None
}


def _run(args, cwd, env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    full.update(env)
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env=full)


def test_every_setting_has_a_check():
    read = set()
    root = os.path.dirname(_env.__file__)
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                text = open(os.path.join(folder, f), encoding="utf-8").read()
                read.update(re.findall(r'_env\.get(?:_int|_bool)?\("([A-Z_]+)"', text))
    read.discard("EXEC_BULK_EXEC_MAX_NODE_TRAIN_")   # + "FWD"/"BWD", both listed
    assert read <= set(_env.SETTINGS), read - set(_env.SETTINGS)


@pytest.mark.parametrize("prefix", ["XPROF_", "MXNET_"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_xprof_run_refuses_a_malformed_value_before_the_script(name, prefix, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("open('started', 'w').close()\nimport xprof.runtime as mx\n")
    (tmp_path / "profile.json").write_text("{}")
    res = _run(["-m", "xprof.mxcli", "run", str(script)], tmp_path, {prefix + name: BAD[name]})
    assert res.returncode == 2, res.stderr
    line, = res.stderr.strip().splitlines()
    assert line.startswith(f"xprof: error: {prefix}{name}={BAD[name]!r} is not allowed: use ")
    assert not (tmp_path / "started").exists()
    assert (tmp_path / "profile.json").read_text() == "{}"


@pytest.mark.parametrize("prefix", ["XPROF_", "MXNET_"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_a_script_under_python_gets_the_one_line_not_a_traceback(name, prefix, tmp_path):
    """#40.13: under plain ``python`` a malformed value is the same one line."""
    script = tmp_path / "s.py"
    script.write_text("import xprof.runtime as mx\nprint('ran')\n")
    res = _run([str(script)], tmp_path, {prefix + name: BAD[name]})
    assert res.returncode == 1 and "ran" not in res.stdout
    line, = res.stderr.strip().splitlines()
    assert line.startswith(f"xprof: error: {prefix}{name}={BAD[name]!r} is not allowed: use ")


def test_the_error_stays_catchable(tmp_path):
    res = _run(["-c", "try:\n    import xprof.runtime\nexcept ValueError as e:\n"
                "    print('caught', e)\n"], tmp_path, {"XPROF_ENGINE_EXIT_TIMEOUT": "abc"})
    assert res.returncode == 0 and res.stderr == ""
    assert res.stdout.strip() == ("caught XPROF_ENGINE_EXIT_TIMEOUT='abc' is not allowed: "
                                  "use an integer from 0 to 2147483647")


MISSPELT = {"XPROF_ENGIN_TYPE": "NaiveEngine", "XPROF_NOSUCHSETTING": "1"}
ENGINE_SCRIPT = "import xprof.runtime as mx\nprint(mx.engine.engine_type())\n"


def _warnings(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith("xprof: warning: ")]


def test_an_unknown_setting_is_warned_once_naming_the_closest(tmp_path):
    """#40.6: ``XPROF_ENGIN_TYPE=NaiveEngine`` used to leave ThreadedEngine without a
    word."""
    script = tmp_path / "s.py"
    script.write_text(ENGINE_SCRIPT)
    res = _run([str(script)], tmp_path, MISSPELT)
    assert res.returncode == 0 and res.stdout.strip() == "ThreadedEngine"
    assert _warnings(res.stderr) == [
        "xprof: warning: XPROF_ENGIN_TYPE is not an xprof setting and is ignored; the "
        "closest one is XPROF_ENGINE_TYPE (docs/settings.md lists them)",
        "xprof: warning: XPROF_NOSUCHSETTING is not an xprof setting and is ignored; the "
        "closest one is " + _env.unknown({"XPROF_NOSUCHSETTING": "1"})[0].split(
            "closest one is ")[1].split()[0] + " (docs/settings.md lists them)"]
    assert res.stderr.count("XPROF_ENGIN_TYPE") == 1


@pytest.mark.parametrize("nproc", [None, 2])
def test_xprof_run_warns_once_per_job(tmp_path, nproc):
    script = tmp_path / "s.py"
    script.write_text(ENGINE_SCRIPT)
    args = ["-m", "xprof.mxcli", "run", "-q", "-o", str(tmp_path / "p.json")]
    if nproc:
        args += ["--nproc", str(nproc)]
    res = _run(args + [str(script)], tmp_path, {"XPROF_ENGIN_TYPE": "NaiveEngine",
                                                "XPROF_RUN_MPIEXEC": "none"})
    assert res.returncode == 0, res.stderr
    assert len(_warnings(res.stderr)) == 1, res.stderr
    assert "XPROF_ENGINE_TYPE" in _warnings(res.stderr)[0]


def test_the_test_suites_own_variables_are_known():
    assert _env.unknown({"XPROF_REQUIRE_DIST": "1", "XPROF_CHROMIUM": "/x",
                         "MXNET_CUDNN_AUTOTUNE_DEFAULT": "0"}) == []


@pytest.mark.parametrize("name", [n for n, c in _env.SETTINGS.items() if c("2") is None
                                  and c("abc") is not None and c("true") is not None])
def test_integers_are_bounded_above(name):
    """A 40-digit thread count once passed the check, then failed as an OverflowError or
    an unwritable profile: every integer setting has an upper bound."""
    assert _env.SETTINGS[name]("9" * 40) is not None


def test_well_formed_values_pass():
    good = {"XPROF_ENGINE_TYPE": "NaiveEngine", "MXNET_ENGINE_TYPE": "ThreadedEnginePerDevice",
            "XPROF_CPU_WORKER_NTHREADS": "2", "XPROF_GC_TUNING": "off",
            "XPROF_PROFILER_MODE": "symbolic, imperative", "MXNET_UPDATE_ON_KVSTORE": "0",
            "XPROF_EXEC_BULK_EXEC_TRAIN": "true", "XPROF_PROFILER_FILENAME": "x.json"}
    _env.check_all(good)
    with pytest.raises(_env.SettingError, match="XPROF_GC_TUNING='maybe'"):
        _env.check_all({**good, "XPROF_GC_TUNING": "maybe"})


def test_settings_page_lists_exactly_the_table():
    """docs/settings.md is the user's list: one row per entry of the table, no more."""
    page = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "settings.md")
    if not os.path.exists(page):
        pytest.skip("docs/ is not next to the tests (installed copy)")
    rows = re.findall(r"^\| `([A-Z_]+)` \|", open(page, encoding="utf-8").read(), re.M)
    assert len(rows) == len(set(rows)), "a setting is listed twice"
    assert set(rows) == set(_env.SETTINGS), (set(_env.SETTINGS) - set(rows),
                                             set(rows) - set(_env.SETTINGS))
