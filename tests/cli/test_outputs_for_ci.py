"""Outputs for where users work: Markdown for CI summaries, GitHub annotations at the
source line that regressed, and the sampled stacks in flamegraph.pl's collapsed format,
speedscope's file format and a differential collapsed file.

The traces come from ``tests/jobs/custom_lines.py`` run twice: its custom op's forward
spends 2 ms in a Python loop and 6 in numpy, then 6 and 2 (``CUSTOM_LINES_MS``), so the
loop's line is a known regression of B against A.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from cli_helpers import cli
from test_real_jobs_deps import run_job

JOB = Path(__file__).resolve().parents[2] / "tests" / "jobs" / "custom_lines.py"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    out = []
    for ms in ("2,6", "6,2"):
        tmp = tmp_path_factory.mktemp("lines")
        run_job([str(JOB), "--steps", "16"], tmp, env={"CUSTOM_LINES_MS": ms})
        out.append(tmp / "profile.json")
    return out


def test_markdown_puts_the_verdict_first(pair):
    a, b = pair
    md = cli("stats", a, "--format", "markdown").stdout
    assert md.startswith("## xprof stats:") and "**Top operator by self time:" in md
    assert "| Name | Count |" in md and "### Custom operator calls" in md
    ex = cli("explain", a, "--format", "markdown").stdout
    lines = ex.splitlines()
    assert lines[0].startswith("## xprof explain:") and lines[2].startswith("**Wall ")
    assert "### Composition of the critical path" in ex and "### What would help" in ex
    d = cli("diff", a, b, "--format", "markdown").stdout.splitlines()
    assert d[0].startswith("## xprof diff:")
    assert d[2].startswith("**") and ("significant change" in d[2])
    assert any(ln.startswith("| Op | Layer |") for ln in d)
    assert "### Custom operators' Python lines that moved" in d


def test_annotations_and_the_step_summary(pair, tmp_path):
    a, b = pair
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    res = cli("diff", a, b, "--annotate", "github", "--summary-to", summary)
    assert res.exit_code == 0, res.stderr
    notes = [ln for ln in res.stdout.splitlines() if ln.startswith("::")]
    loop = [ln for ln in notes if "python_loop" in ln]
    assert loop, notes
    assert loop[0].startswith("::warning file=") and ",line=34," in loop[0]
    assert "custom_lines.py" in loop[0]
    text = summary.read_text()
    assert text.startswith("earlier step\n## xprof diff:")   # appended, not replaced
    # failing the gate on the op makes its regressions errors
    res = cli("diff", a, b, "--annotate", "github", "--fail-on", "op:Split::pure_python:0%")
    assert all(ln.startswith(("::error", "::warning")) for ln in res.stdout.splitlines()
               if ln.startswith("::"))


def test_collapsed_stacks_add_up_to_the_sampled_time(pair):
    a, _ = pair
    out = cli("stats", a, "--lines", "--format", "collapsed")
    assert out.exit_code == 0, out.stderr
    rows = [ln.rsplit(" ", 1) for ln in out.stdout.splitlines()]
    assert rows and all(int(w) > 0 for _, w in rows)
    for stack, _ in rows:
        frames = stack.split(";")
        assert frames[0] in ("Split", "_backward_Split") and frames[1] in ("forward",
                                                                           "backward")
    loop = sum(int(w) for s, w in rows if s.startswith("Split;forward") and "python_loop" in s)
    total = sum(int(w) for s, w in rows if s.startswith("Split;forward"))
    lines = json.loads(cli("stats", a, "--lines", "--format", "json").stdout)
    share = next(r["%"] for r in lines["Python Lines"]["Split"] if r["function"] == "python_loop")
    # (the stacks are the frame slices' segments between samples; the line table also
    # spreads each call's time after its last sample over its lines: a few points apart)
    assert abs(100 * loop / total - share) <= 6, (loop, total, share)
    bad = cli("stats", a, "--format", "collapsed")
    assert bad.exit_code == 2 and "--lines" in bad.stderr


def test_the_differential_collapsed_file(pair, tmp_path):
    a, b = pair
    out = tmp_path / "d.folded"
    assert cli("diff", a, b, "--lines-diff-out", out).exit_code == 0
    rows = [ln.rsplit(" ", 2) for ln in out.read_text().splitlines()]
    loop = [(int(x), int(y)) for s, x, y in rows if "python_loop" in s and "forward" in s]
    assert loop and sum(y for _, y in loop) > 2 * sum(x for x, _ in loop)


@pytest.fixture(scope="session")
def speedscope_package(tmp_path_factory):
    """The npm package ``speedscope`` (its schema and its viewer), fetched at test time."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (apt-get install npm): the speedscope package "
                    "is fetched with it")
    where = tmp_path_factory.mktemp("speedscope")
    res = subprocess.run([npm, "pack", "speedscope@1", "--silent"], cwd=where,
                         capture_output=True, text=True, timeout=300)
    found = sorted(where.glob("speedscope-*.tgz"))
    if res.returncode != 0 or not found:
        pytest.skip(f"the npm registry did not give speedscope: {res.stderr.strip()[-200:]}")
    with tarfile.open(found[0]) as tar:
        tar.extractall(where, filter="data")
    return where / "package" / "dist" / "release"


def test_speedscope_file_passes_the_packages_schema(pair, speedscope_package, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    a, _ = pair
    out = cli("stats", a, "--lines", "--format", "speedscope")
    assert out.exit_code == 0, out.stderr
    doc = json.loads(out.stdout)
    schema = json.loads((speedscope_package / "file-format-schema.json").read_text())
    jsonschema.validate(doc, schema)
    names = [p["name"] for p in doc["profiles"]]
    assert names == ["Split", "_backward_Split"]
    total = doc["profiles"][0]["endValue"]
    python_ms = json.loads(cli("stats", a, "--lines", "--format", "json").stdout)[
        "Python Lines Sampling"]["Split"]["sampled_ms"]
    assert abs(total / 1000 - python_ms) <= 0.05 * python_ms, (total, python_ms)
