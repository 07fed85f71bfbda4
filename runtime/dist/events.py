"""How a kvstore collective appears in the trace: MXNet's event names, Kineto's args.

Each collective is one operator slice on the comm thread, named as MXNet's KVStoreDist
names its ops (``KVStoreDistDefaultPush``, ``KVStoreDistDefaultStoragePushPull``,
``KVStoreDistDefaultStoragePull``), with the argument names PyTorch's Kineto writes for
a collective (``Collective name``, ``In msg nelems``... ``Seq``) so Holistic Trace
Analysis reads an xprof trace as it reads a PyTorch one. Inside it, its phases are
slices of category ``communication``:

* ``wait for ranks``: from the collective's start until the last rank entered it (each
  rank's entry time and arrival time, the moment its data was ready, are exchanged by
  an ``MPI_Iallgather`` that progresses inside the transfer: no meeting of its own);
  absent on the rank that entered last. The arrivals are kept in the args
  (``Arrivals ms``, ``Last to arrive``, ``Late by ms``), so ``xprof explain`` names the
  straggler from the arrival times themselves, not from guesses;
* ``transfer``: the data collective itself (allreduce: transfer and reduction in MPI),
  one call per chunk of ``MXNET_KVSTORE_BIGARRAY_BOUND`` elements.

Waiting for the data (from the push until the engine granted the inputs: computing the
gradient, typically) is an async slice ``wait for data`` of the same category (its own
track: it overlaps the comm thread's other work) and the arg ``Wait for data us``;
waiting behind earlier collectives is the arg ``Queued us``; the local sum
of several values is the ``KVStoreReduce`` op and the optimizer's update ops follow the
collective as ordinary operators.
"""
from ..profiler.objects import _ids
from ..profiler.observer import COMMUNICATION, flags, observer

WAIT_FOR_DATA = "wait for data"

__all__ = ["kineto_args", "arrival_args", "record", "recording"]


def recording():
    """Whether the profiler records now (the args are built only then)."""
    return flags.recording


def kineto_args(collective, nelems, dtype, world, seq, key):
    """Kineto's argument names for one collective (sizes in bytes), plus the key."""
    import numpy as np

    size = int(nelems) * np.dtype(dtype).itemsize
    return {"Collective name": collective, "In msg nelems": int(nelems),
            "Out msg nelems": int(nelems), "In msg size": size, "Out msg size": size,
            "dtype": np.dtype(dtype).name, "Group size": world.size,
            "Process Group Ranks": str(list(range(world.size))), "Rank": world.rank,
            "Seq": seq, "Key": str(key)}


def arrival_args(arrivals):
    """From every rank's arrival time (s, wall clock), what names the straggler: each
    rank's arrival after the first, the last rank to arrive, and by how much it came
    after the rank before it (the time the whole job waited for it alone)."""
    first = min(arrivals)
    order = sorted(range(len(arrivals)), key=arrivals.__getitem__)
    last = order[-1]
    late = arrivals[last] - (arrivals[order[-2]] if len(order) > 1 else arrivals[last])
    return {"Arrivals ms": tuple(round((a - first) * 1e3, 3) for a in arrivals),
            "Last to arrive": last, "Late by ms": round(late * 1e3, 3)}


def record(name, t0, t1, args, phases, waited=None):
    """Record one collective on the calling thread (nothing when not recording);
    ``waited``: ``(t_push, t_ready)``, the wait for its data."""
    if flags.recording:
        observer.collective(name, t0, t1, args, phases)
        if waited is not None and waited[0] and waited[1]:
            ident = next(_ids)
            observer.async_begin(WAIT_FOR_DATA, COMMUNICATION, waited[0], ident)
            observer.async_end(WAIT_FOR_DATA, COMMUNICATION, waited[1], ident)
