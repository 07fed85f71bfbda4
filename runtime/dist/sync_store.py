"""``dist_sync`` / ``dist_device_sync``: MXNet's synchronous distributed kvstore on MPI.

MXNet 1.x keeps the weights on parameter servers: every worker pushes its gradient, the
server sums the pushes of all workers, applies the optimizer once, and every worker
pulls the result. Here every rank keeps the stored value itself and does the server's
work identically: ``push`` sums the values given for a key on this rank
(``KVStoreReduce``, the local reduction), allreduces that sum over the ranks
(``KVStoreDistDefaultPush``), then applies the updater to it (or, without one, stores
the sum, as MXNet's server does); since every rank applies the same update to the same
sum, the stored values stay equal, and ``pull`` is a local copy
(``KVStoreDistDefaultStoragePull``). ``init`` and ``broadcast`` store rank 0's value on
every rank (MXNet: only rank 0's init reaches the servers). ``dist_device_sync`` is the
same store (MXNet's reduces on the GPU first; contexts are labels here).

Every step is an engine op, pushed and not waited for; collectives run on the comm
thread in push order (:mod:`.collectives`). The optimizer is this rank's own object
(each rank runs the same script, so it is the same optimizer; MXNet would ship rank 0's
to the servers), which keeps ``Trainer.set_learning_rate`` working.
"""
import numpy as np

from .. import _env
from ..engine.base import MODE_IMPERATIVE
from ..kvstore_local import KVStore, MXNetError, _listify, _same_shape
from ..ndarray import ndarray as _nd
from . import collectives, comm_thread, faults, mpi

__all__ = ["SyncKVStore", "bigarray_bound"]

PUSH = "KVStoreDistDefaultPush"
PULL = "KVStoreDistDefaultStoragePull"
PUSHPULL = "KVStoreDistDefaultStoragePushPull"
REDUCE = "KVStoreReduce"


def bigarray_bound():
    """Elements per chunk of a big key (``MXNET_KVSTORE_BIGARRAY_BOUND``, MXNet's 10^6)."""
    return _env.get_int("KVSTORE_BIGARRAY_BOUND", 1000 * 1000)


def _dense(what, key, arrays):
    for a in arrays:
        if getattr(a, "stype", "default") != "default":
            raise MXNetError(f"{what}: key {key!r} has a {a.stype} array; the distributed "
                             "kvstores of xprof take dense arrays only")


def _sum_into(out, *values):
    """The sum of several arrays into a new buffer (summed in place: it is ours)."""
    total = values[0]._data + values[1]._data
    for v in values[2:]:
        np.add(total, v._data, out=total)
    out._data = total


def _copy_to_all(src, *outs):
    """``outs`` take ``src``'s values by sharing its buffer: kernels never write into an
    array's buffer (each result is a new one), so a shared buffer never changes."""
    for o in outs:
        o._data = src._data


class SyncKVStore(KVStore):
    """See the module docstring."""

    def __init__(self, kind="dist_sync"):
        super().__init__(kind)
        self._world = mpi.world(f"kvstore {kind!r}")
        faults.start(self._world)
        self._comm = comm_thread.shared()
        self._bound = bigarray_bound()

    @property
    def rank(self):
        return self._world.rank

    @property
    def num_workers(self):
        return self._world.size

    # -- engine ops ------------------------------------------------------------------------
    def _reduce(self, key, group):
        """The local sum of several values of a key (one value: itself)."""
        if len(group) == 1:
            return group[0]
        first = group[0]
        out = _nd.new_array(first.shape, first._dtype, first.context, REDUCE)
        _nd.engine_push(_sum_into, (out, *group), list(group), [out], REDUCE, 0,
                        MODE_IMPERATIVE, 0, {"Key": str(key), "In msg nelems": first.size,
                                             "Values": len(group)})
        return out

    def _pull_local(self, key, stored, outs, prio=0):
        _nd.engine_push(_copy_to_all, (stored, *outs), [stored], list(outs), PULL, prio,
                        MODE_IMPERATIVE, 0, {"Key": str(key), "Out msg nelems": stored.size,
                                             "dtype": stored._dtype.name})

    def _allreduce(self, key, value, name, prio):
        summed = _nd.new_array(value.shape, value._dtype, value.context, name)
        collectives.push_collective(self._world, name, collectives.ALLREDUCE, key, value,
                                    summed, self._bound, prio)
        return summed

    # -- the operations ------------------------------------------------------------------
    def init(self, key, value):
        """Store rank 0's value of each key on every rank."""
        keys, groups = _listify(key, value, "init")
        for k, group in zip(keys, groups):
            self._check_key(k, "init")
            _dense("init", k, group)
            if k in self._store:
                raise MXNetError(f"init: key {k!r} is already initialized")
            src = group[0]
            stored = _nd.new_array(src.shape, src._dtype, src.context, "kvstore")
            collectives.push_collective(self._world, PULL, collectives.BROADCAST, k, src,
                                        stored, self._bound)
            self._store[k] = stored

    def push(self, key, value, priority=0):
        self._push(key, value, priority, PUSH)

    def _push(self, key, value, priority, name):
        keys, groups = _listify(key, value, "push")
        for k, group in zip(keys, groups):
            stored = self._stored(k, "push")
            _same_shape("push", k, group, stored)
            _dense("push", k, group)
            summed = self._allreduce(k, self._reduce(k, group), name, priority)
            if self._updater is not None:
                self._updater(k, summed, stored)
            else:
                self._pull_local(k, summed, [stored], priority)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored value of each key (equal on every rank) into ``out``."""
        for k, group, stored in self._pulls(key, out):
            _dense("pull", k, group)
            self._pull_local(k, stored, group, priority)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull``; without an updater one op per key, as MXNet's
        ``PushPull`` is one request: the allreduce writes the sum into the stored value
        and into ``out`` at once (no op between, no thread hand-over)."""
        if self._updater is not None:
            self._push(key, value, priority, PUSHPULL)
            self.pull(key, value if out is None else out, priority)
            return
        keys, groups = _listify(key, value, "pushpull")
        pulls = list(self._pulls(key, value if out is None else out))
        for k, group in zip(keys, groups):   # every key checked before any op is pushed
            _same_shape("pushpull", k, group, self._stored(k, "pushpull"))
            _dense("pushpull", k, group)
        for k, group, (_, outs, stored) in zip(keys, groups, pulls):
            _dense("pull", k, outs)
            collectives.push_collective(self._world, PUSHPULL, collectives.ALLREDUCE, k,
                                        self._reduce(k, group), [stored, *outs],
                                        self._bound, priority)

    def broadcast(self, key, value, out, priority=0):
        """Rank 0's ``value`` into the store (once per key) and into every ``out``."""
        if isinstance(key, (int, str)) and not isinstance(key, bool) and key in self._store:
            stored = self._store[key]
            _same_shape("broadcast", key, [value], stored)
            collectives.push_collective(self._world, PULL, collectives.BROADCAST, key,
                                        value, stored, self._bound, priority)
        else:
            self.init(key, value)
        self.pull(key, out, priority)

    def barrier(self):
        """Wait until every rank reaches this point (in order with the collectives
        pushed before it)."""
        self._comm.call(lambda: self._world.data.Barrier())

    def _barrier(self):
        self.barrier()

    def set_gradient_compression(self, compression_params):
        raise MXNetError("set_gradient_compression: gradient compression is not "
                         "supported by xprof's distributed kvstores")

    def _send_command_to_servers(self, head, body):
        raise MXNetError("_send_command_to_servers: xprof's distributed kvstores have no "
                         "server processes (every rank applies the updates)")
