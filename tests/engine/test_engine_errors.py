"""Exceptions raised inside ops: deferred to the next sync point, carried along the
dependency graph, reported once by wait_all, and the engine keeps working."""
import threading
import traceback

import pytest

HEAVY = 1 << 40


class KernelError(Exception):
    pass


def failing_kernel_function():
    raise KernelError("boom inside the op")


def _frames(exc):
    return [f.name for f in traceback.extract_tb(exc.__traceback__)]


@pytest.mark.parametrize("cost", [0, HEAVY], ids=["inline", "worker"])
def test_error_reaches_wait_for_var_with_traceback(engine, cost):
    v = engine.new_variable()
    engine.push(failing_kernel_function, (), [], [v], "fails", cost=cost)  # no raise here
    with pytest.raises(KernelError, match="boom inside the op") as info:
        engine.wait_for_var(v)
    assert "failing_kernel_function" in _frames(info.value)
    # the variable keeps its error: a second wait raises it again
    with pytest.raises(KernelError):
        engine.wait_for_var(v)
    engine.wait_all()       # reported at wait_for_var: not raised a second time


@pytest.mark.parametrize("cost", [0, HEAVY], ids=["inline", "worker"])
def test_dependent_ops_are_skipped_and_carry_the_error(engine, gate_factory, cost):
    a, b, c, other = (engine.new_variable() for _ in range(4))
    ran = []
    gate = gate_factory()

    def fail():
        gate.wait()
        failing_kernel_function()

    engine.push(fail, (), [], [a], "fails", cost=HEAVY)
    engine.push(ran.append, ("b",), [a], [b], "b", cost=cost)        # reads a: skipped
    engine.push(ran.append, ("c",), [b, other], [c], "c", cost=cost)  # reads b: skipped
    engine.push(ran.append, ("other",), [other], [], "other", cost=cost)  # unrelated
    gate.open()
    for v in (c, b, a):
        with pytest.raises(KernelError) as info:
            engine.wait_for_var(v)
        assert "failing_kernel_function" in _frames(info.value)
    engine.wait_for_var(other)
    assert ran == ["other"]
    # every failed variable carries the very same exception object
    errs = []
    for v in (a, b, c):
        try:
            engine.wait_for_var(v)
        except KernelError as e:
            errs.append(e)
    assert errs[0] is errs[1] is errs[2]
    engine.wait_all()


def test_wait_all_raises_once_then_engine_keeps_working(engine):
    v = engine.new_variable()
    engine.push(failing_kernel_function, (), [], [v], "fails", cost=HEAVY)
    with pytest.raises(KernelError) as info:
        engine.wait_all()
    assert "failing_kernel_function" in _frames(info.value)
    engine.wait_all()       # reported: not raised again
    # the engine still works, and a later successful write clears the variable's error
    data = []
    engine.push(data.append, (1,), [], [v], "ok", cost=HEAVY)
    engine.push(data.append, (2,), [v], [], "ok", cost=0)
    engine.wait_for_var(v)
    engine.wait_all()
    assert data == [1, 2]


def test_wait_all_with_several_errors(engine):
    """Two independent failures: wait_all raises the first and clears the list (as
    MXNet's WaitForAll does); each variable still carries its own error."""
    vs = [engine.new_variable() for _ in range(2)]

    def fail(i):
        raise KernelError(f"failure {i}")

    for i, v in enumerate(vs):
        engine.push(fail, (i,), [], [v], "fails", cost=HEAVY)
    with pytest.raises(KernelError, match="failure [01]"):  # whichever finished first
        engine.wait_all()
    engine.wait_all()
    for i, v in enumerate(vs):
        with pytest.raises(KernelError, match=f"failure {i}"):
            engine.wait_for_var(v)


def test_error_in_op_does_not_break_other_threads(threaded_engine):
    """A failing op on a worker leaves the worker alive for later work."""
    eng = threaded_engine
    for _ in range(eng.num_workers * 3):
        eng.push(failing_kernel_function, (), [], [eng.new_variable()], "f", cost=HEAVY)
    with pytest.raises(KernelError):
        eng.wait_all()
    done = threading.Event()
    eng.push(done.set, (), [], [eng.new_variable()], "ok", cost=HEAVY)
    eng.wait_all()
    assert done.is_set()


def test_interrupt_raised_by_an_op_on_a_worker_is_kept(threaded_engine):
    """A non-Exception error (KeyboardInterrupt raised by an op) on a worker thread is
    deferred to the sync point and never kills the worker."""
    engine = threaded_engine
    v = engine.new_variable()

    def interrupt():
        raise KeyboardInterrupt("from an op")

    engine.push(interrupt, (), [], [v], "kbi", cost=HEAVY)
    with pytest.raises(KeyboardInterrupt):
        engine.wait_for_var(v)
    engine.wait_all()
    ok = []
    engine.push(ok.append, (1,), [], [v], "ok", cost=HEAVY)
    engine.wait_for_var(v)
    assert ok == [1]


@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit])
def test_interrupt_of_the_pushing_thread_is_raised_at_once(engine, exc_type):
    """An interrupt raised in an op run on the pushing thread (every op under
    NaiveEngine, a cheap ready op under ThreadedEngine) is the program's, not the op's:
    it leaves push at once, is never stored, and the engine keeps working."""
    v = engine.new_variable()

    def interrupt():
        raise exc_type("now")

    with pytest.raises(exc_type):
        engine.push(interrupt, (), [], [v], "kbi")
    engine.wait_for_var(v)   # nothing stored on the variable ...
    engine.wait_all()        # ... nor listed for the next waitall
    ok = []
    engine.push(ok.append, (1,), [v], [engine.new_variable()], "ok")
    engine.wait_all()
    assert ok == [1] and engine.pending() == 0
