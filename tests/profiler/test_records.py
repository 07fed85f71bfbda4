"""The record vocabulary: every kind has fields, a constructor, an encoder and a stats
rule, and a record built by its constructor reads back from the trace and the
statistics as what was recorded."""
import json
import os

import pytest

from xprof.runtime.profiler import aggregate, chrome, columns, records, recorder as R

BASE = 10**12


def _doc_and_stats(events):
    buf = R.ThreadBuffer(5, "records test", 1000)
    buf.events.extend(events)
    snap = [(buf, len(buf.events), 0)]
    doc = json.loads(chrome.encode(snap, BASE, "proc", {}))
    return doc, aggregate.aggregate_lists([(buf.events, columns.NO_ROWS)], BASE)


def test_every_kind_has_an_encoder_and_a_stats_rule():
    assert set(chrome.ENCODERS) == set(records.KINDS)
    rules = {records.SPAN, records.SAMPLE, records.OPEN, records.CLOSE, records.NONE,
             records.CALL}
    for code, kind in records.KINDS.items():
        assert kind.code == code and kind.stats in rules
        assert kind.fields[:2] == ("name", "cat")   # the common head after the code
        assert kind.fields[records.T - 1] in ("t", "t0")


@pytest.mark.parametrize("make, args", [
    (records.slice_with_args, ("op", "operator", BASE + 1, BASE + 4, {"name": "conv0"})),
    (records.sub_operator, ("A::dot", "Custom Operator", BASE + 2, BASE + 9, BASE + 1,
                            3, BASE, "A", BASE + 1, (11,), (12,))),
    (records.op_dep, ("dot", "operator", BASE + 2, BASE + 9, BASE, BASE + 1, 0, (11, 13),
                      (12,), None)),
    (records.op_dep, ("dot", "operator", BASE + 2, BASE + 9, BASE, BASE + 1, 0, (11, 13),
                      (12,), ((2, 3), (3, 4)))),
    (records.sync, ("WaitForVar", "operator", BASE, BASE + 9, (12,))),
    (records.counter, ("bytes", "Memory", BASE + 3, 64)),
    (records.instant, ("mark", "Domain", BASE + 4, "p")),
    (records.async_begin, ("task", "Domain", BASE + 5, 7)),
    (records.async_end, ("task", "Domain", BASE + 8, 7)),
])
def test_constructors_follow_the_declared_fields(make, args):
    rec = make(*args)
    assert type(rec) is tuple
    kind = records.KINDS[rec[records.KIND]]
    assert len(rec) == 1 + len(kind.fields)
    assert dict(zip(kind.fields, rec[1:])) == dict(zip(kind.fields, args))


def test_records_read_back_from_the_trace_and_the_statistics():
    events = [records.slice_with_args("op", "operator", BASE + 1000, BASE + 4000, {"k": "v"}),
              records.counter("c", "Dom", BASE + 2000, 5),
              records.instant("m", "Dom", BASE + 3000, "t"),
              records.async_begin("task", "Dom", BASE + 1000, 1),
              records.async_end("task", "Dom", BASE + 6000, 1)]
    doc, st = _doc_and_stats(events)
    by_ph = {e["ph"]: e for e in doc["traceEvents"] if e["ph"] != "M"}
    assert by_ph["X"]["args"] == {"k": "v"} and by_ph["X"]["dur"] == 3.0
    assert by_ph["C"]["args"] == {"c": 5} and by_ph["C"]["ts"] == 2.0
    assert by_ph["i"]["s"] == "t" and by_ph["i"]["ts"] == 3.0
    assert by_ph["b"]["id"] == by_ph["e"]["id"] == 1
    assert st.time["operator"]["op"][0] == 1
    assert st.time["Dom"]["task"][0] == 1
    assert "m" not in st.time.get("Dom", {})   # instants are not in the statistics


def test_a_kind_is_written_from_its_declaration_alone():
    """What a new event kind needs in the encoder: nothing, unless the trace shows it in
    a way of its own. A made-up 'flow step' kind and a made-up slice kind, declared as
    records.KINDS entries are, come out as their declaration says."""
    step = records.Kind(90, "test step", ("name", "cat", "t", "id", "note"), records.NONE,
                        "n", {"id": "id", "note": "args"})
    span = records.Kind(91, "test span", ("name", "cat", "t0", "t1"), records.SPAN, "X")
    out = []
    th = chrome._Thread(6, BASE, out.append, 0, 0)
    chrome._declared(step)(th, (90, "s", "Dom", BASE + 2000, 12, {"k": 1}))
    chrome._declared(span)(th, (91, "w", "Dom", BASE + 1000, BASE + 3000))
    assert out == [{"name": "s", "cat": "Dom", "ph": "n", "ts": 2.0, "pid": chrome.PID,
                    "tid": 6, "id": 12, "args": {"k": 1}}]
    assert th.extra == [0, BASE + 1000, BASE + 3000] and len(th.heads) == 1
    assert th.heads[0].startswith(b'{"name":"w","cat":"Dom","ph":"X"')


def test_the_observers_inline_records_follow_the_declared_fields(tmp_path):
    """The observer builds its hot records (op_dep, sub-operators, call spans, sync points)
    inline for speed: each read by the declared field names must be what it is."""
    import xprof.runtime as mx
    from xprof.runtime.profiler import session

    class _Twice(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("RecordsTwice")
    class _TwiceProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return _Twice()

    x = mx.nd.ones((3, 3))
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")
    try:
        y = mx.nd.Custom(x + 1, op_type="RecordsTwice")
        y.wait_to_read()
        mx.nd.waitall()
        events = [ev for buf, n, _ in R.snapshot() for ev in buf.events[:n]]
    finally:
        mx.profiler.set_state("stop")
        session.end_session(R.snapshot())
    seen = set()
    for ev in events:
        kind = records.KINDS[ev[records.KIND]]
        if ev[records.KIND] == records.SUB_OPERATOR and len(ev) <= records.SUB_T_READY:
            continue   # (the form without a dependency record)
        assert len(ev) == 1 + len(kind.fields), (kind, ev)
        f = dict(zip(kind.fields, ev[1:]))
        assert isinstance(f["name"], str) and isinstance(f["cat"], str)
        seen.add(ev[records.KIND])
        if ev[records.KIND] in (records.OP_DEP, records.SUB_OPERATOR):
            reads, writes = records.var_ids(f["reads"]), records.var_ids(f["writes"])
            assert type(reads) is tuple and type(writes) is tuple and writes
            assert f["t0"] <= f["t1"] and all(isinstance(v, int) for v in reads + writes)
        if ev[records.KIND] == records.CALL_SPAN:
            assert f["t"] <= f["t_start"] <= f["t_return"] <= f["t_done"]
        if ev[records.KIND] == records.SYNC:
            assert f["t0"] <= f["t1"] and (f["vars"] is None or isinstance(f["vars"], tuple))
    assert {records.OP_DEP, records.SUB_OPERATOR, records.CALL_SPAN, records.SYNC} <= seen


def test_no_record_is_built_outside_the_constructors():
    """No field order written twice: outside ``records.py`` no module builds a record
    as a tuple display whose first item is a kind code (``(records.OP_DEP, ...)``,
    ``(_SUB_OPERATOR, ...)``); every record goes through a constructor."""
    import ast
    import pathlib

    codes = {name for name, value in vars(records).items()
             if name.isupper() and type(value) is int and value in records.KINDS}
    root = pathlib.Path(records.__file__).resolve().parents[1]
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "records.py" and path.parent.name == "profiler":
            continue
        tree = ast.parse(path.read_text(), str(path))
        aliases = {id(n.value) for n in ast.walk(tree)   # OP_DEP, SUB = records.OP_DEP, ...
                   if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Tuple)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Tuple) or len(node.elts) < 3 or \
                    not isinstance(node.ctx, ast.Load) or id(node) in aliases:
                continue
            head = node.elts[0]
            name = head.attr if isinstance(head, ast.Attribute) else \
                head.id if isinstance(head, ast.Name) else None
            if name is not None and name.lstrip("_") in codes:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert codes and not found, found


def _op_dep_records(op_dep, obs, calls):
    """The records ``op_dep`` appends on this thread for ``calls`` (argument tuples)."""
    events = R.events()
    n = len(events)
    for args in calls:
        op_dep(*args)
    out = events[n:]
    del events[n:]
    return out


def test_the_native_op_dep_record_is_the_python_one():
    """``_oprecord.OpDep`` (C) appends the very tuple ``Observer.op_dep`` (Python) does,
    for every form of attributes (none, input shapes, a Gluon layer's dict seen before
    and not yet seen) and of variables (none to four reads, one or two writes)."""
    from xprof.runtime.profiler import observer as O
    if O.NATIVE_OP_DEP is None:
        if os.environ.get("XPROF_REQUIRE_NATIVE") == "1":
            pytest.fail("runtime/profiler/_oprecord.c was not built")
        pytest.skip("runtime/profiler/_oprecord.c not built")
    obs = O.observer

    class V:
        pass
    v = [V() for _ in range(6)]
    shapes = ((64, 128), (256, 128), (256,))
    def calls(fresh):
        out = []
        for k, attrs in enumerate([None, shapes, {"name": "dense0"},
                                   {"name": fresh, "Input Dims": shapes}]):
            for nr in range(5):
                for nw in (1, 2):
                    out.append((f"Op{k}", 10 + nr, 20 + nw, 5, None if nr % 2 else 7,
                                None if nr % 2 else 3, tuple(v[:nr]), list(v[4:4 + nw]),
                                attrs))
        out.append(("Op0", 1, 2, None, None, None, (v[0],), (v[1],)))   # (attrs omitted)
        return out

    def python(cs):
        return _op_dep_records(lambda *a: O.PYTHON_OP_DEP(obs, *a), obs, cs)

    def native(cs):
        return _op_dep_records(O.NATIVE_OP_DEP, obs, cs)

    # a dict key first given out by the Python side, then by the native side's fallback
    first = calls(f"fresh{os.getpid()}a")
    p1, n1 = python(first), native(first)
    second = calls(f"fresh{os.getpid()}b")
    n2, p2 = native(second), python(second)
    for py, nat, cs in ((p1, n1, first), (p2, n2, second)):
        assert nat == py and len(nat) == len(cs)
        assert [type(f) for r in nat for f in r] == [type(f) for r in py for f in r]
    with pytest.raises(TypeError, match="8 or 9 arguments"):
        O.NATIVE_OP_DEP("Op0", 1, 2)


def test_the_native_run_op_runs_times_and_records_as_the_python_one():
    """``OpDep.run_op`` (C) runs the op, returns the exception it raised (its traceback
    kept, an interrupt too) or None, and records what ``Observer.run_op`` (Python) does,
    for an op run at once and a queued op (its stamps and variables)."""
    from xprof.runtime.engine.base import Opr
    from xprof.runtime.profiler import observer as O
    if O.NATIVE_OP_DEP is None:
        if os.environ.get("XPROF_REQUIRE_NATIVE") == "1":
            pytest.fail("runtime/profiler/_oprecord.c was not built")
        pytest.skip("runtime/profiler/_oprecord.c not built")
    obs = O.observer

    class V:
        pass
    r, w = (V(), V()), [V()]
    ran = []

    def ok(*a):
        ran.append(a)

    def bad(x):
        raise ValueError(f"bad {x}")

    def interrupt():
        raise KeyboardInterrupt

    op = Opr(ok, (1,), r, w, "Queued", 0, 1, None, None)
    op.t_push, op.t_ready, op.pusher = 5, 6, 3
    cases = [(ok, (1, 2), "Now", None, None, r, w, None),
             (ok, [3], "Now", 4, None, r[:1], w, ((2, 2),)),
             (ok, (1,), "Queued", 5, op, (), (), None),
             (bad, (7,), "Bad", None, None, r, w, None),
             (interrupt, (), "Stop", None, None, (), w, None)]
    out = {}
    for which, run in (("python", lambda *a: O.PYTHON_RUN_OP(obs, *a)),
                       ("native", O.NATIVE_OP_DEP.run_op)):
        events = R.events()
        n = len(events)
        results = [run(*c) for c in cases]
        recs = events[n:]
        del events[n:]
        out[which] = results, recs
    (py_res, py_recs), (c_res, c_recs) = out["python"], out["native"]
    assert ran == [(1, 2), (3,), (1,)] * 2
    assert [type(e) for e in c_res] == [type(e) for e in py_res] == \
        [type(None)] * 3 + [ValueError, KeyboardInterrupt]
    assert str(c_res[3]) == "bad 7"
    tb, codes = c_res[3].__traceback__, []
    while tb is not None:
        codes.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    assert bad.__code__ in codes   # (where the op raised)
    # the same records, but for the clock's readings (t0, t1: fields 3 and 4)
    for py, c in zip(py_recs, c_recs):
        assert py[:3] == c[:3] and py[5:] == c[5:], (py, c)
        assert c[3] <= c[4] and isinstance(c[3], int)
    assert len(c_recs) == len(cases)
    assert [rec[6:8] for rec in c_recs][2] == (6, 3)   # the queued op's stamps
