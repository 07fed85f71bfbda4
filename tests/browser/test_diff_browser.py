"""``xprof diff --report`` in a real browser: the page of two runs of a job (its heavy
layer 4x wider in the second) opens from ``file://`` with no console error and no
request beyond the file, its first row is the document's row of largest impact, and
the table sorts and filters; a screenshot is kept in the test artifacts."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, run_script

pytestmark = pytest.mark.browser

JOB = REPO / "tests" / "jobs" / "gluon_mlp.py"


@pytest.fixture(scope="module")
def diff_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff")
    run_script(JOB, folder, "-q", "-o", str(folder / "a.json"))
    # b: the wider layer (run_script takes the script last: run it here with its args)
    subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", str(folder / "b.json"),
                    str(JOB), "--heavy", "4096"], cwd=folder, check=True, capture_output=True,
                   timeout=300)
    page = folder / "diff.html"
    doc = json.loads(subprocess.run(
        [sys.executable, "-m", "xprof.mxcli", "diff", str(folder / "a.json"),
         str(folder / "b.json"), "--format", "json", "--report", str(page)],
        check=True, capture_output=True, text=True, timeout=300).stdout)
    return page, doc


def test_diff_page_opens_offline_and_ranks_by_impact(page, diff_page, artifacts):
    path, doc = diff_page
    url = path.as_uri()
    page.navigate(url)
    assert page.errors() == []
    assert page.requests() == [url]
    first = page.evaluate("document.querySelector('#diff-rows tbody tr').cells[0].textContent")
    row = doc["rows"][0]
    assert first == row["name"] + (f" ({row['layer']})" if row["layer"] else "")
    ratios = page.evaluate("""(() => {
        const t = document.getElementById('diff-rows');
        t.tHead.rows[0].cells[8].click();
        return Array.from(t.tBodies[0].rows, r => +r.cells[8].dataset.v); })()""")
    assert ratios == sorted(ratios) and len(ratios) > 1
    visible = page.evaluate("""(() => {
        const box = document.querySelector('input[data-filter=diff-rows]');
        box.value = 'mlp_heavy'; box.dispatchEvent(new Event('input'));
        return Array.from(document.querySelectorAll('#diff-rows tbody tr'))
            .filter(r => !r.hidden).map(r => r.cells[0].textContent); })()""")
    assert visible and all("mlp_heavy" in name for name in visible)
    page.navigate(url)
    page.screenshot(artifacts / "diff-gluon_mlp.png")
    assert page.errors() == []
