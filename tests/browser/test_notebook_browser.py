"""``%%xprof``'s inline output, rendered by a real browser: the HTML a notebook cell
shows (run by nbclient in a real kernel) opens with no console error, its tables are
drawn, and a screenshot is kept in the test artifacts (looked at, not compared)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient")

CELL = """%%xprof -o prof.json
import xprof.runtime as mx

class Twice(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 2)

@mx.operator.register("Twice")
class TwiceProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Twice()

x = mx.nd.ones((128, 128))
for _ in range(4):
    x = mx.nd.Custom(mx.nd.dot(x, x) * 0.001, op_type="Twice")
mx.nd.waitall()
"""


def test_the_cells_output_renders(page, tmp_path, artifacts):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext xprof.mxcli.notebook"),
                nbformat.v4.new_code_cell(CELL)]
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    html = "".join(o["data"]["text/html"] for o in nb.cells[1].outputs
                   if o.get("output_type") == "display_data")
    out = tmp_path / "cell.html"
    out.write_text("<!doctype html><meta charset=utf-8><title>%%xprof</title>"
                   "<style>table.xprof{border-collapse:collapse}table.xprof td,"
                   "table.xprof th{border:1px solid #ccc;padding:2px 6px}</style>" + html)
    page.navigate(out.as_uri())
    assert page.errors() == []
    tables = page.evaluate("document.querySelectorAll('table.xprof').length")
    assert tables >= 4
    text = page.evaluate("document.body.innerText")
    assert "Twice" in text and "Critical path" in text and "dot" in text
    page.screenshot(artifacts / "notebook-cell.png")
