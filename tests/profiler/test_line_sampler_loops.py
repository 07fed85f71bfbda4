"""The line sampler's two loops, C (``_linesampler.c``, the default when built) and
Python (``Sampler._ticks``): the same records for the same stack, stamped on the clock
the calls are stamped on, and a stop that ends the C loop at once.

A ``forward`` parks on an event at a known line while the sampler takes a few samples;
the ground truth is the line and the call's own ``perf_counter_ns`` stamps.

The C loop is optional (setup.py builds it when a compiler is there): without it these
tests skip, unless ``XPROF_REQUIRE_NATIVE=1`` (CI) makes that a failure.
"""
import os
import threading
import time

import pytest

import xprof.runtime as mx
from xprof.runtime.profiler import records, recorder as R, sampler as S, session

PARK_LINE = None   # set below: the line of ``release.wait`` in forward
release = threading.Event()
seen = []   # (thread ident, t0, t1) of each forward


class _Parked(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter_ns()
        release.wait(60)   # the samples' line
        seen.append((threading.get_ident(), t0, time.perf_counter_ns()))
        self.assign(out_data[0], req[0], in_data[0])


PARK_LINE = _Parked.forward.__code__.co_firstlineno + 2


@mx.operator.register("ParkedForLines")
class _ParkedProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Parked()


@pytest.fixture
def native():
    if S._native is None:
        if os.environ.get("XPROF_REQUIRE_NATIVE") == "1":
            pytest.fail("the line sampler's C loop (_linesampler) was not built")
        pytest.skip("the line sampler's C loop (_linesampler) was not built")


def _samples_of_a_parked_call(tmp_path, monkeypatch, loop, wanted=5):
    """Profile one ThreadedEngine call parked in forward until ``wanted`` samples are
    in; the sampler's info and the LINE_SAMPLE records with a stack."""
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "1")
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_NATIVE", "1" if loop == "native" else "0")
    release.clear()
    seen.clear()
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")
    try:
        y = mx.nd.Custom(mx.nd.ones((2, 2)), op_type="ParkedForLines")
        deadline = time.monotonic() + 30
        while S.sampler.samples < wanted and time.monotonic() < deadline:
            time.sleep(0.001)
        info = S.sampler.info()
    finally:
        release.set()
    y.wait_to_read()
    mx.profiler.set_state("stop")
    snap = R.snapshot()
    out = [ev for buf, n, _ in snap if buf.sampled is not None
           for ev in buf.events[:n]
           if ev[records.KIND] == records.LINE_SAMPLE and ev[7] is not None]
    session.end_session(snap)
    return info, out


def _named(stack):
    return [(stack[i].co_name, stack[i + 1]) for i in range(0, len(stack), 2)]


@pytest.mark.parametrize("loop", ["native", "python"])
def test_a_parked_forward_is_sampled_at_its_line_within_the_call(
        tmp_path, monkeypatch, threaded_engine, loop, request):
    if loop == "native":
        request.getfixturevalue("native")
    info, samples = _samples_of_a_parked_call(tmp_path, monkeypatch, loop)
    assert info["loop"] == loop
    assert len(samples) >= 5, info
    (ident, t0, t1), = seen
    for ev in samples:
        _, name, cat, t, w, call, t_start, stack = ev
        assert name == "ParkedForLines" and cat == "python_line"
        assert t0 <= t <= t1 and t_start <= t0 and w > 0
        frames = _named(stack)
        # the root is the user's forward at the parked line; nothing of xprof's above it
        assert frames[-1] == ("forward", PARK_LINE), frames
        assert frames[0][0] == "wait"   # threading's Condition.wait, the leaf
    assert len({ev[5] for ev in samples}) == 1   # one call, one number


def test_both_loops_record_the_same_stacks(tmp_path, monkeypatch, threaded_engine, native):
    stacks = {}
    for loop in ("native", "python"):
        _, samples = _samples_of_a_parked_call(tmp_path, monkeypatch, loop)
        stacks[loop] = {tuple(_named(ev[7])) for ev in samples}
    assert stacks["native"] == stacks["python"], stacks


def test_stopping_ends_the_c_loop_promptly(tmp_path, monkeypatch, threaded_engine, native):
    """A stop releases the C loop's lock: the join does not wait for the next tick
    (here a minute away: a loop that only woke on its ticks would hold the stop so long)."""
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "60000")
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_NATIVE", "1")
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")
    S.sampler.launch()   # (as a custom-op call's entry does)
    thread = S.sampler.thread
    assert thread is not None and S.sampler.info()["loop"] == "native"
    t = time.perf_counter()
    mx.profiler.set_state("stop")
    took = time.perf_counter() - t
    session.end_session(R.snapshot())
    assert not thread.is_alive()
    assert took < 30, took   # not the minute to the first tick


def _ticks_while_parked(monkeypatch, tmp_path, loop, filename, register_stop):
    """A thread parked in a function compiled as from ``filename``, under a caller that
    is a stop code when ``register_stop`` (as operator.py's ``body`` is), entered in
    ``running`` by hand while the sampler ticks; the records the sampler appended."""
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "1")
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_NATIVE", "1" if loop == "native" else "0")
    ns = {}
    exec(compile("def parked(ev, ready):\n    ready.set()\n    ev.wait(60)\n", str(filename),
                 "exec"), ns)

    def caller(ev, ready):
        ns["parked"](ev, ready)

    ev, ready, got = threading.Event(), threading.Event(), []
    thread = threading.Thread(target=caller, args=(ev, ready))
    if register_stop:
        S.stop_codes.add(caller.__code__)
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")
    try:
        assert S.sampler.info()["loop"] == loop
        thread.start()
        ready.wait(30)
        S.running[thread.ident] = [10**9, "Hand", time.perf_counter_ns(), got.append, None,
                                   False]
        S.sampler.launch()   # (as a custom-op call's entry does)
        ticks = S.sampler.ticks
        deadline = time.monotonic() + 30
        while S.sampler.ticks < ticks + 8 and time.monotonic() < deadline:
            time.sleep(0.001)
        del S.running[thread.ident]
    finally:
        ev.set()
        S.stop_codes.discard(caller.__code__)
        mx.profiler.set_state("stop")
        thread.join()
        session.end_session(R.snapshot())
    return got


@pytest.mark.parametrize("loop", ["native", "python"])
def test_samples_outside_the_users_function_are_dropped(tmp_path, monkeypatch, loop,
                                                        request):
    """A call's sample must find the user's function under the stop code: in xprof's
    own entry and exit code (the outermost frame in the runtime's folder), or with no
    stop code on the stack, it is dropped, not shown as a line of the op."""
    if loop == "native":
        request.getfixturevalue("native")
    user = _ticks_while_parked(monkeypatch, tmp_path, loop, tmp_path / "user.py", True)
    assert len(user) >= 5
    assert all(_named(ev[7])[-1] == ("parked", 3) for ev in user)
    own = _ticks_while_parked(monkeypatch, tmp_path, loop, S.OWN_FOLDER + "entry.py", True)
    assert own == []
    bottom = _ticks_while_parked(monkeypatch, tmp_path, loop, tmp_path / "user.py", False)
    assert bottom == []


def test_no_sampler_thread_until_a_custom_op_call(tmp_path, monkeypatch, threaded_engine):
    """Issue #42: a profiled program that runs no custom-op Python has no sampler thread
    (no wake-ups); the first call's entry starts it, and that call is sampled."""
    monkeypatch.setenv("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "1")
    mx.profiler.set_config(profile_all=True, filename=str(tmp_path / "unused.json"))
    mx.profiler.set_state("run")
    try:
        x = mx.nd.ones((8, 8))
        for _ in range(20):
            x = x + 1
        mx.nd.waitall()
        assert S.sampler.on and S.sampler.thread is None
        assert not any(t.name == "xprof line sampler" for t in threading.enumerate())
        release.clear()
        y = mx.nd.Custom(x, op_type="ParkedForLines")
        deadline = time.monotonic() + 30
        while S.sampler.samples < 3 and time.monotonic() < deadline:
            time.sleep(0.001)
        thread = S.sampler.thread
        assert thread is not None and thread.is_alive()
        assert S.sampler.samples >= 3
        release.set()
        y.wait_to_read()
    finally:
        release.set()
        mx.profiler.set_state("stop")
        session.end_session(R.snapshot())
    assert S.sampler.thread is None and not thread.is_alive()
