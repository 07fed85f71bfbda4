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
                mpi4py.rc.initialize = False   # started below, listening meanwhile
                mpi4py.rc.thread_level = "multiple"
                mpi4py.rc.finalize = False
                from mpi4py import MPI
            except (ImportError, RuntimeError) as e:   # no mpi4py, or no MPI library
                from ..kvstore_local import MXNetError
                raise MXNetError(f"{what} needs MPI through mpi4py, which is not "
                                 f"installed ({e}): {NEED_EXTRA}") from None
            if not MPI.Is_initialized():
                wait_for_mpi(MPI, what)
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


def wait_for_mpi(MPI, what):
    """Start MPI (``MPI_Init_thread``) on a helper thread through ctypes, which lets go
    of the GIL, and wait for it here. ``MPI_Init`` returns only once every rank has
    called it, so a rank that failed before its kvstore used to leave the others
    spinning in it for ever, deaf to SIGTERM (mpi4py calls it holding the GIL: no
    Python code runs, no trace is written). Waiting here, this rank still handles a
    signal (a safe point, ``engine/signals.SAFE_WAITS``: its trace is written) and,
    under ``xprof run --nproc``, learns from the job folder that a rank has already
    ended, so MPI can never start: then it stops with an error naming that rank."""
    import ctypes
    import signal
    import time

    from xprof.traces import jobdir
    from ..kvstore_local import MXNetError

    lib = _libmpi()
    if lib is None:   # not found (not Linux): mpi4py's own, blocking, start
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
        return
    if threading.current_thread() is threading.main_thread():
        try:   # Hydra's word that a rank died must not kill this one while it waits
            if signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL:
                signal.signal(signal.SIGUSR1, lambda signum, frame: None)
        except (ValueError, OSError):
            pass
    result = []

    def start():
        provided = ctypes.c_int()
        result.append(lib.MPI_Init_thread(None, None, int(MPI.THREAD_MULTIPLE),
                                          ctypes.byref(provided)))

    helper = threading.Thread(target=start, name="xprof MPI start", daemon=True)
    helper.start()
    folder = jobdir.current()
    from ..profiler import ranks
    me = ranks.rank()
    from ..engine import signals
    while helper.is_alive():
        helper.join(0.05)
        if signals._deferred is not None:   # a signal that landed in join's library code
            signals.raise_deferred()
        if folder and helper.is_alive():
            ended = jobdir.read(folder)["end"]
            if ended:
                rank, code = min(ended.items())
                exc = MXNetError(f"{what}: rank {rank} ended ({_how(code)}) before the "
                                 f"job's MPI started, so it never will; rank {me} stops")
                from . import faults
                faults.stopped_by_another(exc)   # (not where the failure started)
                raise exc
    if result[0] != 0:
        raise MXNetError(f"{what}: MPI_Init_thread failed (error {result[0]})")


def _how(code):
    if code < 0:
        import signal
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _libmpi():
    """The MPI library mpi4py loaded (found in this process's memory map), or None."""
    import ctypes

    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libmpi" in line and "/" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
            lib.MPI_Init_thread   # noqa: B018 - the library that has it
            return lib
        except (OSError, AttributeError):
            continue
    return None


def _finalize():
    """At exit: ``MPI_Finalize`` unless the job failed (see the module docstring)."""
    from . import faults

    if faults.healthy() and not _world.MPI.Is_finalized():
        faults.stop()
        _world.MPI.Finalize()
