"""A rank of an MPI job runs under a keeper: its parent, the one process that learns how
it ended.

``mpiexec`` starts ``xprof run`` once per rank. Under MPI (``PMI_RANK`` & co set), that
process forks first thing (:func:`keep_rank`): the child runs the script and is the MPI
rank (it inherits PMI's environment and socket); the parent, the keeper, only waits for
it. Why: a rank killed by SIGKILL (or crashed by SIGSEGV) cannot tell anyone, and only
its parent learns which signal ended it. The keeper then prints one line naming the rank
and the signal (``xprof: rank 1 failed (killed by SIGKILL)``) and exits with 128 + the
signal's number. Hydra (MPICH's ``mpiexec``, started with ``-disable-auto-cleanup`` by
``xprof run --nproc``) sees the rank leave unfinalized and sends the other ranks SIGUSR1;
they stop and write their traces (``runtime/dist/faults.py``).

Signals: Hydra signals each rank's process group (every rank is a session of its own),
which holds the keeper and its child, so the child gets SIGINT, SIGTERM and SIGUSR1
itself; the keeper ignores them (passing them on would deliver them twice: a second
SIGTERM cuts the rank's drain short). The child gets SIGTERM when its keeper dies
(``PR_SET_PDEATHSIG``), so a keeper killed alone leaves no rank behind.
"""
import os
import signal
import sys

__all__ = ["keep_rank", "mpi_rank"]

_MPI_RANK = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)


def mpi_rank():
    """This process's rank as MPI's launcher set it, or None outside an MPI job."""
    return next((os.environ[v] for v in _MPI_RANK if v in os.environ), None)


def how_it_ended(code):
    """``killed by SIGKILL`` for a negative exit code, else ``exit code N``."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"killed by signal {-code}"
        if -code == signal.SIGUSR1:   # Hydra's word before the rank could listen for it
            return "killed by SIGUSR1, Hydra's word that another rank had died"
        return f"killed by {name}"
    return f"exit code {code}"


def keep_rank():
    """Under ``mpiexec``, on Linux: fork; the child returns (and runs the script), the
    parent waits for it and exits with its code (128 + N for signal N), after one line
    naming the rank and the signal when a signal ended it. Elsewhere: return at once."""
    import threading

    rank = mpi_rank()
    if rank is None or not sys.platform.startswith("linux"):
        return
    if threading.active_count() > 1:   # forking a threaded process is unsafe: no keeper
        print(f"xprof: rank {rank} runs without a keeper (threads started before it)",
              file=sys.stderr, flush=True)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in _IGNORED}   # none lost at fork
    child = os.fork()
    if child == 0:
        for s, handler in saved.items():
            signal.signal(s, handler)
        _die_with(os.getppid())
        return
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:     # reaped elsewhere: nothing to report
            os._exit(1)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        print(f"xprof: rank {rank} failed ({how_it_ended(code)})", file=sys.stderr,
              flush=True)
        code = 128 - code
    os._exit(code)


def _die_with(keeper):
    """In the child: SIGTERM when the keeper dies; if it already has, stop now."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != keeper:
        os.kill(os.getpid(), signal.SIGTERM)
