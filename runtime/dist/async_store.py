"""``dist_async``: updates applied as they arrive, by a server on rank 0.

MXNet's asynchronous store has parameter servers that apply each worker's push as soon
as it arrives, without waiting for the other workers; a pull returns whatever the
server holds then. Here the server is a thread of rank 0 (:class:`Server`) holding the
stored values; every rank (rank 0 too) is a worker that talks to it with MPI
point-to-point messages on the server communicator:

* ``init``: rank 0 sends its value (MXNet: only rank 0's init reaches the servers), then
  every rank waits at a barrier, so no push reaches a key before it exists;
* ``set_optimizer``: as in MXNet, every worker sends its optimizer to the server and
  returns once the server has one, so its own later pushes never arrive before any.
  Rank 0's (in-process) is the server's updater; another rank's is used only until
  rank 0's arrives (an SPMD script gives the same optimizer on every rank);
* ``push``: the local sum of the values given (``KVStoreReduce``) is sent; the server
  runs the updater on it at once and acknowledges, so a push completes when it was
  applied; without an optimizer a push is refused, as MXNet's async server refuses it;
* ``pull``: the server replies with the value it holds now.

Each push and pull is an engine op handed to the comm thread (:mod:`.comm_thread`),
like the sync stores' collectives, so they are asynchronous and ordered by their
arrays; each worker's messages reach the server in the order it sent them (MPI does
not overtake between one pair of processes). The server polls for requests
(``MPI_Iprobe``, :data:`IDLE` s apart when none came) rather than blocking in a
receive, which in MPICH spins a core. Rank 0's exit waits for every other rank's
goodbye (or a failure) before the server stops. Not under NaiveEngine, whose pushes
run while holding the engine: rank 0's server could not run the updater meanwhile.
"""
import atexit
import itertools
import pickle
import threading
import time
from time import perf_counter_ns

import numpy as np

from .. import engine as _engine
from ..engine.base import MODE_INTERNAL
from ..kvstore_local import KVStore, MXNetError, _listify, _same_shape
from ..ndarray import ndarray as _nd
from .. import optimizer as _opt
from . import comm_thread, events, faults, mpi
from .sync_store import PULL, PUSH, PUSHPULL, SyncKVStore, _dense

__all__ = ["AsyncKVStore", "Server"]

IDLE = 0.0005        # s between two looks for a request when none came
_REQ, _REP = 11, 12
_store_ids = itertools.count()


class Server:
    """Rank 0's server thread: the stored values of every async store, by store id."""

    def __init__(self, world):
        self.world = world
        self.values = {}        # (store id, key) -> NDArray
        self.updaters = {}      # store id -> updater (rank 0's store sets it)
        self.byes = 0
        self.done = threading.Event()
        self.failure = None
        faults.on_failure(self._fail)
        self.thread = threading.Thread(target=self._loop, name="xprof kvstore server",
                                       daemon=True)
        self.thread.start()

    def _fail(self, exc):
        self.failure = exc
        self.done.set()

    def _loop(self):
        MPI, comm = self.world.MPI, self.world.server
        status = MPI.Status()
        while self.byes < self.world.size - 1 and self.failure is None:
            if not comm.Iprobe(source=MPI.ANY_SOURCE, tag=_REQ, status=status):
                time.sleep(IDLE)
                continue
            source = status.Get_source()
            request = comm.recv(source=source, tag=_REQ)
            if request[0] == "bye":
                self.byes += 1
                continue
            try:
                reply = self._handle(*request)
            except Exception as e:  # noqa: BLE001 - the worker raises it
                reply = ("error", f"{type(e).__name__}: {e}")
            comm.send(reply, dest=source, tag=_REP)
        self.done.set()

    def _handle(self, what, store, key, data=None):
        if what == "optimizer":   # another rank's: only until rank 0's is set
            if store not in self.updaters:
                self.updaters[store] = _opt.get_updater(pickle.loads(data))
            return ("ok",)
        if what == "init":
            self.values[(store, key)] = _nd.from_numpy(data)
            return ("ok",)
        stored = self.values.get((store, key))
        if stored is None:
            return ("error", f"key {key!r} has not been initialized (call init first)")
        if what == "pull":
            return ("ok", stored.asnumpy())
        updater = self.updaters.get(store)
        if updater is None:
            return ("error", "dist_async applies pushes with an optimizer: call "
                             "set_optimizer first (MXNet's async server needs one too)")
        updater(key, _nd.from_numpy(data), stored)
        stored.wait_to_read()
        return ("ok",)


_server = []


def _the_server(world):
    if not _server:
        _server.append(Server(world))
        atexit.register(_wait_for_workers)
    return _server[0]


def _wait_for_workers():
    """At rank 0's exit: serve until every other rank said goodbye (or one failed)."""
    _server[0].done.wait()


class AsyncKVStore(SyncKVStore):
    """See the module docstring. Shares the sync store's key checks, local reduction,
    pull copies and barrier; its pushes and pulls go to the server."""

    def __init__(self, kind="dist_async"):
        if _engine.get().synchronous:
            raise MXNetError(f"create: {kind!r} needs the threaded engine: under "
                             "NaiveEngine rank 0's server thread could not run its "
                             "updates while the script's push holds the engine "
                             "(unset XPROF_ENGINE_TYPE)")
        KVStore.__init__(self, kind)
        self._world = mpi.world(f"kvstore {kind!r}")
        faults.start(self._world)
        self._comm = comm_thread.shared()
        self._id = next(_store_ids)      # the same on every rank (created in one order)
        self._server = _the_server(self._world) if self._world.rank == 0 else None
        if not _goodbye_registered:
            _goodbye_registered.append(atexit.register(_goodbye, self._world))

    # -- messages, on the comm thread --------------------------------------------------
    def _ask(self, request):
        comm = self._world.server
        comm.send(request, dest=0, tag=_REQ)
        reply = comm.recv(source=0, tag=_REP)
        if reply[0] == "error":
            raise MXNetError(f"{self._type}: {reply[1]}")
        return reply

    def _message_op(self, name, key, reads, writes, request, on_reply):
        """Push the engine op ``name``: on the comm thread, send ``request()`` (built
        there, from the arrays read) and hand the reply to ``on_reply``."""
        comm = self._comm
        ticket = comm.ticket()
        eng = _engine.get()
        world = self._world

        def op(on_complete, *arrays):
            finished = threading.Event()
            failed = next((a.exc for a in reads if a.exc is not None), None)

            def job():
                if failed is not None:
                    return
                t0 = perf_counter_ns()
                message = request()
                reply = self._ask(message)
                on_reply(reply)
                t1 = perf_counter_ns()
                ref = writes[0] if writes else reads[0]
                args = events.kineto_args("send" if message[0] != "pull" else "recv",
                                          ref.size, ref._dtype, world, ticket, key)
                events.record(name, t0, t1, args, (("transfer", t0, t1),))

            def done(exc):
                on_complete(exc if exc is not None else failed)
                finished.set()

            comm.submit(ticket, job, done)
            if eng.synchronous:
                finished.wait()

        eng.push_async(op, tuple(reads) + tuple(writes), list(reads), list(writes), name,
                       0, MODE_INTERNAL, 0)

    # -- the operations ------------------------------------------------------------------
    def init(self, key, value):
        keys, groups = _listify(key, value, "init")
        for k, group in zip(keys, groups):
            self._check_key(k, "init")
            _dense("init", k, group)
            if k in self._store:
                raise MXNetError(f"init: key {k!r} is already initialized")
            src = group[0]
            self._store[k] = _nd.new_array(src.shape, src._dtype, src.context, "kvstore")
            if self._world.rank == 0:
                self._message_op(PUSH, k, [src], [],
                                 lambda src=src, k=k: ("init", self._id, k, src._data.copy()),
                                 lambda reply: None)
        self.barrier()   # every rank waits for rank 0's values to reach the server

    def _push(self, key, value, priority, name):
        keys, groups = _listify(key, value, "push")
        for k, group in zip(keys, groups):
            stored = self._stored(k, "push")
            _same_shape("push", k, group, stored)
            _dense("push", k, group)
            merged = self._reduce(k, group)
            self._message_op(name, k, [merged], [], lambda merged=merged, k=k:
                             ("push", self._id, k, merged._data), lambda reply: None)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        for k, group, stored in self._pulls(key, out):
            _dense("pull", k, group)

            def keep(reply, stored=stored):
                stored._data = np.asarray(reply[1], dtype=stored._dtype).reshape(
                    stored.shape)
            self._message_op(PULL, k, [], [stored], lambda k=k: ("pull", self._id, k),
                             keep)
            self._pull_local(k, stored, group, priority)

    def pushpull(self, key, value, out=None, priority=0):
        self._push(key, value, priority, PUSHPULL)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        if not (isinstance(key, (int, str)) and key in self._store):
            self.init(key, value)
        self.pull(key, out, priority)

    def set_optimizer(self, optimizer):
        """Rank 0's optimizer becomes the server's updater (:meth:`_set_updater`); every
        other rank sends its own and waits until the server has an updater, as MXNet's
        workers do: a push of that rank made before rank 0's arrived was refused, and
        nothing waited on it to report it (a dist_async job's sum came out short)."""
        super().set_optimizer(optimizer)
        if self._server is None:
            data = pickle.dumps(optimizer)
            self._comm.call(lambda: self._ask(("optimizer", self._id, None, data)))

    def _set_updater(self, updater):
        super()._set_updater(updater)
        if self._server is not None:     # rank 0: its updater runs on the server
            self._server.updaters[self._id] = updater


_goodbye_registered = []


def _goodbye(world):
    """At a worker's exit: tell the server it will send nothing more."""
    if world.rank != 0 and faults.healthy():
        world.server.send(("bye",), dest=0, tag=_REQ)
