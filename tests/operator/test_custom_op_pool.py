"""The custom-operator pool never deadlocks and never lets one call stall the others:
nested calls that wait, at any number in flight; forwards blocked on a lock (not on the
engine); a bound on threads that fails clearly. Every wait is bounded (a join or a
barrier with a timeout, a subprocess timeout), so a regression fails instead of hanging.
"""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import xprof.runtime as mx

IN_FLIGHT = 40   # well above the old fixed pool of 16 threads


class Nest(mx.operator.CustomOp):
    """forward: (depth > 0) call Nest(depth - 1) on the input, wait for it, add one."""

    def __init__(self, depth, barrier):
        self.depth, self.barrier = depth, barrier

    def forward(self, is_train, req, in_data, out_data, aux):
        if self.barrier is not None:
            self.barrier.wait()   # every outer call is in flight at once
        x = in_data[0]
        if self.depth:
            x = mx.nd.Custom(x, op_type="PoolNest", depth=self.depth - 1)
            x.asnumpy()           # a nested call that waits
        self.assign(out_data[0], req[0], x + 1)


class NestProp(mx.operator.CustomOpProp):
    barrier = None

    def __init__(self, depth="0"):
        super().__init__()
        self.depth = int(depth)

    def create_operator(self, ctx, shapes, dtypes):
        return Nest(self.depth, NestProp.barrier if self.depth == 2 else None)


mx.operator.register("PoolNest")(NestProp)


def test_nested_calls_that_wait_never_deadlock(threaded_engine):
    NestProp.barrier = threading.Barrier(IN_FLIGHT, timeout=60)
    try:
        x = mx.nd.ones((3,))
        ys = [mx.nd.Custom(x, op_type="PoolNest", depth=2) for _ in range(IN_FLIGHT)]
        for y in ys:   # IN_FLIGHT outer calls, each waiting for a chain of two more
            np.testing.assert_array_equal(y.asnumpy(), np.full(3, 4.0))
    finally:
        NestProp.barrier = None


class Blocker(mx.operator.CustomOp):
    def __init__(self, started, release):
        self.started, self.release = started, release

    def forward(self, is_train, req, in_data, out_data, aux):
        self.started.set()
        assert self.release.wait(60), "never released"   # blocked, not on the engine
        self.assign(out_data[0], req[0], in_data[0])


class BlockerProp(mx.operator.CustomOpProp):
    events = None

    def create_operator(self, ctx, shapes, dtypes):
        return Blocker(*BlockerProp.events)


mx.operator.register("PoolBlocker")(BlockerProp)


def test_a_forward_blocked_on_a_lock_does_not_stall_other_calls(threaded_engine):
    """Another thread's calls complete while a forward is blocked (the old pool grew only
    for threads blocked at engine sync points: these calls waited behind it)."""
    started, release = threading.Event(), threading.Event()
    BlockerProp.events = (started, release)
    x = mx.nd.ones((2,))
    blocked = mx.nd.Custom(x, op_type="PoolBlocker")
    assert started.wait(60)
    results = []

    def other_calls():
        for _ in range(20):
            results.append(mx.nd.Custom(x, op_type="MyAddOne").asnumpy().sum())

    t = threading.Thread(target=other_calls)
    t.start()
    t.join(60)
    done_while_blocked = not t.is_alive() and not release.is_set()
    release.set()
    t.join(60)
    blocked.wait_to_read()
    assert done_while_blocked, "calls waited for the blocked forward"
    assert results == [4.0] * 20


def test_pool_bound_gives_a_clear_error_not_a_hang():
    script = textwrap.dedent("""
        import xprof.runtime as mx

        class Inner(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] + 1)

        class InnerProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return Inner()

        class Outer(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                y = mx.nd.Custom(in_data[0], op_type="Inner")
                y.asnumpy()
                self.assign(out_data[0], req[0], y)

        class OuterProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return Outer()

        mx.operator.register("Inner")(InnerProp)
        mx.operator.register("Outer")(OuterProp)
        x = mx.nd.ones((2,))
        ys = [mx.nd.Custom(x, op_type="Outer") for _ in range(6)]
        errors = []
        for y in ys:
            try:
                y.asnumpy()
            except RuntimeError as e:
                errors.append(str(e))
        print(len(errors), errors[0] if errors else "")
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["XPROF_CUSTOM_OP_NUM_THREADS"] = "2"
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    count, message = proc.stdout.split(" ", 1)
    assert int(count) > 0
    assert "could not start: all 2 custom-operator threads wait at sync points" in message
    assert "XPROF_CUSTOM_OP_NUM_THREADS" in message


class Interrupting(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise KeyboardInterrupt("in forward")


class InterruptingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Interrupting()


mx.operator.register("PoolInterrupting")(InterruptingProp)


def test_interrupt_in_a_forward_run_inline_reaches_the_caller_at_once(on_engine):
    on_engine("NaiveEngine")
    x = mx.nd.ones((2,))
    with pytest.raises(KeyboardInterrupt, match="in forward"):
        mx.nd.Custom(x, op_type="PoolInterrupting")
    mx.nd.waitall()   # not kept for a later sync point
    assert (x + 1).asnumpy().sum() == 4


def test_interrupt_raised_in_a_forward_on_a_pool_thread_waits_for_the_sync_point(
        threaded_engine):
    x = mx.nd.ones((2,))
    y = mx.nd.Custom(x, op_type="PoolInterrupting")
    with pytest.raises(KeyboardInterrupt, match="in forward"):
        y.wait_to_read()
    mx.nd.waitall()
    assert mx.nd.Custom(x, op_type="MyAddOne").asnumpy().sum() == 4


def test_pool_bound_with_threads_blocked_elsewhere_fails_the_waiting_call():
    """At the bound, with its one thread blocked on a lock for ever, the next call fails
    once no call could start for BUSY_S (shortened here), instead of waiting for ever."""
    script = textwrap.dedent("""
        import threading
        import xprof.runtime as mx
        from xprof.runtime import operator

        class Hang(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                threading.Event().wait()

        class HangProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return Hang()

        mx.operator.register("Hang")(HangProp)
        operator._pool.BUSY_S = 0.5
        x = mx.nd.ones((2,))
        mx.nd.Custom(x, op_type="Hang")
        try:
            mx.nd.Custom(x, op_type="Hang").wait_to_read()
        except RuntimeError as e:
            print(e)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(XPROF_CUSTOM_OP_NUM_THREADS="1", XPROF_ENGINE_EXIT_TIMEOUT="1")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "'Hang' could not start: all 1 custom-operator threads have been busy for" \
        in proc.stdout
    assert "running: Hang" in proc.stdout


FORKED = """
import os, sys, time
import xprof.runtime as mx

class Op(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t = time.perf_counter()
        while time.perf_counter() - t < 0.002:
            pass
        self.assign(out_data[0], req[0], in_data[0] * 2)

@mx.operator.register("Forked")
class P(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Op()

if sys.argv[1] == "profiled":
    mx.profiler.set_config(profile_all=True, filename=sys.argv[2])
    mx.profiler.set_state("run")
x = mx.nd.ones((2, 2))
mx.nd.Custom(x, op_type="Forked").wait_to_read()        # the pool has a thread now
busy = [mx.nd.Custom(x, op_type="Forked") for _ in range(10)]   # and calls in flight
z = mx.nd.dot(mx.nd.ones((300, 300)), mx.nd.ones((300, 300)))
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    y = mx.nd.Custom(x + 1, op_type="Forked")
    # ...and reads what its parent had pushed: the fork waited for it (as MXNet's)
    got = [float(y.asnumpy()[0, 0]), float(busy[-1].asnumpy()[0, 0]), float(z.asnumpy()[0, 0])]
    os.write(write, " ".join(map(str, got)).encode())
    os._exit(0)
os.close(write)
child = os.read(read, 100).decode()
os.waitpid(pid, 0)
mx.nd.waitall()
print(child, float(busy[-1].asnumpy()[0, 0]))
"""


@pytest.mark.parametrize("mode", ["plain", "profiled"])
@pytest.mark.parametrize("kind", ["ThreadedEngine", "NaiveEngine"])
def test_a_forked_child_runs_custom_ops_after_its_parent_did(run_python, tmp_path, kind, mode):
    """fork copies only the forking thread: the child's pool must start empty (its
    copied thread count once kept any thread from starting: the child's first call
    hung, as in a DataLoader worker of a job that had run a custom op), and the arrays
    the parent had pushed work for must be readable there (the fork drains the engine
    first, as MXNet's does; they once never became ready in the child)."""
    args = [mode, str(tmp_path / "unused.json")]
    res = run_python(f"import sys; sys.argv[1:] = {args!r}\n" + FORKED,
                     {"XPROF_ENGINE_TYPE": kind}, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["4.0", "2.0", "300.0", "2.0"], res.stdout + res.stderr


FORK_IN_FORWARD = """
import os
import xprof.runtime as mx

class Op(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        pid = os.fork()   # from inside the engine's pending work: no drain to wait for
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        self.assign(out_data[0], req[0], in_data[0] + 1)

@mx.operator.register("ForksInside")
class P(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Op()

x = mx.nd.ones((2, 2))
ys = [mx.nd.Custom(x, op_type="ForksInside") for _ in range(3)]
print(sum(float(y.asnumpy()[0, 0]) for y in ys))
"""


@pytest.mark.parametrize("kind", ["ThreadedEngine", "NaiveEngine"])
def test_a_fork_inside_forward_does_not_wait_for_its_own_call(run_python, kind):
    res = run_python(FORK_IN_FORWARD, {"XPROF_ENGINE_TYPE": kind}, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["6.0"], res.stdout + res.stderr
