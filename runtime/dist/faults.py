"""A failing rank ends the job within seconds, and the others write their traces.

MPI has no notion of a failed peer that a blocked collective would notice: the other
ranks would wait in ``MPI_Allreduce`` until someone kills them. So a rank whose script
fails (an exception, ``sys.exit(n)``, SIGTERM, Ctrl-C: whatever ``xprof run`` sees end
with a non-zero code; under plain ``python``, an uncaught exception) calls
:func:`announce` before writing its own trace: one small message to every other rank on
the control communicator. Each rank's listener thread (:func:`start`) polls for such
notices every :data:`POLL` seconds (``MPI_Test``, not a blocking receive: MPICH's spins
a core) and, on one, fails the comm thread's jobs (:meth:`.CommThread.fail_all`) with an
error naming the rank and its exit: the script's next wait on a kvstore array raises
it, its trace is written and the rank exits non-zero.

Hydra (MPICH's ``mpiexec``) started without ``-disable-auto-cleanup`` (by hand) kills
every rank as soon as one exits without ``MPI_Finalize`` (which a failed rank must skip:
a collective of its may be in flight). So after writing its trace every rank of a
failed job says it is done (:func:`finished`), and a rank that failed waits for the
others' word (at most :data:`DONE_BOUND` seconds) before it exits.

A rank killed by SIGKILL (or crashed) cannot announce anything. Its keeper (its parent
process, ``cli/runner/keeper.py``) prints how it ended and exits; Hydra, started with
``-disable-auto-cleanup`` by ``xprof run --nproc``, then sends every other rank SIGUSR1
(without that flag it SIGKILLs them: traces lost). The handler installed here (the
default action of SIGUSR1 would kill the rank) only sets a flag, and the listener, seeing
it, holds a roll call: it asks every other rank whether it is there and waits at most
:data:`ROLL_CALL_BOUND` seconds for the answers (each listener answers, whatever its
main thread is doing); the ranks that neither answer nor ask are gone, and the listener
fails this rank's jobs naming them, as for a notice. Whichever rank left without
``MPI_Finalize``, the roll call names it: a rank is never named from a guess.
"""
import signal
import sys
import threading
import time

__all__ = ["start", "announce", "on_failure", "POLL"]

POLL = 0.05         # s between two looks at the control communicator
SEND_BOUND = 2.0    # s announce() waits for its notices to leave
DONE_BOUND = 15.0   # s a failed rank waits for the others to have written their traces
ROLL_CALL_BOUND = 2.0   # s a roll call waits for the other ranks' answers
GONE = "gone without a word: killed by a signal, or it left without MPI_Finalize"
_NOTICE = 77
# the kinds of notice: (rank, kind, how)
FAILED, DONE, ROLL_CALL, HERE, BYE = "failed", "done", "roll call", "here", "bye"

_listeners = []     # callables(exc) told of a failure (comm threads, the async server)
_state = {"world": None, "failed": None, "said": False, "stop": None, "thread": None,
          "done": set(), "left": set(), "signalled": False}
_done = threading.Condition()


def healthy():
    """No rank failed as far as this one knows (it did not announce, nor was told)."""
    return _state["failed"] is None and not _state["said"]


def on_failure(callback):
    """Call ``callback(exc)`` when another rank fails (or at once if one did)."""
    _listeners.append(callback)
    if _state["failed"] is not None:
        callback(_state["failed"])


def start(world):
    """Listen for the other ranks' failure notices (once per process)."""
    if _state["world"] is not None:
        return
    _state["world"] = world
    if world.size == 1:
        return
    _state["stop"] = threading.Event()
    _state["thread"] = threading.Thread(target=_listen, args=(world,), daemon=True,
                                        name="xprof rank-failure listener")
    _state["thread"].start()
    _catch_sigusr1()
    previous = sys.excepthook

    def hook(kind, value, tb):   # a script run by plain python, not xprof run
        announce(f"uncaught {kind.__name__}")
        previous(kind, value, tb)
    sys.excepthook = hook


def _catch_sigusr1():
    """Hydra's word that a rank left unfinalized: a flag for the listener (a handler
    of the main thread's, which may be blocked; Python runs it between two bytecodes,
    lock waits included). Not from another thread: signals are the main thread's. A
    handler the script installed is still called; a SIGUSR1 of its own only costs a
    roll call that every rank answers."""
    def flag(signum, frame):
        _state["signalled"] = True
        if callable(previous):
            previous(signum, frame)
    try:
        previous = signal.getsignal(signal.SIGUSR1)
        signal.signal(signal.SIGUSR1, flag)
    except (ValueError, OSError):   # not the main thread: Hydra's SIGUSR1 then kills
        pass


def _ignore_sigusr1():
    try:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    except (ValueError, OSError):
        pass


def _fail(world, rank, how):
    from ..kvstore_local import MXNetError

    if _state["failed"] is not None:
        return
    exc = MXNetError(f"rank {rank} failed ({how}); rank {world.rank} stops")
    print(f"xprof: rank {rank} failed ({how}); stopping rank {world.rank}",
          file=sys.stderr, flush=True)
    _state["failed"] = exc
    for callback in list(_listeners):
        callback(exc)


def _listen(world):
    """Receive notices until :func:`stop`: a failure fails this rank's jobs, once; a
    ``done`` says that rank has written its trace; a roll call is answered. After
    Hydra's SIGUSR1, hold a roll call (:class:`_RollCall`)."""
    MPI, comm = world.MPI, world.control
    notice = comm.irecv(source=MPI.ANY_SOURCE, tag=_NOTICE)
    stop = _state["stop"]
    roll = None
    while True:
        done, message = notice.test()
        if done:
            rank, kind, how = message
            if roll is not None:
                roll.heard(rank)
            if kind == BYE:       # finalizing: its exit is no failure
                _state["left"].add(rank)
            elif kind == DONE:
                with _done:
                    _state["done"].add(rank)
                    _done.notify_all()
            elif kind == FAILED:
                _fail(world, rank, how)
            elif kind == ROLL_CALL:
                _post([rank], (world.rank, HERE, None))
            notice = comm.irecv(source=MPI.ANY_SOURCE, tag=_NOTICE)
            continue
        _sent[:] = [r for r in _sent if not r.test()[0]]
        if roll is None and _state["signalled"]:
            _state["signalled"] = False
            if healthy():
                roll = _RollCall(world)
        if roll is not None and roll.over():
            gone, roll = roll.gone(), None
            if gone and healthy():
                _fail(world, ", ".join(map(str, gone)), GONE)
        if stop.wait(POLL):
            notice.Cancel()      # MPI_Finalize wants no receive left posted
            notice.Wait()
            return


class _RollCall:
    """Who is still there: every other rank is asked; those that neither answer nor
    ask within :data:`ROLL_CALL_BOUND` seconds are gone."""

    def __init__(self, world):
        self.world = world
        self.present = {world.rank} | _state["left"]
        self.deadline = time.monotonic() + ROLL_CALL_BOUND
        _post([r for r in range(world.size) if r not in self.present],
              (world.rank, ROLL_CALL, None))

    def heard(self, rank):
        self.present.add(rank)

    def over(self):
        return len(self.present) == self.world.size or time.monotonic() >= self.deadline

    def gone(self):
        return sorted(set(range(self.world.size)) - self.present)


_sent = []   # the listener's sends in flight (tested each round, never waited for)


def _post(ranks, message):
    world = _state["world"]
    _sent.extend(world.control.isend(message, dest=r, tag=_NOTICE) for r in ranks)


def stop():
    """Before ``MPI_Finalize`` of a healthy rank: say goodbye (its exit is no failure,
    and Hydra's SIGUSR1 for it is none either), end the listener and its posted receive
    (bounded)."""
    if _state["thread"] is not None:
        _ignore_sigusr1()
        _send_all((_state["world"].rank, BYE, None))
        _state["stop"].set()
        _state["thread"].join(SEND_BOUND)


def _send_all(message):
    world = _state["world"]
    requests = [world.control.isend(message, dest=r, tag=_NOTICE)
                for r in range(world.size) if r != world.rank]
    deadline = time.monotonic() + SEND_BOUND
    while requests and time.monotonic() < deadline:
        requests = [r for r in requests if not r.test()[0]]
        if requests:
            time.sleep(POLL / 10)


def announce(how):
    """Tell every other rank that this one failed (``how``: e.g. ``exit code 1``);
    bounded by :data:`SEND_BOUND`. Nothing to do when no store started MPI, or when
    this rank stops because another failed (that one told everyone)."""
    world = _state["world"]
    if world is None or world.size == 1 or _state["failed"] is not None or _state["said"]:
        return
    _state["said"] = True
    _send_all((world.rank, FAILED, how))


def finished():
    """After this rank wrote its trace: in a failed job, tell the others, and if this
    rank is the one that failed, wait (at most :data:`DONE_BOUND` s) until they have
    written theirs: its exit without ``MPI_Finalize`` makes Hydra kill them."""
    world = _state["world"]
    if world is None or world.size == 1 or healthy():
        return
    _ignore_sigusr1()   # the others' exits, unfinalized, now (Python's exit drops handlers)
    _send_all((world.rank, DONE, None))
    if not _state["said"]:
        return
    others = set(range(world.size)) - {world.rank}
    deadline = time.monotonic() + DONE_BOUND
    with _done:
        while not others <= _state["done"] and time.monotonic() < deadline:
            _done.wait(deadline - time.monotonic())
