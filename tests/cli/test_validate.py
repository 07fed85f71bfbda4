"""``xprof validate``: one hand-made broken trace per rule, exit codes, formats, fixtures."""
from __future__ import annotations

import gzip
import json
import re

import pytest

from cli_helpers import X, cli, cli_subprocess, meta, write_trace

M = meta()


def good_trace():
    """Everything our runtime writes, valid: metadata, nested X, counter, async task,
    flow from a custom op's Python slice to its sub-operator, instant markers."""
    return M + meta(tid=3, thread="custom op worker 0")[1:] + [
        {"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": 1, "args": {"sort_index": 1}},
        X("MXImperativeInvoke", 10.0, 20.0, cat="API"),
        X("_plus_scalar", 12.345, 1.2),
        X("_mul_scalar", 12.0, 1.545),  # ends at 13.545 like its neighbour: equal boundaries nest
        X("MyAddOne::pure_python", 11.0, 6.0, tid=3, cat="Custom Operator"),
        {"name": "MyAddOne", "cat": "Custom Operator", "ph": "s", "id": 7, "ts": 12.0, "pid": 0, "tid": 3},
        X("MyAddOne::_plus_scalar", 20.0, 2.0, cat="Custom Operator"),
        {"name": "MyAddOne", "cat": "Custom Operator", "ph": "f", "bp": "e", "id": 7, "ts": 20.5,
         "pid": 0, "tid": 1},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 13, "pid": 0,
         "args": {"Memory: cpu/0": 4096}},
        {"name": "task", "cat": "mydomain", "ph": "b", "id": 1, "ts": 10, "pid": 0, "tid": 1},
        {"name": "task", "cat": "mydomain", "ph": "n", "id": 1, "ts": 11, "pid": 0, "tid": 1},
        {"name": "task", "cat": "mydomain", "ph": "e", "id": 1, "ts": 30, "pid": 0, "tid": 1},
        {"name": "mark", "cat": "mydomain", "ph": "i", "s": "g", "ts": 15, "pid": 0, "tid": 1},
        {"name": "mark2", "cat": "mydomain", "ph": "i", "ts": 16, "pid": 0, "tid": 1},
        {"name": "outer", "cat": "user", "ph": "B", "ts": 40, "pid": 0, "tid": 1},
        X("inner", 41, 2, cat="user"),
        {"name": "outer", "cat": "user", "ph": "E", "ts": 45, "pid": 0, "tid": 1},
        {"name": "late", "cat": "user", "ph": "B", "ts": 50, "pid": 0, "tid": 1},
        {"ph": "E", "ts": 51, "pid": 0, "tid": 1},  # E without name/cat is fine
        {"name": "big but safe", "ph": "X", "ts": 60, "dur": 1, "pid": 0, "tid": 1,
         "args": {"n": 2 ** 53, "m": -(2 ** 53)}},
    ]


def test_good_trace_is_valid(tmp_path):
    path = write_trace(tmp_path / "good.json", good_trace(), displayTimeUnit="ms",
                       otherData={"xprof_version": "0"})
    res = cli("validate", path)
    assert res.exit_code == 0, res.stdout
    assert res.stdout.strip().splitlines()[-1] == f"{len(good_trace())} events, 0 errors, 0 warnings"


def test_array_form_valid_and_gzip(tmp_path):
    path = tmp_path / "g.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump(good_trace(), f)
    res = cli("validate", path)
    assert res.exit_code == 0 and " 0 errors" in res.stdout


def _one(tmp_path, events, **top):
    path = write_trace(tmp_path / "t.json", M + events, **top)
    return cli("validate", path)


BAD = {
    # id: (events, expected message fragment, expected index of the violation or None)
    "ph missing": ([{"name": "a", "ts": 1, "pid": 0, "tid": 1}], "ph is missing", 2),
    "ph unknown": ([{"name": "a", "ph": "Z", "ts": 1, "pid": 0, "tid": 1}], "not a known phase", 2),
    "ph two chars": ([{"name": "a", "ph": "XX", "ts": 1, "pid": 0, "tid": 1}], "not a known phase", 2),
    "not an object": ([42], "not a JSON object", 2),
    "ts missing": ([{"name": "a", "ph": "X", "dur": 1, "pid": 0, "tid": 1}], "ts is missing", 2),
    "ts negative": ([X("a", -1, 1)], "ts must be a finite number >= 0", 2),
    "ts string": ([X("a", "5", 1)], "ts must be a number", 2),
    "ts infinite": (None, "finite", 2),
    "dur missing": ([{"name": "a", "ph": "X", "ts": 1, "pid": 0, "tid": 1}], "dur is missing", 2),
    "dur negative": ([X("a", 1, -2)], "dur must be a finite number >= 0", 2),
    "pid string": ([X("a", 1, 1, pid="Spans")], "pid is the string 'Spans'", 2),
    "tid string": ([X("a", 1, 1, tid="t")], "tid is the string 't'", 2),
    "pid too big": ([X("a", 1, 1, pid=2 ** 32)], "outside [0, 2^32)", 2),
    "pid negative": ([X("a", 1, 1, pid=-1)], "outside [0, 2^32)", 2),
    "pid float": ([X("a", 1, 1, pid=1.5)], "pid must be an integer", 2),
    "pid missing": ([{"name": "a", "ph": "X", "ts": 1, "dur": 1, "tid": 1}], "pid is missing", 2),
    "tid beyond 2^53": ([X("a", 1, 1, tid=2 ** 60)], "beyond 2^53", 2),
    "big int in args": ([X("a", 1, 1, args={"x": [1, {"y": 2 ** 53 + 1}]})], "args.x[1].y exceeds 2^53", 2),
    "huge int in args": ([X("a", 1, 1, args={"x": 2 ** 70})], "args.x exceeds 2^53", 2),
    "name not string": ([X(5, 1, 1)], "name must be a string", 2),
    "args not object": ([X("a", 1, 1, args=[1])], "args must be an object", 2),
    "E without B": ([{"ph": "E", "ts": 1, "pid": 0, "tid": 1}], "E without a matching B", 2),
    "B never ended": ([{"name": "a", "ph": "B", "ts": 1, "pid": 0, "tid": 1}], "B never ended", 2),
    "E before B": ([{"name": "a", "ph": "B", "ts": 5, "pid": 0, "tid": 1},
                    {"name": "a", "ph": "E", "ts": 4, "pid": 0, "tid": 1}], "is before its B", 3),
    "E name differs": ([{"name": "a", "ph": "B", "ts": 5, "pid": 0, "tid": 1},
                        {"name": "b", "ph": "E", "ts": 6, "pid": 0, "tid": 1}], "differs from its B's name", 3),
    "E cat differs": ([{"name": "a", "cat": "x", "ph": "B", "ts": 5, "pid": 0, "tid": 1},
                       {"cat": "y", "ph": "E", "ts": 6, "pid": 0, "tid": 1}], "differs from its B's cat", 3),
    "X overlap": ([X("p", 0, 10), X("c", 5, 10)], "slices must nest", 3),
    "X overlap file order reversed": ([X("c", 5, 10), X("p", 0, 10)], "slices must nest", 2),
    "B/E overlaps X": ([{"name": "a", "ph": "B", "ts": 5, "pid": 0, "tid": 1}, X("x", 0, 10),
                        {"name": "a", "ph": "E", "ts": 15, "pid": 0, "tid": 1}], "slices must nest", 2),
    "async without cat": ([{"name": "t", "ph": "b", "id": 1, "ts": 1, "pid": 0},
                           {"name": "t", "ph": "e", "id": 1, "ts": 2, "pid": 0}], "needs a cat", 2),
    "async without name": ([{"cat": "c", "ph": "n", "id": 1, "ts": 1, "pid": 0}], "needs a name", 2),
    "async without id": ([{"cat": "c", "name": "t", "ph": "n", "ts": 1, "pid": 0}], "id is missing", 2),
    "async id and id2": ([{"cat": "c", "name": "t", "ph": "n", "id": 1, "id2": {"local": 1}, "ts": 1,
                           "pid": 0}], "both id and id2", 2),
    "async bad id2": ([{"cat": "c", "name": "t", "ph": "n", "id2": {"x": 1}, "ts": 1, "pid": 0}], "id2 must be", 2),
    "async e without b": ([{"cat": "c", "name": "t", "ph": "e", "id": 1, "ts": 1, "pid": 0}], "without an open b", 2),
    "async name mismatch": ([{"cat": "c", "name": "t", "ph": "b", "id": 1, "ts": 1, "pid": 0},
                             {"cat": "c", "name": "u", "ph": "e", "id": 1, "ts": 2, "pid": 0}], "differs from the open b", 3),
    "async never ended": ([{"cat": "c", "name": "t", "ph": "b", "id": 1, "ts": 1, "pid": 0}], "never ended", 2),
    "async e before b": ([{"cat": "c", "name": "t", "ph": "b", "id": 1, "ts": 5, "pid": 0},
                          {"cat": "c", "name": "t", "ph": "e", "id": 1, "ts": 2, "pid": 0}], "is before its b", 3),
    "flow id reused": ([X("a", 0, 100), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 1, "pid": 0, "tid": 1},
                        {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 2, "pid": 0, "tid": 1},
                        {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 3, "pid": 0, "tid": 1},
                        {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 4, "pid": 0, "tid": 1}],
                       "reused", 5),
    "flow started twice": ([X("a", 0, 100), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 1, "pid": 0, "tid": 1},
                            {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 3, "pid": 0, "tid": 1}],
                           "started again while still open", 4),
    "flow step without start": ([X("a", 0, 100), {"name": "f", "cat": "c", "ph": "t", "id": 1, "ts": 1, "pid": 0,
                                                  "tid": 1}], "without a flow start", 3),
    "flow end without start": ([X("a", 0, 100), {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 9, "ts": 1,
                                                 "pid": 0, "tid": 1}], "without a flow start", 3),
    "flow bad bp": ([X("a", 0, 100), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 1, "pid": 0, "tid": 1},
                     {"name": "f", "cat": "c", "ph": "f", "bp": "x", "id": 1, "ts": 2, "pid": 0, "tid": 1}],
                    "bp must be absent or 'e'", 4),
    "flow start outside slices": ([X("a", 0, 10), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 20,
                                                   "pid": 0, "tid": 1},
                                   {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 5, "pid": 0,
                                    "tid": 1}], "is not inside any slice", 3),
    "flow end with no next slice": ([X("a", 0, 10), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 5,
                                                     "pid": 0, "tid": 1},
                                     {"name": "f", "cat": "c", "ph": "f", "id": 1, "ts": 7, "pid": 0, "tid": 1}],
                                    "no slice starting at or after", 4),
    "flow end bp e outside": ([X("a", 0, 10), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 5, "pid": 0,
                                               "tid": 1},
                               {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 50, "pid": 0,
                                "tid": 1}], "is not inside any slice", 4),
    "flow on slice-less thread": ([X("a", 0, 10), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 5, "pid": 0,
                                                   "tid": 2},
                                   {"name": "f", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 5, "pid": 0,
                                    "tid": 1}], "is not inside any slice", 3),
    "flow name mismatch": ([X("a", 0, 10), {"name": "f", "cat": "c", "ph": "s", "id": 1, "ts": 5, "pid": 0, "tid": 1},
                            {"name": "g", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 6, "pid": 0, "tid": 1}],
                           "keys flows by id, cat and name", 4),
    "counter non-numeric": ([{"name": "c", "ph": "C", "ts": 1, "pid": 0, "args": {"v": "3"}}], "must be a finite number", 2),
    "counter bool": ([{"name": "c", "ph": "C", "ts": 1, "pid": 0, "args": {"v": True}}], "must be a finite number", 2),
    "counter no args": ([{"name": "c", "ph": "C", "ts": 1, "pid": 0}], "without args", 2),
    "instant bad scope": ([{"name": "i", "ph": "i", "s": "x", "ts": 1, "pid": 0, "tid": 1}], "scope s must be", 2),
    "thread instant without tid": ([{"name": "i", "ph": "i", "ts": 1, "pid": 0}], "tid is missing", 2),
    "process_name without name": ([{"name": "process_name", "ph": "M", "pid": 1, "args": {}}], "non-empty string args.name", 2),
    "thread_name not string": ([{"name": "thread_name", "ph": "M", "pid": 0, "tid": 1, "args": {"name": 3}}],
                               "non-empty string args.name", 2),
    "thread_name without tid": ([{"name": "thread_name", "ph": "M", "pid": 0, "args": {"name": "t"}}], "tid is missing", 2),
    "sort index not numeric": ([{"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": 1,
                                 "args": {"sort_index": "1"}}], "numeric args.sort_index", 2),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_violation(tmp_path, case):
    events, fragment, index = BAD[case]
    if events is None:  # ts infinite: 1e400 is valid JSON syntax but not a finite number
        path = tmp_path / "t.json"
        path.write_text(json.dumps({"traceEvents": M}).replace(
            "]}", ', {"name": "a", "ph": "X", "ts": 1e400, "dur": 1, "pid": 0, "tid": 1}]}'))
        res = cli("validate", path)
    else:
        res = _one(tmp_path, events)
    assert res.exit_code == 1, res.stdout
    lines = [line for line in res.stdout.splitlines() if fragment in line]
    assert lines, res.stdout
    assert lines[0].startswith("error: ")
    if index is not None:
        assert re.search(rf"event {index}[ :]", lines[0]), lines[0]
    assert re.search(r" warnings?$", res.stdout.splitlines()[-1]) and " 0 errors" not in res.stdout.splitlines()[-1]


def test_violation_line_names_index_phase_and_name(tmp_path):
    res = _one(tmp_path, [X("conv", 1, -1)])
    assert 'error: event 2 [X] "conv": dur must be a finite number >= 0, got -1' in res.stdout
    assert res.stdout.splitlines()[-1] == "3 events, 1 error, 0 warnings"


@pytest.mark.parametrize("ph", ["P", "O", "N", "D", "R", "S", "T", "p", "F", "(", ")", "V", "v", "c"])
def test_one_viewer_phases_warn(tmp_path, ph):
    res = _one(tmp_path, [{"name": "w", "ph": ph, "ts": 1, "pid": 0, "tid": 1, "id": 1, "cat": "c"}])
    assert res.exit_code == 0, res.stdout
    assert res.stdout.splitlines()[0].startswith(f"warning: event 2 [{ph}]")
    assert res.stdout.splitlines()[-1] == "3 events, 0 errors, 1 warning"


def test_unknown_metadata_warns(tmp_path):
    res = _one(tmp_path, [{"name": "process_mood", "ph": "M", "pid": 0, "args": {}}])
    assert res.exit_code == 0 and "not understood by either viewer" in res.stdout


def test_display_time_unit(tmp_path):
    assert _one(tmp_path, [], displayTimeUnit="ns").exit_code == 0
    res = _one(tmp_path, [], displayTimeUnit="us")
    assert res.exit_code == 1
    assert "error: file: displayTimeUnit must be 'ms' or 'ns', got the string 'us'" in res.stdout


def test_equal_boundaries_and_float_noise_nest(tmp_path):
    # 12.345 + 1.2 == 13.545000000000002 in floats; in ns both end at 13545
    res = _one(tmp_path, [X("p", 12.0, 1.545), X("c", 12.345, 1.2), X("d", 13.545, 0), X("e", 12.0, 0)])
    assert res.exit_code == 0, res.stdout


def test_truncated_array_is_a_violation(tmp_path):
    text = json.dumps(good_trace())
    path = tmp_path / "t.json"
    path.write_text(text[: text.rindex("},") + 1])
    res = cli("validate", path)
    assert res.exit_code == 1
    assert "truncated" in res.stdout and "catapult does not" in res.stdout


def test_truncated_object_is_unreadable(tmp_path):
    text = json.dumps({"traceEvents": good_trace()})
    path = tmp_path / "t.json"
    path.write_text(text[:-30])
    res = cli("validate", path)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr.startswith("xprof: error: ") and "corrupt JSON" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("content,fragment", [
    (None, "no such file"),
    ("", "empty file"),
    ("not json at all", "not a JSON trace"),
    ('{"a": 1}', "no traceEvents"),
])
def test_unreadable_exit_2(tmp_path, content, fragment):
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content)
    res = cli("validate", path)
    assert res.exit_code == 2
    assert res.stderr.startswith("xprof: error: ") and fragment in res.stderr
    assert str(path) in res.stderr and "Traceback" not in res.stderr


def test_bad_format_option(tmp_path):
    path = write_trace(tmp_path / "g.json", good_trace())
    res = cli("validate", path, "--format", "xml")
    assert res.exit_code == 2
    assert res.stderr.strip() == ("xprof: error: Invalid value for '--format': 'xml' is not one of "
                                  "'text', 'json'.")


def test_json_format(tmp_path):
    path = write_trace(tmp_path / "t.json", M + [X("conv", 1, -1),
                                                 {"name": "w", "ph": "P", "ts": 1, "pid": 0, "tid": 1}])
    res = cli("validate", "--format", "json", path)
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["valid"] is False and doc["events"] == 4 and doc["errors"] == 1 and doc["warnings"] == 1
    assert doc["form"] == "object" and doc["truncated"] is False
    assert doc["violations"][0] == {"index": 2, "ph": "X", "name": "conv", "severity": "error",
                                    "message": "dur must be a finite number >= 0, got -1"}
    assert doc["violations"][1]["severity"] == "warning"


def test_mxnet_fixtures_are_invalid_for_the_right_reasons(traces_dir):
    for name in ("mxnet-1.9.1-cnn-step.json", "mxnet-1.9.1-custom-sigmoid.json"):
        events = json.loads((traces_dir / name).read_text())["traceEvents"]
        res = cli("validate", traces_dir / name, "--format", "json")
        assert res.exit_code == 1
        doc = json.loads(res.stdout)
        assert doc["events"] == len(events)
        messages = [v["message"] for v in doc["violations"]]
        big_pids = sum(1 for e in events if isinstance(e.get("pid"), int) and e["pid"] >= 2 ** 32)
        assert sum("pid" in m and "outside [0, 2^32)" in m for m in messages) == big_pids
        assert any("id exceeds 2^53" in m for m in messages)
        assert not any("slices must nest" in m for m in messages)


def test_pytorch_fixture_string_pids(traces_dir):
    res = cli("validate", traces_dir / "pytorch-2.13-cnn-step.json")
    assert res.exit_code == 1
    errors = [line for line in res.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 5
    assert all("is the string" in line for line in errors)
    assert res.stdout.splitlines()[-1] == "139 events, 5 errors, 0 warnings"


def test_validate_subprocess_exit_codes(tmp_path):
    good = write_trace(tmp_path / "good.json", good_trace())
    bad = write_trace(tmp_path / "bad.json", M + [X("a", 1, -1)])
    assert cli_subprocess("validate", good).returncode == 0
    proc = cli_subprocess("validate", bad)
    assert proc.returncode == 1 and "dur must be" in proc.stdout and proc.stderr == ""
    proc = cli_subprocess("validate", tmp_path / "missing.json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == f"xprof: error: {tmp_path / 'missing.json'}: no such file"


def test_nesting_violation_names_the_event_via_second_pass(tmp_path):
    res = _one(tmp_path, [X("parent", 0, 10), X("child", 5, 10)])
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0].startswith('error: event 3 [X] "child": slice overlaps the slice '
                                                 'of event 2 on thread pid 0 tid 1')


def test_garbage_is_reported_not_crashed(tmp_path):
    events = [7, None, [1],
              {"ph": "X", "name": ["a"], "cat": {"x": 1}, "ts": 0, "dur": 1, "pid": [0], "tid": {}},
              {"ph": "B", "name": "b", "ts": 1, "pid": {}, "tid": [1]},
              {"ph": "E", "ts": 2, "pid": {}, "tid": [1]},
              {"ph": "b", "name": "t", "cat": ["c"], "id": 1, "ts": 3, "pid": 0},
              {"ph": "s", "name": "t", "cat": "c", "id": {"a": 1}, "ts": 3, "pid": 0, "tid": [2]},
              {"ph": ["X"], "ts": 1},
              {"ph": "M", "name": ["x"], "pid": 1}]
    path = write_trace(tmp_path / "g.json", events, displayTimeUnit=["ms"])
    for args in (["validate", path], ["trace", path, "-o", tmp_path / "o.json"], ["stats", path]):
        res = cli(*args)
        assert res.exit_code in (0, 1), (args, res.stderr)
        assert "Traceback" not in res.stderr
    res = cli("validate", path)
    assert "error: event 0: event is not a JSON object but int" in res.stdout
    assert "ph ['X'] is not a known phase" in res.stdout


def test_mxnet_fixture_summary_limit_and_repair_hint(traces_dir, tmp_path):
    src = tmp_path / "mx.json"
    src.write_bytes((traces_dir / "mxnet-1.9.1-cnn-step.json").read_bytes())
    res = cli("validate", src)
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    detail = [line for line in lines if line.startswith("error:")]
    assert len(detail) == 20  # default --max-errors
    assert "... 1234 more violations not shown (--max-errors 0 shows all)" in lines
    by_rule = lines[lines.index("by rule:") + 1:-1]
    assert [line.split()[:3] for line in by_rule] == [
        ["766", "error", "pid:"], ["358", "error", "id-beyond-2^53:"], ["130", "error", "tid:"]]
    assert 'first event 134 [M] "process_name": pid 849786139768988538 is outside' in by_rule[0]
    assert lines[-1] == "900 events, 1254 errors, 0 warnings"
    clean = tmp_path / "mx.clean.json"
    assert res.stderr.strip() == (f"xprof: hint: xprof trace repairs every one of these: "
                                  f"xprof trace {src} -o {clean}")
    assert cli("trace", src, "-o", clean).exit_code == 0  # the hint's command, as printed
    assert cli("validate", clean).exit_code == 0
    every = cli("validate", src, "--max-errors", "0").stdout.splitlines()
    assert len([line for line in every if line.startswith("error:")]) == 1254
    assert not any("not shown" in line for line in every)
    few = cli("validate", src, "--max-errors", "3").stdout.splitlines()
    assert len([line for line in few if line.startswith("error:")]) == 3


def test_json_adds_only_the_rule_summary(traces_dir):
    doc = json.loads(cli("validate", traces_dir / "pytorch-2.13-cnn-step.json", "--format", "json").stdout)
    assert list(doc) == ["file", "valid", "form", "truncated", "events", "errors", "warnings",
                         "violations", "rules"]
    assert len(doc["violations"]) == 5 and set(doc["violations"][0]) == {
        "index", "ph", "name", "severity", "message"}
    (tid,) = [r for r in doc["rules"] if r["rule"] == "tid"]
    (pid,) = [r for r in doc["rules"] if r["rule"] == "pid"]
    assert (pid["count"], tid["count"]) == (4, 1)
    assert pid["first"] == doc["violations"][0] and pid["severity"] == "error"


def test_no_repair_hint_when_a_violation_is_not_repairable(tmp_path):
    path = write_trace(tmp_path / "t.json", M + [X("a", 1, 2, pid="p"), X("b", 1, -1)])
    res = cli("validate", path)
    assert res.exit_code == 1 and "pid:" in res.stdout and "dur:" in res.stdout
    assert "hint" not in res.stderr and "1 error," not in res.stdout
    assert cli("validate", write_trace(tmp_path / "g.json", M + [X("a", 1, 2)])).stderr == ""
