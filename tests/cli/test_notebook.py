"""``%load_ext xprof.mxcli.notebook`` and ``%%xprof``, in a real kernel: a notebook run
by nbclient (ipykernel), its outputs read back."""
from __future__ import annotations

import json
import textwrap

import pytest

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient")
pytest.importorskip("ipykernel", reason="the test extra installs ipykernel")

CELL = textwrap.dedent('''\
    %%xprof -o prof.json --what-if custom:AddOne=0.5x
    import time
    import xprof.runtime as mx

    class AddOne(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            end = time.perf_counter() + 0.004
            while time.perf_counter() < end:
                pass
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register("AddOne")
    class AddOneProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return AddOne()

    x = mx.nd.ones((64, 64))
    for _ in range(5):
        x = mx.nd.Custom(mx.nd.dot(x, x) * 0.01, op_type="AddOne")
    mx.nd.waitall()
''')


def _outputs(cell):
    html, text = [], []
    for out in cell.get("outputs", []):
        if out.get("output_type") in ("display_data", "execute_result"):
            html.append(out["data"].get("text/html", ""))
        if out.get("output_type") == "stream":
            text.append(out.get("text", ""))
        if out.get("output_type") == "error":
            text.append("\n".join(out.get("traceback", [])))
    return "".join(html), "".join(text)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nb")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext xprof.mxcli.notebook"),
                nbformat.v4.new_code_cell(CELL),
                nbformat.v4.new_code_cell("%%xprof --bogus\nprint('not run')"),
                nbformat.v4.new_code_cell("%xprof view nosuch.json")]
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp)}})
    client.execute()
    return tmp, nb


def test_the_cell_is_profiled_and_its_answers_shown_inline(executed):
    tmp, nb = executed
    html, text = _outputs(nb.cells[1])
    assert "Traceback" not in text, text
    doc = json.loads((tmp / "prof.json").read_text())
    names = {e.get("name") for e in doc["traceEvents"]}
    assert "AddOne::pure_python" in names and "dot" in names
    for part in ("Top operators by self time", "Custom operator calls", "AddOne",
                 "Critical path", "Top ops on the critical path", "What if",
                 "custom:AddOne=0.5x", "prof.report.html"):
        assert part in html, part
    assert (tmp / "prof.report.html").is_file()


def test_bad_options_are_one_line_and_run_nothing(executed):
    _, nb = executed
    html, text = _outputs(nb.cells[2])
    assert "xprof: error:" in text and "--bogus" in text and "not run" not in text
    assert "Traceback" not in text
    _, text = _outputs(nb.cells[3])
    assert "Traceback" not in text and "xprof: error:" in text and "nosuch.json" in text
