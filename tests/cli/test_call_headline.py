"""The headline of a custom-op call names the op its inputs waited for, end to end.

A real run (``xprof run``): a heavy ``FullyConnected`` writes the input of a light custom
op, pushed right after it, so the call's latency is mostly waiting for its inputs, and
the trace's dependency records say who wrote them. The run summary, ``xprof report``'s
custom-op section and ``cli/analysis/callinputs.py`` must all name ``FullyConnected``.
"""
from __future__ import annotations

import json
import textwrap

import pytest

from test_run_cmd import xprof

SCRIPT = textwrap.dedent('''
    import xprof.runtime as mx

    class Light(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("Light")
    class LightProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Light()

    x = mx.nd.random.uniform(shape=(256, 1024))
    w = mx.nd.random.uniform(shape=(1024, 1024))
    b = mx.nd.zeros((1024,))
    mx.nd.waitall()
    for _ in range(4):
        h = mx.nd.FullyConnected(x, w, b, num_hidden=1024)
        mx.nd.Custom(h, op_type="Light")
        mx.nd.waitall()
''')


@pytest.fixture(scope="module")
def dense_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("headline")
    (tmp / "dense.py").write_text(SCRIPT)
    res = xprof("run", "-o", "dense.json", "dense.py", cwd=tmp,
                env={"XPROF_ENGINE_TYPE": "ThreadedEngine"})
    assert res.returncode == 0, res.stderr
    return tmp, res.stderr


def test_the_readers_name_the_writer_of_the_inputs(dense_run):
    tmp, _ = dense_run
    from xprof.mxcli.analysis.callinputs import input_writers_of_file

    assert input_writers_of_file(str(tmp / "dense.json")) == {"Light": "FullyConnected"}


def test_the_run_summary_says_it_per_call(dense_run):
    _, err = dense_run
    block = err.split("xprof: custom-operator calls, per call:\n")[1].splitlines()
    assert block[0].split()[:3] == ["Light", "4", "calls"] and "ms/call = inputs" in block[0]
    assert "+ pool" in block[0] and "setup" in block[0]
    assert "of its latency waits for its inputs to be written (by FullyConnected)" in block[1]


def test_the_report_says_it(dense_run):
    tmp, _ = dense_run
    res = xprof("report", "dense.json", "-o", "dense.html", cwd=tmp)
    assert res.returncode == 0, res.stderr
    page = (tmp / "dense.html").read_text()
    sec = page.split('<section id="custom-ops">')[1].split("</section>")[0]
    assert "waits for its inputs to be written (by FullyConnected)" in sec
    assert 'data-part="Producer"' in sec and "<th>Latency/call</th>" in sec
    stats = json.loads(xprof("stats", "dense.json", "--format", "json", cwd=tmp).stdout)
    row = stats["Custom Operator Calls"]["Light"]
    assert row["Inputs"] + row["Pool"] == pytest.approx(row["Queued"], abs=2e-6)
    # pushed right after the product it reads, with nothing queued before it: its wait
    # for its inputs is the product running (Producer), not backlog
    assert row["Backlog"] + row["Producer"] == pytest.approx(row["Inputs"], abs=2e-6)
    assert row["Producer"] > 0.8 * row["Inputs"], row


def test_the_run_summary_reads_its_trace_once(dense_run, monkeypatch, capsys):
    """The event count, the statistics and the op the inputs waited for come from one
    decoding pass over the file (issue #25: it was decoded two or three times)."""
    from xprof.mxcli.render.summary import print_summary
    from xprof.traces import tracefile

    tmp, _ = dense_run
    passes = []
    batches = tracefile.TraceReader.batches

    def counted(self, *args, **kwargs):
        passes.append(self.path)
        return batches(self, *args, **kwargs)

    monkeypatch.setattr(tracefile.TraceReader, "batches", counted)
    print_summary(str(tmp / "dense.json"), False)
    err = capsys.readouterr().err
    assert passes == [str(tmp / "dense.json")]
    assert "FullyConnected" in err.split("custom-operator calls")[1]
