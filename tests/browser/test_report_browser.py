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


@pytest.fixture(scope="module")
def known_report(tmp_path_factory):
    """custom_add_one.py's trace, its report, and its ``xprof stats --format json``."""
    folder = tmp_path_factory.mktemp("report")
    run_script(REPO / "sample_scripts" / "custom_add_one.py", folder)
    trace, page = folder / "custom_add_one.json", folder / "report.html"
    subprocess.run([sys.executable, "-m", "xprof.cli", "report", str(trace), "-o", str(page)],
                   check=True, capture_output=True, timeout=300)
    stats = json.loads(subprocess.run(
        [sys.executable, "-m", "xprof.cli", "stats", str(trace), "--format", "json"],
        check=True, capture_output=True, text=True, timeout=300).stdout)
    return page, stats


def _top_operator(stats):
    """The row with the largest self time (total when there is no self time), from the
    stats document itself."""
    rows = [(row.get("Self", row["Total"]), name) for table in stats["Time"].values()
            for name, row in table.items()]
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
    if "Custom Operator Calls" not in stats:
        pytest.skip("this build's xprof stats has no 'Custom Operator Calls' section yet")
    page.navigate(path.as_uri())
    parts = page.evaluate("""Array.from(document.querySelectorAll(
        '#custom-op-bars g.bar[data-label=MyAddOne] rect'), r => r.dataset.part)""")
    assert parts and set(parts) <= {"Queued", "Python", "Blocked", "Tail"}
    assert "Python" in parts
