"""The one-process key-value stores behind ``mx.kv`` (:mod:`.kvstore` is the namespace
and its ``create``; the distributed stores of :mod:`.dist` build on these).

``create('local')`` (or ``'device'``, ``'local_allreduce_cpu'``,
``'local_allreduce_device'``, ``'local_update_cpu'``, ``'nccl'``) gives a store holding
one array per key: ``init`` stores a copy, ``push`` sums the values given for a key
(a list: one per device, the aggregation of data parallelism) and, with an updater
(``set_optimizer``, ``_set_updater``), calls ``updater(key, summed, stored)``, else
replaces the stored value; ``pull`` copies the stored value into every ``out`` array.
Every copy and sum is an engine op (``CopyCPU2CPU``, ``add_n``), pushed and not waited
for, so a store is profiled like any other array code. Keys are ints or strings, one
kind per store, as in MXNet; bad input raises a ValueError that is an ``MXNetError``
too. ``row_sparse_pull`` copies the rows asked for (sparse arrays keep dense values);
``horovod``/``byteps`` are refused with an
error naming them; the distributed stores (``dist_sync``, ``dist_device_sync``,
``dist_async``) are in :mod:`.dist`, on MPI (the ``xprof-mx[dist]`` extra).

``KVStoreBase`` is MXNet's interface for stores written in Python:
``@mx.kv.KVStoreBase.register`` makes ``create('<class name lower-cased>')`` build one
(``create`` looks there first). ``TestStore`` ('teststore', MXNet's own example) sums
with ``pushpull`` and cannot run an optimizer, so a Trainer updates beside it.
"""
import pickle
import warnings

from . import optimizer as _opt
from .base import mxnet_error_type
from .ndarray import ndarray as _nd

__all__ = ["KVStoreBase", "KVStore", "TestStore", "MXNetError"]

# bad input: a ValueError that is also MXNet's MXNetError (what MXNet users catch)
MXNetError = mxnet_error_type(ValueError)

_TYPES = ("local", "device", "local_allreduce_cpu", "local_allreduce_device",
          "local_update_cpu", "nccl")


def _listify(key, value, what):
    """([keys], [[values of each key]]) from a key or list of keys and their values."""
    if isinstance(key, (list, tuple)):
        keys = list(key)
        if not isinstance(value, (list, tuple)) or len(value) != len(keys):
            raise MXNetError(f"{what}: {len(keys)} keys need a list of {len(keys)} values")
        vals = list(value)
    else:
        keys, vals = [key], [value]
    out = []
    for k, v in zip(keys, vals):
        group = list(v) if isinstance(v, (list, tuple)) else [v]
        if not group:
            raise MXNetError(f"{what}: no value given for key {k!r}")
        for a in group:
            if not isinstance(a, _nd.NDArray):
                raise MXNetError(f"{what}: the value of key {k!r} is "
                                 f"{type(a).__name__}, not an NDArray")
        out.append(group)
    return keys, out


def _same_shape(what, key, arrays, stored):
    for a in arrays:
        if a.shape != stored.shape:
            raise MXNetError(f"{what}: an array given for key {key!r} has shape {a.shape}, "
                             f"the stored value {stored.shape}")


class KVStoreBase:
    """The interface of a key-value store; subclasses registered with ``register`` are
    created by name."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    @staticmethod
    def register(klass):
        """Class decorator: ``mx.kv.create(klass.__name__.lower())`` builds a ``klass``."""
        if not isinstance(klass, type):
            raise MXNetError(f"register: {klass!r} is not a class")
        name = klass.__name__.lower()
        old = KVStoreBase.kv_registry.get(name)
        if old is not None and old is not klass:
            warnings.warn(f"WARNING: New kvstore {klass.__module__}.{klass.__name__} is "
                          f"overriding existing kvstore {old.__module__}.{old.__name__}",
                          stacklevel=2)
        KVStoreBase.kv_registry[name] = klass
        return klass

    def broadcast(self, key, value, out, priority=0):
        raise NotImplementedError(f"{type(self).__name__}.broadcast")

    def pushpull(self, key, value, out=None, priority=0):
        raise NotImplementedError(f"{type(self).__name__}.pushpull")

    def set_optimizer(self, optimizer):
        raise NotImplementedError(f"{type(self).__name__}.set_optimizer")

    @staticmethod
    def is_capable(capability):
        raise NotImplementedError("is_capable")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError(f"{type(self).__name__}.save_optimizer_states")

    def load_optimizer_states(self, fname):
        raise NotImplementedError(f"{type(self).__name__}.load_optimizer_states")

    @property
    def type(self):
        raise NotImplementedError("type")

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's example Python store: ``pushpull`` sums the values (as copies on the
    first value's context) into ``out`` (or back into the values); no optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for o in out if isinstance(out, (list, tuple)) else [out]:
            value.copyto(o)

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, _nd.NDArray):
            if out is not None:
                for o in out if isinstance(out, (list, tuple)) else [out]:
                    value.copyto(o)
            return
        ctx = value[0].context
        total = _nd.invoke("add_n", tuple(v.as_in_context(ctx) for v in value), {})
        targets = value if out is None else (out if isinstance(out, (list, tuple))
                                             else [out])
        for o in targets:
            total.copyto(o)

    @staticmethod
    def is_capable(capability):
        if str(capability).lower() == KVStoreBase.OPTIMIZER:
            return False
        raise MXNetError(f"is_capable: unknown capability {capability!r}; use "
                         f"{KVStoreBase.OPTIMIZER!r}")

    @property
    def type(self):
        return "teststore"


class KVStore(KVStoreBase):
    """A single-process key-value store (see the module docstring)."""

    def __init__(self, kind="local"):
        self._type = kind
        self._store = {}
        self._key_kind = None
        self._updater = None
        self._optimizer = None

    # -- what it is ------------------------------------------------------------------------
    @property
    def type(self):
        return self._type

    @staticmethod
    def is_capable(capability):
        return str(capability).lower() == KVStoreBase.OPTIMIZER

    # -- keys --------------------------------------------------------------------------------
    def _check_key(self, key, what):
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise MXNetError(f"{what}: key {key!r} must be an int or a str")
        kind = str if isinstance(key, str) else int
        if self._key_kind is None:
            self._key_kind = kind
        elif kind is not self._key_kind:
            raise MXNetError(f"{what}: key {key!r} is a {kind.__name__}, but this store's "
                             f"keys are {self._key_kind.__name__}s (one kind per store)")
        return key

    def _stored(self, key, what):
        self._check_key(key, what)
        if key not in self._store:
            raise MXNetError(f"{what}: key {key!r} has not been initialized (call init "
                             "first)")
        return self._store[key]

    # -- the operations ------------------------------------------------------------------
    def init(self, key, value):
        """Store a copy of ``value`` under ``key`` (lists: one value per key)."""
        keys, groups = _listify(key, value, "init")
        for k, group in zip(keys, groups):
            self._check_key(k, "init")
            if k in self._store:
                raise MXNetError(f"init: key {k!r} is already initialized")
            self._store[k] = group[0].copyto(group[0].context)

    def push(self, key, value, priority=0):
        """Sum the values of each key and update (or replace) the stored value."""
        keys, groups = _listify(key, value, "push")
        for k, group in zip(keys, groups):
            stored = self._stored(k, "push")
            _same_shape("push", k, group, stored)
            merged = group[0] if len(group) == 1 else _nd.invoke("add_n", tuple(group), {})
            if self._updater is not None:
                if merged is group[0]:
                    merged = merged.copyto(stored.context)   # the updater may keep it
                self._updater(k, merged, stored)
            else:
                merged.copyto(stored)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored value of each key into its ``out`` array(s); sparse ``out``
        arrays are left as they are unless ``ignore_sparse=False`` (as MXNet's pull)."""
        for _, group, stored in self._pulls(key, out):
            for o in group:
                if ignore_sparse and o.stype != "default":
                    continue
                stored.copyto(o)

    def _pulls(self, key, out):
        """``(key, out arrays, stored array)`` of each key of a pull, checked (every store
        kind's pull starts here)."""
        if out is None:
            raise MXNetError("pull: out is required (the arrays to copy into)")
        keys, groups = _listify(key, out, "pull")
        for k, group in zip(keys, groups):
            stored = self._stored(k, "pull")
            _same_shape("pull", k, group, stored)
            yield k, group, stored

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull(key, out)`` (``out`` defaults to ``value``)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority, ignore_sparse=False)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` (or, for a key already stored, a copy of ``value`` into
        it) then ``pull(key, out)``."""
        if isinstance(key, (int, str)) and not isinstance(key, bool) and key in self._store:
            _same_shape("broadcast", key, [value], self._store[key])
            value.copyto(self._store[key])
        else:
            self.init(key, value)
        self.pull(key, out, priority, ignore_sparse=False)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy the rows ``row_ids`` of each key's stored value into its ``out`` (the other
        rows zero): a row_sparse pull, values kept dense (see ``ndarray/sparse.py``)."""
        if row_ids is None:
            raise MXNetError("row_sparse_pull: row_ids is required")
        from .ndarray.ndarray import invoke
        pulls = list(self._pulls(key, out))
        for _, group, _ in pulls:
            for o in group:
                if o.stype != "row_sparse":
                    raise MXNetError(f"row_sparse_pull: out has storage type {o.stype!r}; "
                                     "it must be 'row_sparse' (use pull for dense arrays)")
        per_key = row_ids if isinstance(key, (list, tuple)) else [row_ids]   # per key
        for (_, group, stored), ids in zip(pulls, per_key):
            ids = ids if isinstance(ids, (list, tuple)) else [ids] * len(group)
            if len(ids) != len(group):
                raise MXNetError(f"row_sparse_pull: {len(ids)} row_ids for {len(group)} "
                                 "outputs")
            for o, r in zip(group, ids):
                invoke("_sparse_retain", (stored, r.as_in_context(stored.context)), {},
                       out=o)

    # -- updates ---------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Apply ``optimizer`` to every push (``updater(key, grad, weight)``)."""
        if not isinstance(optimizer, _opt.Optimizer):
            raise MXNetError(f"set_optimizer: {optimizer!r} is not an mx.optimizer."
                             "Optimizer")
        self._optimizer = optimizer
        self._set_updater(_opt.get_updater(optimizer))

    def _set_updater(self, updater):
        if not callable(updater):
            raise MXNetError(f"_set_updater: {updater!r} is not callable")
        self._updater = updater

    def set_gradient_compression(self, compression_params):
        raise MXNetError("set_gradient_compression: gradient compression is not "
                         "supported by xprof's kvstores")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        if not isinstance(self._updater, _opt.Updater):
            raise MXNetError("save_optimizer_states: no optimizer was set (set_optimizer)")
        with open(fname, "wb") as f:
            f.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        if not isinstance(self._updater, _opt.Updater):
            raise MXNetError("load_optimizer_states: no optimizer was set (set_optimizer)")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def __getstate__(self):
        raise pickle.PicklingError("a KVStore cannot be pickled")
