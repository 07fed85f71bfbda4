"""runtime/dist/comm_thread.py: jobs run in ticket (push) order whatever order they are
handed over in, and another rank's failure completes every job, the running one too."""
from __future__ import annotations

import threading

from xprof.runtime.dist.comm_thread import CommThread


def test_jobs_run_in_ticket_order_not_hand_over_order():
    comm = CommThread("test comm")
    ran, done = [], threading.Event()
    tickets = [comm.ticket() for _ in range(5)]

    def finished(exc):
        if len(ran) == 5:
            done.set()
    for t in reversed(tickets):          # ready in the opposite order of the pushes
        comm.submit(t, lambda t=t: ran.append(t), finished)
    assert done.wait(30)
    assert ran == tickets
    assert comm.call(lambda: "after") == "after"


def test_a_failure_completes_the_running_and_the_waiting_jobs_once():
    comm = CommThread("test comm")
    started, release = threading.Event(), threading.Event()
    results = []

    def stuck():                         # a collective whose peer is gone
        started.set()
        release.wait(30)
    comm.submit(comm.ticket(), stuck, results.append)
    comm.submit(comm.ticket(), lambda: results.append("ran"), results.append)
    assert started.wait(30)
    failure = RuntimeError("rank 1 failed")
    comm.fail_all(failure)
    assert results == [failure, failure]
    release.set()                        # the collective returns after all: dropped
    later = []
    comm.submit(comm.ticket(), lambda: later.append("ran"), later.append)
    assert later == [failure]
    assert results == [failure, failure]
