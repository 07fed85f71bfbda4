"""Packed calls: a profiled custom-operator call is recorded as one run of plain values in
its thread's ``packed`` list (``records.call_here``) and unpacked into the ordinary
records when a snapshot is taken. What a reader sees must be what the call did: one
``pure_python`` op record around its Python code, a sub-operator record for each op its
code ran, one span; each call once, whatever the snapshots racing it; and nothing left
for the garbage collector to walk."""
import gc
import threading
import time

import xprof.runtime as mx
from xprof.runtime import engine as engine_mod
from xprof.runtime.profiler import records, recorder as R, session

BASE = 10**12
N_CALLS = 300


def _register(name, seen=None):
    """A custom op whose forward runs ``x + 1`` and the assign (two sub-operators) and,
    given ``seen``, stamps its own start and end there (the ground truth)."""

    class _Op(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            t0 = time.perf_counter_ns()
            y = in_data[0] + 1
            self.assign(out_data[0], req[0], y)
            if seen is not None:
                seen.append((threading.get_ident(), t0, time.perf_counter_ns()))

    @mx.operator.register(name)
    class _Prop(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return _Op()


def _profiled(tmp_path):
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")


def _stop():
    mx.profiler.set_state("stop")
    session.end_session(R.snapshot())


def test_unpacking_gives_each_call_its_records_back():
    subs = ["_plus_scalar", BASE + 10, BASE + 20, 11, 12,
            "CopyCPU2CPU", BASE + 30, BASE + 35, 12, (13, 14)]
    values = list(records.call_here(subs, "Op", BASE, BASE + 1, BASE + 5, BASE + 40,
                                    BASE + 50, 3, 100, 7, 11, 13, 42, BASE, 0))
    values += records.call_here(None, "Op", BASE + 60, BASE + 60, BASE + 61, BASE + 70,
                                BASE + 71, 0, 0, 7, 13, 15, 42, 0, 9)
    alone = ("Other", "dot", BASE + 80, BASE + 90, BASE + 75, 2, BASE + 74, BASE + 78,
             (16, 17), 18, records.SUB_ALONE)   # as observer.op_with packs it
    assert len(alone) == records.SUB_ALONE_WIDTH
    values += alone
    out = records.unpack_calls(values, tid=4)
    assert [ev[records.KIND] for ev in out] == [
        records.SUB_OPERATOR, records.SUB_OPERATOR, records.OP_DEP, records.CALL_SPAN,
        records.OP_DEP, records.SUB_OPERATOR]   # (the second call has no span: t_span 0)
    assert dict(zip(records.KINDS[records.SUB_OPERATOR].fields, out[5][1:])) == {
        "name": "Other::dot", "cat": records.CUSTOM_OPERATOR, "t0": BASE + 80,
        "t1": BASE + 90, "t_push": BASE + 75, "call_tid": 2, "call_t0": BASE + 74,
        "call_name": "Other", "t_ready": BASE + 78, "reads": (16, 17), "writes": 18}
    sub = dict(zip(records.KINDS[records.SUB_OPERATOR].fields, out[1][1:]))
    assert sub == {"name": "Op::CopyCPU2CPU", "cat": records.CUSTOM_OPERATOR,
                   "t0": BASE + 30, "t1": BASE + 35, "t_push": BASE + 30, "call_tid": 4,
                   "call_t0": BASE + 5, "call_name": "Op", "t_ready": None, "reads": 12,
                   "writes": (13, 14)}
    pure = dict(zip(records.KINDS[records.OP_DEP].fields, out[2][1:]))
    assert pure == {"name": "Op::pure_python", "cat": records.CUSTOM_OPERATOR,
                    "t0": BASE + 5, "t1": BASE + 40, "t_push": BASE, "t_ready": BASE + 1,
                    "pusher": 7, "reads": 11, "writes": 13, "key": 42}
    span = dict(zip(records.KINDS[records.CALL_SPAN].fields, out[3][1:]))
    assert span["sub"] == 10 + 5 and span["t_done"] == BASE + 50   # its two subs' ns
    assert span["blocked"] == 3 and span["setup"] == 100
    assert dict(zip(records.KINDS[records.OP_DEP].fields, out[4][1:]))["t0"] == BASE + 61


def test_a_call_is_recorded_once_around_its_python_code(tmp_path, engine):
    engine = type(engine).__name__
    seen = []
    _register("PackedStamps" + engine, seen)
    x = mx.nd.ones((4, 4))
    _profiled(tmp_path)
    try:
        for _ in range(20):
            mx.nd.Custom(x, op_type="PackedStamps" + engine).wait_to_read()
        mx.nd.waitall()
        snap = R.snapshot()
        tids = {b.tid: b for b, _, _ in snap}
        events = [(buf.tid, ev) for buf, n, _ in snap for ev in buf.events[:n]
                  if ev[records.CAT] == records.CUSTOM_OPERATOR
                  and ev[records.NAME].startswith("PackedStamps" + engine)]
    finally:
        _stop()
    pures = sorted((ev[records.T], ev[records.T + 1], tid) for tid, ev in events
                   if ev[records.NAME] == f"PackedStamps{engine}::pure_python")
    assert len(pures) == len(seen) == 20
    for (t0, t1, tid), (ident, f0, f1) in zip(pures, sorted(seen, key=lambda s: s[1])):
        assert t0 <= f0 <= f1 <= t1   # the forward's own clock, inside its slice
        assert tids[tid].thread().ident == ident   # on the track of the thread it ran on
    subs = [ev for _, ev in events if ev[records.KIND] == records.SUB_OPERATOR]
    assert sorted(ev[records.NAME] for ev in subs[:2]) == [
        f"PackedStamps{engine}::CopyCPU2CPU", f"PackedStamps{engine}::_plus_scalar"]
    assert len(subs) == 40
    f = records.KINDS[records.SUB_OPERATOR].fields
    starts = {t0 for t0, _, _ in pures}
    for ev in subs:   # each sub-operator's flow starts at its call's start, inside it
        d = dict(zip(f, ev[1:]))
        assert d["call_t0"] in starts and d["call_t0"] <= d["t0"] <= d["t1"]
    spans = [ev for _, ev in events if ev[records.KIND] == records.CALL_SPAN]
    assert len(spans) == 20
    sf = records.KINDS[records.CALL_SPAN].fields
    for ev in spans:
        d = dict(zip(sf, ev[1:]))
        assert d["t"] <= d["t_start"] < d["t_return"] <= d["t_done"] and d["sub"] > 0


def test_snapshots_racing_the_calls_take_each_call_once(tmp_path):
    """A thread records calls (NaiveEngine: packed on its own list) while this one keeps
    taking snapshots: every call comes out exactly once, never half."""
    engine_mod.set_engine_type("NaiveEngine")
    try:
        seen = []
        _register("PackedRace", seen)
        x = mx.nd.ones((2, 2))
        _profiled(tmp_path)
        done = threading.Event()

        def calls():
            for _ in range(N_CALLS):
                mx.nd.Custom(x, op_type="PackedRace")
            done.set()

        t = threading.Thread(target=calls)
        t.start()
        while not done.is_set():   # (each snapshot unpacks what the thread packed so far)
            R.snapshot()
        t.join()
        names = [ev[records.NAME] for buf, n, _ in R.snapshot() for ev in buf.events[:n]
                 if ev[records.CAT] == records.CUSTOM_OPERATOR]
    finally:
        _stop()
        engine_mod.set_engine_type("ThreadedEngine")
    assert names.count("PackedRace::pure_python") == N_CALLS == len(seen)
    assert names.count("PackedRace::_plus_scalar") == N_CALLS
    assert names.count("PackedRace::CopyCPU2CPU") == N_CALLS
    assert names.count("PackedRace") == N_CALLS   # the spans


def test_a_profiled_naive_call_leaves_nothing_for_the_collector(tmp_path, monkeypatch):
    """Counted (``gc.get_objects``): a tuple record per event left four objects per
    ``Custom`` call for the garbage collector to track (a young collection every ~2,500
    calls); packed, none. (The line sampler, whose samples are tuples, is off.)"""
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "0")
    engine_mod.set_engine_type("NaiveEngine")
    try:
        _register("PackedGc")
        x = mx.nd.ones((4, 4))
        _profiled(tmp_path)
        try:
            for _ in range(50):
                mx.nd.Custom(x, op_type="PackedGc")
            counts = []
            for _ in range(2):   # (the smaller count: once-only allocations aside)
                gc.collect()
                gc.disable()
                try:
                    before = {id(o) for o in gc.get_objects()}
                    for _ in range(N_CALLS):
                        mx.nd.Custom(x, op_type="PackedGc")
                    left = [o for o in gc.get_objects()
                            if id(o) not in before and o is not before]
                    counts.append(len(left))
                finally:
                    gc.enable()
        finally:
            _stop()
    finally:
        engine_mod.set_engine_type("ThreadedEngine")
    assert min(counts) < N_CALLS / 10, [type(o).__name__ for o in left[:20]]
