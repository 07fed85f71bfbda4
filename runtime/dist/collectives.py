"""The data collectives of the sync stores, as engine ops handed to the comm thread.

:func:`push_collective` pushes one ``ASYNC`` engine op that reads ``src`` and writes
``dst`` (one array, or several sharing the result: a pushpull's stored value and out):
when the engine grants it (``src`` computed, ``dst`` free), it hands a job to the comm
thread under the ticket it took at push time, and returns; the comm thread
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
from .buffers import BufferPool

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


_pool = BufferPool()


def _transfer(world, collective, data, bound, key):
    """Run the MPI collective on ``data`` (contiguous numpy); return the result (an
    allreduce's in a pooled buffer: see :mod:`.buffers`)."""
    MPI = world.MPI
    wide = _WIDENED.get(data.dtype)
    send = np.ascontiguousarray(data if wide is None else data.astype(wide)).reshape(-1)
    if collective == ALLREDUCE:
        out = _pool.take(key, send.size, send.dtype) if wide is None else \
            np.empty_like(send)
        for i, j in _chunks(send.size, bound):
            world.data.Allreduce(send[i:j], out[i:j], op=MPI.SUM)
    else:
        out = send.copy() if world.rank == 0 else np.empty_like(send)
        for i, j in _chunks(send.size, bound):
            world.data.Bcast(out[i:j], root=0)
    out = out.reshape(data.shape)
    return out if wide is None else out.astype(data.dtype)


def push_collective(world, name, collective, key, src, dst, bound, prio=0):
    """Push the engine op ``name``: ``dst`` (an array, or a list of arrays: each then
    shares the result) = the ``collective`` of every rank's ``src`` (allreduce: the sum;
    broadcast: rank 0's), in this rank's push order."""
    dsts = list(dst) if isinstance(dst, (list, tuple)) else [dst]
    comm = comm_thread.shared()
    ticket = comm.ticket()
    eng = _engine.get()
    nelems = int(np.prod(src.shape))

    def op(on_complete, engine_stamps, src, *dsts):
        t_push, t_ready, _ = engine_stamps
        arrived = time.time()
        handed = perf_counter_ns()
        failed = src.exc
        data = np.zeros(src.shape, src._dtype) if failed is not None else src._data
        finished = threading.Event()

        def job():
            t0 = perf_counter_ns()
            entered = time.time()
            mine = np.array([arrived, entered])   # kept alive until the Wait
            stamps = np.empty((world.size, 2))    # each rank's (arrived, entered)
            exchange = world.data.Iallgather(mine, stamps)
            result = _transfer(world, collective, data, bound, key)
            exchange.Wait()   # done by now: it progressed inside the transfer
            t2 = perf_counter_ns()
            for d in dsts:
                d._data = result
            if events.recording():
                # the other ranks kept this rank waiting until the last one entered
                waited = max(0.0, float(stamps[:, 1].max()) - entered) * 1e9
                t1 = t0 + min(int(waited), t2 - t0)
                args = events.kineto_args(collective, nelems, data.dtype, world, ticket,
                                          key)
                args.update(events.arrival_args(stamps[:, 0].tolist()))
                args["Chunks"] = len(_chunks(nelems, bound))
                args["Wait for data us"] = (t_ready - t_push) // 1000 \
                    if t_push and t_ready else 0
                args["Queued us"] = (t0 - handed) // 1000
                phases = (("wait for ranks", t0, t1),) if t1 > t0 else ()   # not last
                events.record(name, t0, t2, args, phases + (("transfer", t1, t2),),
                              (t_push, t_ready))

        def done(exc):
            on_complete(exc if exc is not None else failed)
            finished.set()

        comm.submit(ticket, job, done)
        if eng.synchronous:   # NaiveEngine: the op must be complete when fn returns; the
            finished.wait()   # comm thread runs jobs in order, every earlier one is done

    eng.push_async(op, (src, *dsts), [src], dsts, name, prio, MODE_INTERNAL, 0, stamped=True)

