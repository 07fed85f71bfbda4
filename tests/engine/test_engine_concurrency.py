"""Concurrency: asynchronous push, concurrent readers, priorities, many pushing threads.

Ordering is forced with threading.Event / Barrier, never with sleeps or timings.
"""
import sys
import threading

import pytest

HEAVY = 1 << 40
TIMEOUT = 60  # only reached if the engine deadlocks; never part of an assertion


def _blockers(eng, n):
    """Occupy ``n`` workers with ops that block until released, one at a time."""
    started = [threading.Event() for _ in range(n)]
    release = [threading.Event() for _ in range(n)]

    def block(i):
        started[i].set()
        assert release[i].wait(TIMEOUT)

    for i in range(n):
        eng.push(block, (i,), [], [eng.new_variable()], "blocker", cost=HEAVY)
    for ev in started:
        assert ev.wait(TIMEOUT), "a blocker never started: fewer workers than expected?"
    return release


def test_push_returns_before_work_runs(threaded_engine):
    eng = threaded_engine
    v = eng.new_variable()
    gate = threading.Event()
    ran = threading.Event()
    state = {"returned": False}

    def op():
        assert gate.wait(TIMEOUT)
        state["returned_when_ran"] = state["returned"]
        ran.set()

    eng.push(op, (), [], [v], "slow", cost=HEAVY)
    state["returned"] = True          # we got here while the op is blocked
    assert not ran.is_set()
    assert eng.pending() >= 1
    gate.set()
    eng.wait_for_var(v)
    assert ran.is_set()
    assert state["returned_when_ran"] is True


def test_cheap_op_with_pending_input_is_queued_not_run(threaded_engine):
    eng = threaded_engine
    v, out = eng.new_variable(), eng.new_variable()
    gate = threading.Event()
    log = []
    eng.push(lambda: (gate.wait(TIMEOUT), log.append("w")), (), [], [v], "w", cost=HEAVY)
    eng.push(log.append, ("cheap",), [v], [out], "cheap", cost=0)   # returns at once
    assert log == []
    gate.set()
    eng.wait_for_var(out)
    assert log == ["w", "cheap"]


def test_cheap_ready_op_runs_inline_heavy_op_on_worker(threaded_engine):
    eng = threaded_engine
    where = {}

    def record(key):
        where[key] = threading.current_thread()

    v1, v2 = eng.new_variable(), eng.new_variable()
    eng.push(record, ("cheap",), [], [v1], "cheap", cost=0)
    eng.push(record, ("heavy",), [], [v2], "heavy", cost=HEAVY)
    eng.wait_all()
    assert where["cheap"] is threading.current_thread()
    assert where["heavy"] is not threading.current_thread()
    assert where["heavy"].ident in eng.worker_idents


def test_concurrent_readers_inline_while_another_reader_runs(threaded_engine):
    """A second reader of a variable being read runs at once (no false dependency);
    a writer waits for both readers."""
    eng = threaded_engine
    v = eng.new_variable()
    gate = threading.Event()
    log = []
    eng.push(lambda: (gate.wait(TIMEOUT), log.append("r1")), (), [v], [], "r1", cost=HEAVY)
    eng.push(log.append, ("r2",), [v], [], "r2", cost=0)
    assert log == ["r2"], "a reader waited for another reader"
    eng.push(log.append, ("w",), [], [v], "w", cost=0)
    assert log == ["r2"], "a writer did not wait for a running reader"
    gate.set()
    eng.wait_for_var(v)
    assert log == ["r2", "r1", "w"]


def test_concurrent_readers_on_workers(threaded_engine):
    """Readers of one variable run at the same time on different workers: each waits on
    a barrier that only opens when all of them are running."""
    eng = threaded_engine
    n = eng.num_workers
    if n < 2:
        pytest.skip("needs at least two worker threads")
    v = eng.new_variable()
    barrier = threading.Barrier(n, timeout=TIMEOUT)
    passed = []

    def reader(i):
        barrier.wait()       # BrokenBarrierError if readers were serialised
        passed.append(i)

    for i in range(n):
        eng.push(reader, (i,), [v], [], "reader", cost=HEAVY)
    eng.wait_all()
    assert sorted(passed) == list(range(n))


@pytest.mark.parametrize("sync", ["wait_all", "wait_for_var"])
@pytest.mark.parametrize("released_by", ["worker", "caller"])
@pytest.mark.parametrize("cost", [0, HEAVY])
def test_ops_made_ready_together_run_side_by_side(threaded_engine, cost, released_by, sync):
    """Two ops made ready at once (by a worker finishing an op, or by the caller
    completing an async op); the first blocks until the second has run. Workers are
    woken sparingly for cheap ops, so the second may at first wait behind the blocked
    worker; the caller's periodic check at its sync point wakes another worker (without
    it this would wait TIMEOUT and fail instead of hanging)."""
    eng = threaded_engine
    if eng.num_workers < 2:
        pytest.skip("needs at least two worker threads")
    start, ran = threading.Event(), threading.Event()
    src, a, b = eng.new_variable(), eng.new_variable(), eng.new_variable()
    seen, completions = [], []
    if released_by == "worker":
        eng.push(lambda: start.wait(TIMEOUT), (), [], [src], "hold", cost=HEAVY)
    else:
        eng.push_async(completions.append, (), [], [src], "hold")
    eng.push(lambda: seen.append(ran.wait(TIMEOUT)), (), [src], [a], "waits", cost=cost)
    eng.push(ran.set, (), [src], [b], "opens", cost=cost)
    start.set()
    if completions:
        completions[0]()
    if sync == "wait_all":
        eng.wait_all()
    else:
        eng.wait_for_var(a)
    assert seen == [True]


def test_priority_among_ready_ops(threaded_engine):
    """With every worker busy, queued ready ops run highest priority first (ties in push
    order) once a worker frees up."""
    eng = threaded_engine
    release = _blockers(eng, eng.num_workers)
    order = []
    prios = [0, 5, -3, 10, 5, 1, 10, -1]
    vars_ = []
    for i, p in enumerate(prios):
        v = eng.new_variable()
        vars_.append(v)
        eng.push(order.append, ((p, i),), [], [v], f"p{p}", prio=p, cost=HEAVY)
    assert order == []
    release[0].set()                 # exactly one worker drains the queue
    for v in vars_:
        eng.wait_for_var(v)
    for ev in release[1:]:
        ev.set()
    eng.wait_all()
    expected = sorted(((p, i) for i, p in enumerate(prios)), key=lambda t: (-t[0], t[1]))
    assert order == expected


def test_priority_of_ops_made_ready_by_a_completion(threaded_engine):
    """Ops that become ready when a running op finishes also run by priority: the
    worker that finished must not pick a low-priority op ahead of a higher one."""
    eng = threaded_engine
    release = _blockers(eng, eng.num_workers - 1)   # one worker left free
    v = eng.new_variable()
    gate = threading.Event()
    started = threading.Event()
    order = []

    def writer():
        started.set()
        assert gate.wait(TIMEOUT)

    eng.push(writer, (), [], [v], "writer", cost=HEAVY)
    assert started.wait(TIMEOUT)
    prios = [10, 0, 7, 3, 10, -2]
    for i, p in enumerate(prios):
        eng.push(order.append, ((p, i),), [v], [eng.new_variable()], f"r{p}", prio=p,
                 cost=HEAVY)
    gate.set()       # the one free worker finishes the writer; six readers become ready
    eng.wait_for_var(v)
    # wait for every reader: a write after them waits for all reads
    done = threading.Event()
    eng.push(done.set, (), [], [v], "after", cost=HEAVY)
    assert done.wait(TIMEOUT)
    for ev in release:
        ev.set()
    eng.wait_all()
    expected = sorted(((p, i) for i, p in enumerate(prios)), key=lambda t: (-t[0], t[1]))
    assert order == expected


@pytest.fixture
def frequent_thread_switches():
    """Make the interpreter switch threads very often, so that races show up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.mark.parametrize("n_threads,n_ops", [(8, 500)])
def test_many_threads_pushing(engine, n_threads, n_ops, frequent_thread_switches):
    """8 Python threads push 500 ops each at once, on one shared variable and on a
    private one each: final values are exact, writes to a variable never overlap, and
    each thread's ops on its private variable run in its push order."""
    shared_var = engine.new_variable()
    shared = {"count": 0, "in_write": 0, "overlaps": 0}
    private_vars = [engine.new_variable() for _ in range(n_threads)]
    private = [[] for _ in range(n_threads)]
    reads_seen = [[] for _ in range(n_threads)]
    start = threading.Barrier(n_threads, timeout=TIMEOUT)
    errors = []

    def inc_shared():
        shared["in_write"] += 1
        if shared["in_write"] != 1:
            shared["overlaps"] += 1
        value = shared["count"]
        # give other threads every chance to interleave inside the write
        sum(range(300))
        shared["count"] = value + 1
        shared["in_write"] -= 1

    def read_shared(t):
        if shared["in_write"]:
            shared["overlaps"] += 1
        reads_seen[t].append(shared["count"])

    def append_private(t, i):
        private[t].append(i)

    def pusher(t):
        try:
            start.wait()
            for i in range(n_ops):
                cost = HEAVY if i % 3 == 0 else 0
                k = i % 4
                if k == 0:
                    engine.push(inc_shared, (), [], [shared_var], "inc", cost=cost)
                elif k == 1:
                    engine.push(append_private, (t, i), [], [private_vars[t]], "priv",
                                cost=cost)
                elif k == 2:
                    engine.push(read_shared, (t,), [shared_var], [private_vars[t]],
                                "read", cost=cost)
                else:
                    engine.push(append_private, (t, i), [shared_var], [private_vars[t]],
                                "priv2", cost=cost)
            engine.wait_for_var(private_vars[t])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=pusher, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(TIMEOUT)
        assert not th.is_alive(), "a pushing thread hung"
    engine.wait_all()
    assert errors == []
    assert shared["overlaps"] == 0
    assert shared["count"] == n_threads * ((n_ops + 3) // 4)
    for t in range(n_threads):
        assert private[t] == [i for i in range(n_ops) if i % 4 in (1, 3)]
        # each thread's reads of the shared counter were pushed in order: they never
        # see the counter go backwards
        assert reads_seen[t] == sorted(reads_seen[t])
    if engine.name == "ThreadedEngine":
        assert engine.pending() == 0
