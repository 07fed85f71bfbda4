"""Named op flags and the push helper: ``ALWAYS_RUN`` ops run even when an input failed
and are never profiled; async ops end when their ``on_complete`` is called;
whether an engine runs everything at once is a property of the engine."""
import threading

import pytest

import xprof.runtime.engine as engine_mod
from xprof.runtime.engine.base import ALWAYS_RUN, ASYNC, MODE_IMPERATIVE, MODE_SYMBOLIC
from xprof.runtime.ndarray import ndarray as nd_layer

HEAVY = 1 << 40


def test_synchronous_is_a_property_of_the_engine(engine):
    assert engine.synchronous is (engine.name == "NaiveEngine")


def test_the_ndarray_layer_pushes_on_the_current_engine(engine):
    assert nd_layer.engine_push == engine.push
    assert nd_layer.engine_push_async == engine.push_async


def test_flags_are_outside_every_profile_mask():
    for flag in (ALWAYS_RUN, ASYNC):
        assert not flag & (MODE_SYMBOLIC | MODE_IMPERATIVE)
    assert engine_mod.MODE_INTERNAL == ALWAYS_RUN


def test_always_run_runs_after_a_failed_input_and_plain_ops_are_skipped(engine):
    v = engine.new_variable()

    def fail():
        raise KeyError("input failed")

    ran = []
    nd_layer.engine_push(fail, (), [], [v], "fails", cost=HEAVY)
    nd_layer.engine_push(ran.append, ("plain",), [v], [], "plain", cost=HEAVY)
    nd_layer.engine_push(ran.append, ("bookkeeping",), [v], [], "bk", cost=HEAVY,
                         mode=ALWAYS_RUN)
    with pytest.raises(KeyError):
        engine.wait_all()
    assert ran == ["bookkeeping"]


def test_async_ends_when_on_complete_is_called(engine):
    v = engine.new_variable()
    log = []

    def start(on_complete):
        t = threading.Thread(target=lambda: (log.append("done"), on_complete()))
        t.start()
        if engine.synchronous:
            t.join()   # NaiveEngine: complete before push returns

    nd_layer.engine_push_async(start, (), [], [v], "async", mode=ALWAYS_RUN)
    nd_layer.engine_push(log.append, ("after",), [v], [], "after")
    engine.wait_all()
    assert log == ["done", "after"]


def test_bookkeeping_and_async_ops_are_never_profiled(engine, tmp_path):
    import xprof.runtime as mx

    mx.profiler.set_config(filename=str(tmp_path / "t.json"), profile_all=True)
    mx.profiler.set_state("run")
    try:
        v = engine.new_variable()
        nd_layer.engine_push(lambda: None, (), [], [v], "flagtest_plain", mode=MODE_IMPERATIVE)
        nd_layer.engine_push(lambda: None, (), [v], [], "flagtest_always", mode=ALWAYS_RUN)
        nd_layer.engine_push_async(lambda done: done(), (), [], [v], "flagtest_async",
                                   mode=MODE_IMPERATIVE)
        engine.wait_all()
    finally:
        mx.profiler.set_state("stop")
        names = {row for row in mx.profiler.dumps(format="table").split()
                 if row.startswith("flagtest_")}
        mx.profiler.dump(finished=True)
    assert names == {"flagtest_plain"}
