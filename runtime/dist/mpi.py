"""MPI for the distributed kvstores: mpi4py found (or one line saying how to get it), MPI
started once, and the communicators each part of the store uses.

MPI is started with ``MPI_THREAD_MULTIPLE`` because three threads may call it: the
comm thread (:mod:`.comm_thread`, every collective), the fault listener
(:mod:`.faults`) and, on rank 0 of ``dist_async``, the server. Each has a communicator
of its own (``MPI_Comm_dup`` of the world), so their messages never match each other's.
mpi4py's own ``MPI_Finalize`` at exit is replaced by :func:`_finalize`: a rank whose
peer failed (or which failed itself) may still have a collective in flight on the comm
thread, and finalizing then would hang, so it exits without (``mpiexec`` accepts that
of a failed job); a healthy rank finalizes (exiting without it while the others still
communicate made MPICH's shared-memory transport kill ranks now and then).
"""
import threading

__all__ = ["world", "World", "NEED_EXTRA"]

NEED_EXTRA = "pip install 'xprof-mx[dist]'"

_lock = threading.Lock()
_world = None


class World:
    """This process's place in the job: ``rank``, ``size``, and one communicator per
    user of MPI (``data``: collectives, ``control``: fault notices, ``server``:
    dist_async's point-to-point messages)."""

    def __init__(self, MPI):
        self.MPI = MPI
        comm = MPI.COMM_WORLD
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.data = comm.Dup()
        self.control = comm.Dup()
        self.server = comm.Dup()
        self.host = MPI.Get_processor_name()


def world(what="a distributed kvstore"):
    """The job's :class:`World`, MPI started on first use; a one-line MXNetError naming
    the extra to install when mpi4py (or its MPI library) is missing."""
    global _world
    with _lock:
        if _world is None:
            try:
                import mpi4py
                mpi4py.rc.initialize = True
                mpi4py.rc.thread_level = "multiple"
                mpi4py.rc.finalize = False
                from mpi4py import MPI
            except (ImportError, RuntimeError) as e:   # no mpi4py, or no MPI library
                from ..kvstore_local import MXNetError
                raise MXNetError(f"{what} needs MPI through mpi4py, which is not "
                                 f"installed ({e}): {NEED_EXTRA}") from None
            if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
                from ..kvstore_local import MXNetError
                raise MXNetError(f"{what}: the MPI library gives thread level "
                                 f"{MPI.Query_thread()}, not MPI_THREAD_MULTIPLE; "
                                 f"{NEED_EXTRA} brings MPICH, which does")
            w = World(MPI)
            from ..profiler import ranks
            expected = ranks.world_size()
            if w.size == 1 and expected is not None and expected > 1:
                from ..kvstore_local import MXNetError
                raise MXNetError(f"{what}: this is one of {expected} ranks, but not of one "
                                 f"MPI job (MPI sees 1 process): start them with mpiexec "
                                 f"(xprof run --nproc does, unless XPROF_RUN_MPIEXEC=none)")
            _world = w
            import atexit
            atexit.register(_finalize)
        return _world


def _finalize():
    """At exit: ``MPI_Finalize`` unless the job failed (see the module docstring)."""
    from . import faults

    if faults.healthy() and not _world.MPI.Is_finalized():
        faults.stop()
        _world.MPI.Finalize()
