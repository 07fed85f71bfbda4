"""Mutated real traces never make a reader print a traceback or hang, and the three
commands agree on what is unreadable (exit 2 in all, one ``xprof: error:`` line).

Inputs: seeded byte and structure mutations (``mutations.py``) of the MXNet and
PyTorch fixtures and of a trace the runtime writes. 300 cases in the gate (the same
seeds every run); ``--hypothesis-profile=explore`` draws 3,000 fresh ones. Per case:
``validate``, ``stats`` and ``trace`` in-process, each under a 30 s alarm; when
``trace`` writes a file, ``validate`` must accept it.
"""
from __future__ import annotations

import json
import random
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import ONEDNN, TRACES, cli
from mutations import mutate, mutate_bytes

CASES = 300 if settings.default.derandomize else 3000
TIMEOUT_S = 30


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("fuzz-src")
    script = folder / "ops.py"
    script.write_text("import xprof.runtime as mx\n"
                      "x = mx.nd.ones((4, 4))\n"
                      "y = (x + 1) * 2\n"
                      "y.wait_to_read()\n")
    subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", "rt.json", str(script)],
                   cwd=folder, check=True, timeout=120)
    paths = sorted(TRACES.glob("*.json")) + [folder / "rt.json"]
    out = []
    for path in paths:
        data = path.read_bytes()
        out.append((data, json.loads(data)))
    return out, tmp_path_factory.mktemp("fuzz")


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _run(*args):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        return cli(*args)
    except _Hang:
        pytest.fail(f"xprof {' '.join(map(str, args))} did not finish in {TIMEOUT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _one_line_error(res):
    lines = res.stderr.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("xprof: error: ")


@settings(max_examples=CASES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_mutated_traces_never_traceback_or_hang(sources, seed):
    srcs, folder = sources
    kind, data = mutate(srcs, random.Random(seed))
    path, out = folder / "in.json", folder / "out.json"
    path.write_bytes(data)
    if out.exists():
        out.unlink()
    results = {name: _run(*args) for name, args in (
        ("validate", ("validate", path)),
        ("stats", ("stats", path)),
        ("trace", ("trace", path, "-o", out)))}
    for name, res in results.items():
        where = f"{name} on seed {seed} ({kind} mutation)"
        assert "Traceback" not in res.stdout + res.stderr, where
        assert res.exit_code in ((0, 2) if name == "stats" else (0, 1, 2)), where
        if res.exit_code == 2:
            assert _one_line_error(res), f"{where}: {res.stderr!r}"
    unreadable = {name for name, res in results.items() if res.exit_code == 2}
    assert unreadable in (set(), set(results)), f"seed {seed}: only {unreadable} found it unreadable"
    if results["trace"].exit_code == 0:
        check = _run("validate", out)
        assert check.exit_code == 0, f"seed {seed}: xprof trace wrote an invalid trace:\n{check.stdout}"


@settings(max_examples=CASES // 3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_mutated_onednn_logs_never_traceback(tmp_path_factory, seed):
    rng = random.Random(seed)
    data = rng.choice(sorted(ONEDNN.glob("*.log"))).read_bytes()
    for _ in range(rng.randrange(1, 4)):
        data = mutate_bytes(data, rng)
    path = tmp_path_factory.getbasetemp() / "fuzz-in.log"
    path.write_bytes(data)
    for args in (("stats", path), ("stats", path, "--format", "csv"), ("validate", path)):
        res = _run(*args)
        assert "Traceback" not in res.stdout + res.stderr, f"seed {seed}"
        assert res.exit_code in (0, 1, 2), f"seed {seed}"
        if res.exit_code == 2:
            assert _one_line_error(res), f"seed {seed}: {res.stderr!r}"


def test_nesting_600_deep_is_read_alike_by_all_three(tmp_path):
    deep = b'{"a":[' * 300 + b"1" + b"]}" * 300
    path = tmp_path / "deep.json"
    path.write_bytes(b'{"traceEvents": [{"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 0, "tid": 0, '
                     b'"args": {"deep": ' + deep + b"}}]}")
    assert cli("validate", path).exit_code == 0
    assert cli("stats", path).exit_code == 0
    res = cli("trace", path, "-o", tmp_path / "o.json")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert cli("validate", tmp_path / "o.json").exit_code == 0


@pytest.mark.parametrize("name, text, code, fragment", [
    ("not utf-8", b'{"traceEvents": [{"name": "a\xff", "ph": "X", "ts": 1, "dur": 1, "pid": 0, "tid": 0}]}',
     2, "not UTF-8 text: byte 0xff"),
    ("deep", b'{"traceEvents": [{"name": "a", "ph": "i", "ts": 1, "pid": 0, "tid": 0, "args": '
     + b"[" * 3000 + b"]" * 3000 + b"}]}", 2, "nests deeper than the 1,000 levels"),
    ("lone surrogate", b'{"traceEvents": [{"name": "a\\ud800", "ph": "X", "ts": 1, "dur": 1, '
     b'"pid": 0, "tid": 0}]}', 1, "lone surrogate escape"),
    ("dur 1e308", b'{"traceEvents": [{"name": "a", "ph": "X", "ts": 1, "dur": 1e308, "pid": 0, "tid": 0}]}',
     1, "dur 1e+308 is beyond 2^63 ns"),
    ("int beyond 2^64", b'{"traceEvents": [{"name": "a", "ph": "C", "ts": 1, "pid": 0, "tid": 0, '
     b'"args": {"v": 123456789012345678901234567890}}]}', 1, "integer at args.v exceeds 2^53"),
])
def test_each_malformed_input_is_one_line_or_a_violation(tmp_path, name, text, code, fragment):
    path = tmp_path / "t.json"
    path.write_bytes(text)
    res = cli("validate", path)
    assert res.exit_code == code and fragment in (res.stdout + res.stderr), res.stdout + res.stderr
    stats = cli("stats", path)
    trace = cli("trace", path, "-o", tmp_path / "o.json")
    for r in (res, stats, trace):
        assert "Traceback" not in r.stdout + r.stderr
    if code == 2:
        assert stats.exit_code == trace.exit_code == 2 and _one_line_error(stats) and _one_line_error(trace)
    else:
        assert stats.exit_code == 0
        if name == "lone surrogate":  # repaired: U+FFFD in the output, which validates
            assert trace.exit_code == 0 and "\ufffd" in (tmp_path / "o.json").read_text(encoding="utf-8")
            assert cli("validate", tmp_path / "o.json").exit_code == 0
            assert "a\ufffd" in stats.stdout
        else:  # the output would carry the same violation: refused
            assert trace.exit_code == 1 and not (tmp_path / "o.json").exists()


def test_trace_output_passes_the_strict_rules_on_odd_ids_and_async_across_pids(tmp_path):
    events = [
        {"name": "t", "cat": "c", "ph": "b", "id": 9, "ts": 1, "pid": 0, "tid": 0},
        {"name": "t", "cat": "c", "ph": "e", "id": 9, "ts": 5, "pid": 7, "tid": 3},
        {"name": "u", "cat": "c", "ph": "b", "id": 1.5, "ts": 2, "pid": 0, "tid": 0},
        {"name": "u", "cat": "c", "ph": "e", "id": 1.5, "ts": 3, "pid": 0, "tid": 0},
        {"name": "v", "cat": "c", "ph": "n", "id": [1], "ts": 3, "pid": 0, "tid": 0},
        {"name": "a", "cat": "c", "ph": "X", "ts": 1, "dur": 9, "pid": 0, "tid": 0},
        {"name": "f", "cat": "c", "ph": "s", "id": 2.5, "ts": 2, "pid": 0, "tid": 0},
        {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 2.5, "ts": 4, "pid": 0, "tid": 0},
    ]
    src = tmp_path / "odd.json"
    src.write_text(json.dumps({"traceEvents": events}))
    res = cli("validate", src)
    assert res.exit_code == 1
    assert "async end on pid 7 but its b (event 0) is on pid 0" in res.stdout
    assert "id must be an integer or a string, got 1.5" in res.stdout
    assert "id must be an integer or a string, got [1]" in res.stdout
    out = tmp_path / "o.json"
    res = cli("trace", src, "-o", out)
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "moved 1 async end to the process of its begin" in res.stderr
    doc = json.loads(out.read_text())
    assert cli("validate", out).exit_code == 0
    ids = sorted((e["ph"], e["id"]) for e in doc["traceEvents"] if "id" in e)
    assert ids == [("b", 1), ("b", 2), ("e", 1), ("e", 2), ("f", 1), ("n", 3), ("s", 1)]
    (begin,) = [e for e in doc["traceEvents"] if e["ph"] == "b" and e["name"] == "t"]
    (end,) = [e for e in doc["traceEvents"] if e["ph"] == "e" and e["name"] == "t"]
    assert begin["pid"] == end["pid"]
