"""``xprof report`` in a real browser: the page of a known script's trace opens from
``file://`` with no console error and no network request beyond the file itself, its
operator table shows the script's top operator by self time (and sorts and filters),
its custom-op chart has the operator's bar; a screenshot is kept in the test artifacts
(looked at, not compared)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, run_script

pytestmark = pytest.mark.browser

# the report's bars: Queued split into Inputs and Pool, Inputs into Backlog and Producer
CALL_PARTS = ("Backlog", "Producer", "Pool", "Python", "Blocked", "Tail")


def _report_and_stats(trace):
    """``xprof report`` of ``trace`` (report.html next to it) and its ``xprof stats
    --format json``."""
    page = trace.parent / "report.html"
    subprocess.run([sys.executable, "-m", "xprof.mxcli", "report", str(trace), "-o", str(page)],
                   check=True, capture_output=True, timeout=300)
    stats = json.loads(subprocess.run(
        [sys.executable, "-m", "xprof.mxcli", "stats", str(trace), "--format", "json"],
        check=True, capture_output=True, text=True, timeout=300).stdout)
    return page, stats


@pytest.fixture(scope="module")
def known_report(tmp_path_factory):
    """custom_add_one.py's trace, its report, and its ``xprof stats --format json``."""
    folder = tmp_path_factory.mktemp("report")
    run_script(REPO / "sample_scripts" / "custom_add_one.py", folder)
    return _report_and_stats(folder / "custom_add_one.json")


def _top_operator(stats):
    """The operator row with the largest self time (total when there is no self time),
    from the stats document itself: every domain but the API calls (the pushes and
    sync waits, which the report lists apart)."""
    rows = [(row.get("Self", row["Total"]), name) for domain, table in stats["Time"].items()
            if domain != "API" for name, row in table.items()]
    return max(rows)[1]


def test_report_opens_offline_and_shows_the_top_operator(page, known_report, artifacts):
    path, stats = known_report
    url = path.as_uri()
    page.navigate(url)
    assert page.errors() == []
    assert page.requests() == [url]          # the page itself, nothing else
    first = page.evaluate(
        "document.querySelector('#operators-table tbody tr').cells[1].textContent")
    assert first == _top_operator(stats)
    # the table sorts (by Calls, ascending) and filters (search box)
    calls = page.evaluate("""(() => {
        const t = document.getElementById('operators-table');
        t.tHead.rows[0].cells[2].click();
        return Array.from(t.tBodies[0].rows, r => +r.cells[2].dataset.v); })()""")
    assert calls == sorted(calls) and len(calls) > 1
    visible = page.evaluate("""(() => {
        const box = document.querySelector('input[data-filter=operators-table]');
        box.value = 'pure_python'; box.dispatchEvent(new Event('input'));
        return Array.from(document.querySelectorAll('#operators-table tbody tr'))
            .filter(r => !r.hidden).map(r => r.cells[1].textContent); })()""")
    assert visible and all("pure_python" in name for name in visible)
    page.navigate(url)   # unfiltered again, for the screenshot
    page.screenshot(artifacts / "report-custom_add_one.png")
    assert page.errors() == []


def test_report_has_the_custom_op_bar(page, known_report):
    path, stats = known_report
    row = stats["Custom Operator Calls"]["MyAddOne"]
    page.navigate(path.as_uri())
    parts = page.evaluate("""Array.from(document.querySelectorAll(
        '#custom-op-bars g.bar[data-label=MyAddOne] rect'), r => r.dataset.part)""")
    assert parts == [p for p in CALL_PARTS if row[p] > 0]   # every part it has, in order
    assert "Python" in parts


@pytest.fixture(scope="module")
def breakdown_report(tmp_path_factory):
    """custom_op_breakdown.py's report, its stats document, and what the script measured
    itself with ``time.perf_counter`` inside each ``forward``: ``{op: (python ms, blocked
    ms)}`` per call (the last two columns it prints)."""
    folder = tmp_path_factory.mktemp("breakdown")
    proc = run_script(REPO / "sample_scripts" / "custom_op_breakdown.py", folder)
    measured = {}
    for line in proc.stdout.splitlines():
        cols = line.split()
        if cols and cols[0] in ("Busy", "Waiter", "Chain", "Fed") and " / " in line:
            measured[cols[0]] = (float(cols[-3]), float(cols[-1]))
    assert set(measured) == {"Busy", "Waiter", "Chain", "Fed"}, proc.stdout
    page, stats = _report_and_stats(folder / "custom_op_breakdown.json")
    return page, stats["Custom Operator Calls"], measured


def test_custom_op_bars_draw_the_measured_split(page, breakdown_report, artifacts):
    """Each op type's bar, as the browser lays it out, is its Backlog / Producer / Pool /
    Python / Blocked / Tail split, in that order and end to end; converted back to ms with the chart's scale
    (the longest bar spans the bar width), its Python and Blocked segments are the times
    the script measured with perf_counter inside forward (Busy spins in Python, Waiter
    blocks on wait_to_read, Chain and Fed neither)."""
    path, calls, measured = breakdown_report
    page.navigate(path.as_uri())
    assert page.errors() == []
    bars = page.evaluate("""(() => {
        const out = {};
        for (const g of document.querySelectorAll('#custom-op-bars g.bar')) {
            out[g.dataset.label] = Array.from(g.querySelectorAll('rect'), r => {
                const b = r.getBBox(); return [r.dataset.part, b.x, b.width]; });
        }
        return out; })()""")
    assert set(bars) == {"Busy", "Waiter", "Chain", "Fed"}
    # a bar's extent: its first segment's start to its last one's end (a segment of less
    # than 0.5 px is drawn 0.5 px wide, the next one starting where its true end is)
    widest = max(segs[-1][1] + segs[-1][2] - segs[0][1] for segs in bars.values())
    assert abs(widest - 560) < 1                   # svg.BAR_W: the longest bar spans it
    ms_per_px = max(sum(row[p] for p in CALL_PARTS) for row in calls.values()) / 560
    for op, segs in bars.items():
        row = calls[op]
        assert [p for p, _, _ in segs] == [p for p in CALL_PARTS if row[p] > 0], op
        for (_, x, w), (_, next_x, _) in zip(segs, segs[1:]):
            assert abs(x + w - next_x) < 0.6, op    # stacked end to end
        drawn = {p: w * ms_per_px for p, _, w in segs}
        for p in CALL_PARTS:                         # the bar is the stats document's split
            assert abs(drawn.get(p, 0) - row[p]) <= 0.6 * ms_per_px + 1e-9, (op, p)
        python, blocked = measured[op]               # ... and the script's own clock
        for p, want in (("Python", python), ("Blocked", blocked)):
            assert abs(drawn.get(p, 0) - want) <= 0.1 * want + 2 * ms_per_px, (op, p, want)
    assert measured["Waiter"][1] > 0 and "Blocked" in [p for p, _, _ in bars["Waiter"]]
    page.screenshot(artifacts / "report-custom_op_breakdown.png")
