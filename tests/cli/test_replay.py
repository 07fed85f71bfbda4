"""The replay of a run (cli/analysis/replay.py) and ``explain --what-if`` on synthetic
traces whose answers are known by construction (times in us), and the grammar."""
import json

import pytest
from deptrace import meta, op, slice_, sync

from cli_helpers import cli, write_trace
from xprof.mxcli.analysis import explain as ex, replay as rp, whatif as wi
from xprof.traces import whatif as grammar


def _model(events):
    a = ex.analyze(events)
    return a, rp.model_of(a.tl, a.graph)


def _predict(events, *texts):
    a, m = _model(events)
    return wi.predict(m, [grammar.parse(t) for t in texts])


def two_chains():
    """main pushes a long chain on worker 0 (a1 100 us, a2 100 us) and a short one on
    worker 1 (b 50 us), then waits for all: the wall is the long chain's."""
    return meta() + [
        op("a1", 1, 0, 0, 1, 101, writes=[1]),
        op("a2", 1, 2, 101, 102, 202, reads=[1], writes=[2]),
        op("b", 2, 3, 3, 4, 54, writes=[3]),
        sync(0, 5, 203, "all"),
    ]


def test_an_unchanged_replay_is_the_recorded_run():
    a, m = _model(two_chains())
    r = rp.replay(m)
    assert r.wall == a.wall
    assert r.start.tolist() == a.graph.start.tolist()
    assert r.end.tolist() == a.graph.end.tolist()


def test_an_op_on_the_path_gains_until_the_other_path_takes_over():
    a1 = _predict(two_chains(), "a1=0.5x")[0]
    assert a1["delta_ms"] == pytest.approx(-0.050)        # 50 us of a1's 100
    assert a1["slack_ms"] == 0
    free = _predict(two_chains(), "a2=0")[0]
    assert free["delta_ms"] == pytest.approx(-0.100)      # a1 alone: 101 + the wake-up
    both = _predict(two_chains(), "a1=0", "a2=0")[-1]
    assert both["spec"] == "a1=0 + a2=0"
    # the short chain takes over: b ends at 54, the wait wakes 1 us later
    assert both["wall_ms"] == pytest.approx(0.054)


def test_an_op_off_the_path_gains_nothing_and_has_its_slack():
    b = _predict(two_chains(), "b=0.5x")[0]
    assert b["delta_ms"] == 0
    # b could take ~148 us more (it ends at 54, the wall at 202) before the wall grows
    assert b["slack_ms"] == pytest.approx(0.148, abs=0.002)
    a, m = _model(two_chains())
    rows = {r["name"]: r for r in wi.what_would_help(m, a)}
    assert rows["a1"]["gain_2x_ms"] == pytest.approx(0.050)
    # free: a2 is then ready at its own push (2 us), not at a1's end
    assert rows["a1"]["gain_free_ms"] == pytest.approx(0.099)


def test_fewer_workers_serialize_what_ran_in_parallel():
    w1 = _predict(two_chains(), "workers=1")[0]
    # one worker: a1, then b (pushed later) or a2 as they come: 100 + 50 + 100
    assert w1["wall_ms"] == pytest.approx(0.252, abs=0.003)


def test_a_sync_point_holds_its_thread_and_python_time_scales():
    ev = meta() + [
        op("x", 1, 0, 0, 1, 11, writes=[1]),
        sync(0, 2, 12, [1]),
        slice_("MXImperativeInvoke", 0, 500, 501),
        op("y", 1, 1012, 1012, 1013, 1023, writes=[2]),   # pushed 1000 us after the wait
        sync(0, 1014, 1024, [2]),
    ]
    half = _predict(ev, "python=0.5x")[0]
    assert half["delta_ms"] == pytest.approx(-0.500, abs=0.002)
    slower_x = _predict(ev, "x=+1ms")[0]     # the wait is longer, so is everything after
    assert slower_x["delta_ms"] == pytest.approx(1.0)


def test_a_custom_call_scales_its_python_and_its_sub_operators():
    co = "Custom Operator"
    ev = meta() + [
        op("MyOp::pure_python", 3, 0, 0, 10, 210, writes=[2], cat=co),
        op("MyOp::dot", 1, 200, 200, 201, 301, writes=[10], pusher=3, cat=co),
        op("consumer", 2, 5, 302, 303, 313, reads=[2], writes=[3]),   # the call's output
        sync(0, 6, 314, "all"),
    ]
    p = _predict(ev, "custom:MyOp=0.5x", "custom:MyOp=0")
    # Python 200 us -> 100 (the dot is pushed 95 us earlier) and the dot 100 -> 50
    assert p[0]["delta_ms"] == pytest.approx(-0.145, abs=0.002)
    assert p[1]["delta_ms"] == pytest.approx(-0.290, abs=0.002)


def test_the_grammar_says_what_is_wrong_in_one_line():
    assert grammar.parse("FullyConnected=0.5x").factor == 0.5
    assert grammar.parse("Heavy::pure_python=+2ms").add_ns == 2_000_000
    assert grammar.parse("layer:dense0=2x").kind == "layer"
    assert grammar.parse("custom:Heavy=0").factor == 0
    assert grammar.parse("workers=4").count == 4
    for bad, words in (("FullyConnected", "TARGET=CHANGE"), ("x=fast", "not a factor"),
                       ("workers=0", "at least 1"), ("python=+2ms", "takes a factor"),
                       ("layer:=2x", "needs a name")):
        with pytest.raises(ValueError, match=words) as e:
            grammar.parse(bad)
        assert "\n" not in str(e.value)
    for bad in ("x=0.5x", "python=2x", "workers=2", "x=-1ms"):
        with pytest.raises(ValueError):
            grammar.parse_slow(bad)
    assert grammar.parse_slow("x=2x").factor == 2


def test_explain_what_if_document_and_errors(tmp_path):
    path = write_trace(tmp_path / "t.json", two_chains())
    out = cli("explain", path, "--what-if", "a1=0.5x", "--format", "json")
    assert out.exit_code == 0, out.stderr
    doc = json.loads(out.stdout)
    (w,) = doc["what_if"]
    assert set(w) == {"spec", "wall_ms", "delta_ms", "step_ms", "slack_ms", "top_ops"}
    assert w["top_ops"][0]["name"] in ("a1", "a2")
    plain = json.loads(cli("explain", path, "--format", "json").stdout)
    assert {r["name"] for r in plain["what_would_help"]} >= {"a1", "a2"}
    assert "what would help" in cli("explain", path).stdout
    text = cli("explain", path, "--what-if", "b=0.5x").stdout
    assert "what if" in text and "b=0.5x: wall" in text
    for spec, words in (("nope=0.5x", "matches no op"), ("a1=fast", "not a factor")):
        res = cli("explain", path, "--what-if", spec)
        assert res.exit_code == 2 and words in res.stderr
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_the_report_shows_what_would_help(tmp_path):
    path = write_trace(tmp_path / "t.json", two_chains())
    res = cli("report", path, "-o", tmp_path / "r.html")
    assert res.exit_code == 0, res.stderr
    page = (tmp_path / "r.html").read_text()
    table = page.split('id="what-would-help"')[1].split("</table>")[0]
    assert ">a1<" in table and ">a2<" in table


def _alternating_steps(n=12):
    """``n`` steps, each ended by a waitall: the main thread pushes ``a`` (100 us) on
    worker 0 and ``b`` (150 us) on worker 1 beside it; every other step, from the second,
    ``a`` ran 2x (a ``--slow-alternate`` run): those steps end with ``a``, 49 us later
    (``b`` starts 1 us after ``a``)."""
    events, slowed, t = meta(), [], 0.0
    for k in range(n):
        da = 200 if k % 2 else 100
        a0, b0 = t + 2, t + 3
        events += [op("a", 1, t + 1, t + 1, a0, a0 + da, writes=[2 * k + 1]),
                   op("b", 2, t + 1, t + 1, b0, b0 + 150, writes=[2 * k + 2])]
        end = max(a0 + da, b0 + 150) + 1
        events.append(sync(0, t + 4, end, "all"))
        if k % 2:
            slowed.append(round(a0 * 1000))
        t = end + 10
    return events, slowed


def test_alternating_steps_check_a_prediction_against_the_run_itself():
    """The steps slowed by ``--slow-alternate`` against the plain ones: ``a`` made 2x
    slower costs a step 49 us, not its 100 us (``b`` ran beside it), measured and
    predicted from the plain steps alone."""
    events, slowed = _alternating_steps()
    _, m = _model(events)
    check = wi.alternate_check(m, "a=2x", slowed)
    assert check["steps"] == [6, 5]          # (the first step has no start: not counted)
    assert check["measured_ms"] == pytest.approx(0.049, abs=1e-6)
    assert check["predicted_ms"] == pytest.approx(0.049, abs=1e-6)
    assert check["step_ms"] == pytest.approx(0.164, abs=1e-6)
    assert check["spread_ms"] == pytest.approx(0, abs=1e-6)
    # b=2x (300 us) bounds the plain steps instead: +150 us
    assert wi.alternate_check(m, "b=2x", slowed)["predicted_ms"] == pytest.approx(0.15, abs=1e-6)
    # no slowed step, or none plain: nothing to check
    assert wi.alternate_check(m, "a=2x", []) is None
