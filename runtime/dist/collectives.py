"""The data collectives of the sync stores, as engine ops handed to the comm thread.

:func:`push_collective` pushes one ``ASYNC`` engine op that reads ``src`` and writes
``dst``: when the engine grants it (``src`` computed, ``dst`` free), it hands a job to
the comm thread under the ticket it took at push time, and returns; the comm thread
runs the job in ticket order (the same on every rank) and completes the op. So the
script's thread never waits, computation pushed after it overlaps the communication,
and every op ordered after ``dst`` (the optimizer's update, a pull) waits for it as for
any other op.

The op is pushed ``ALWAYS_RUN``: a rank whose input failed must still take part in the
collective (with zeros) or every other rank would wait for it forever; the op then ends
with the input's error.
"""
import threading
import time
from time import perf_counter_ns

import numpy as np

from .. import engine as _engine
from ..engine.base import MODE_INTERNAL
from . import comm_thread, events

__all__ = ["push_collective", "ALLREDUCE", "BROADCAST"]

ALLREDUCE, BROADCAST = "allreduce", "broadcast"

# dtypes MPI cannot sum directly are summed as float32 and cast back
_WIDENED = {np.dtype(np.float16): np.dtype(np.float32)}


def _chunks(n, bound):
    """[start, stop) ranges of at most ``bound`` elements covering ``n`` (MXNet splits
    a key above ``MXNET_KVSTORE_BIGARRAY_BOUND`` into such parts)."""
    if n <= bound:
        return [(0, n)]
    return [(i, min(i + bound, n)) for i in range(0, n, bound)]


def _transfer(world, collective, data, bound):
    """Run the MPI collective on ``data`` (contiguous numpy); return the result."""
    MPI = world.MPI
    wide = _WIDENED.get(data.dtype)
    send = np.ascontiguousarray(data if wide is None else data.astype(wide)).reshape(-1)
    if collective == ALLREDUCE:
        out = np.empty_like(send)
        for i, j in _chunks(send.size, bound):
            world.data.Allreduce(send[i:j], out[i:j], op=MPI.SUM)
    else:
        out = send.copy() if world.rank == 0 else np.empty_like(send)
        for i, j in _chunks(send.size, bound):
            world.data.Bcast(out[i:j], root=0)
    out = out.reshape(data.shape)
    return out if wide is None else out.astype(data.dtype)


def push_collective(world, name, collective, key, src, dst, bound, prio=0):
    """Push the engine op ``name``: ``dst`` = the ``collective`` of every rank's ``src``
    (allreduce: the sum; broadcast: rank 0's), in this rank's push order."""
    comm = comm_thread.shared()
    ticket = comm.ticket()
    eng = _engine.get()
    nelems = int(np.prod(src.shape))

    def op(on_complete, stamps, src, dst):
        t_push, t_ready, _ = stamps
        arrived = time.time()
        handed = perf_counter_ns()
        failed = src.exc
        data = np.zeros(src.shape, src._dtype) if failed is not None else src._data
        finished = threading.Event()

        def job():
            t0 = perf_counter_ns()
            arrivals = np.empty(world.size)
            world.data.Allgather(np.array([arrived]), arrivals)   # buffers, not pickles
            arrivals = arrivals.tolist()
            t1 = perf_counter_ns()
            out = _transfer(world, collective, data, bound)
            t2 = perf_counter_ns()
            dst._data = out
            args = events.kineto_args(collective, nelems, data.dtype, world, ticket, key)
            args.update(events.arrival_args(arrivals))
            args["Chunks"] = len(_chunks(nelems, bound))
            args["Wait for data us"] = (t_ready - t_push) // 1000 if t_push and t_ready \
                else 0
            args["Queued us"] = (t0 - handed) // 1000
            events.record(name, t0, t2, args,
                          (("wait for ranks", t0, t1), ("transfer", t1, t2)),
                          (t_push, t_ready))

        def done(exc):
            on_complete(exc if exc is not None else failed)
            finished.set()

        comm.submit(ticket, job, done)
        if eng.synchronous:   # NaiveEngine: the op must be complete when fn returns; the
            finished.wait()   # comm thread runs jobs in order, every earlier one is done

    eng.push_async(op, (src, dst), [src], [dst], name, prio, MODE_INTERNAL, 0, stamped=True)

