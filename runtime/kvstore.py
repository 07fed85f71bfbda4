"""``mx.kv``: the single-process key-value stores (``local``, ``device`` and their
``*_allreduce_*`` spellings), as MXNet 1.x's Module and Gluon Trainer use them.

A store maps keys (all ints or all strings) to NDArrays. ``push`` sums the values given
for a key (one per device in MXNet; any number here) and either stores the sum or, with
an updater (``set_optimizer``/``_set_updater``), calls ``updater(key, summed, stored)``
to update the stored value in place. ``pull`` copies the stored value into every
``out``. All of it is NDArray operations, so it runs on the engine and is profiled.
Distributed stores (``dist_*``) and sparse pulls (``row_sparse_pull``) are not
supported and say so.
"""

from . import optimizer as _optimizer
from .ndarray import NDArray

__all__ = ["KVStore", "create"]

_LOCAL_TYPES = ("local", "device", "local_allreduce_cpu", "local_allreduce_device",
                "local_update_cpu", "nccl")


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class KVStore:
    """A single-process store (see the module docstring)."""

    def __init__(self, kv_type="local"):
        self._type = kv_type
        self._store = {}
        self._key_kind = None
        self._updater = None
        self._optimizer = None

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def _check_key(self, key):
        kind = str if isinstance(key, str) else int if isinstance(key, int) else None
        if kind is None:
            raise ValueError(f"kvstore: key {key!r} must be an int or a str")
        if self._key_kind is None:
            self._key_kind = kind
        elif kind is not self._key_kind:
            raise ValueError(f"kvstore: key {key!r} mixes {kind.__name__} keys with the "
                             f"{self._key_kind.__name__} keys already used")
        return key

    def _pairs(self, key, value):
        """``[(key, [values])]`` from one key or a list of keys."""
        if isinstance(key, (list, tuple)):
            values = list(value)
            if len(values) != len(key):
                raise ValueError(f"kvstore: {len(key)} keys but {len(values)} values")
            return [(self._check_key(k), _as_list(v)) for k, v in zip(key, values)]
        return [(self._check_key(key), _as_list(value))]

    def init(self, key, value):
        """Store an initial value (a copy) for each key; a key is initialized once."""
        for k, vals in self._pairs(key, value):
            if k in self._store:
                raise ValueError(f"kvstore.init: key {k!r} is already initialized")
            self._store[k] = vals[0].copy()

    def _stored(self, k, what):
        try:
            return self._store[k]
        except KeyError:
            raise ValueError(f"kvstore.{what}: key {k!r} is not initialized; call init "
                             "first") from None

    def push(self, key, value, priority=0):
        """Sum the values of each key into its stored value (or through the updater)."""
        for k, vals in self._pairs(key, value):
            stored = self._stored(k, "push")
            for v in vals:
                if getattr(v, "stype", "default") != "default":
                    from .ndarray.sparse import unsupported
                    raise unsupported(f"kvstore.push of a {v.stype} value")
            merged = vals[0].copy() if len(vals) == 1 else vals[0] + vals[1]
            for v in vals[2:]:
                merged += v
            if self._updater is not None:
                self._updater(k, merged, stored)
            else:
                stored[:] = merged

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into its ``out`` array(s)."""
        if out is None:
            raise ValueError("kvstore.pull: out is required (the arrays to fill)")
        for k, outs in self._pairs(key, out):
            stored = self._stored(k, "pull")
            for o in outs:
                if not isinstance(o, NDArray):
                    raise ValueError(f"kvstore.pull: out for key {k!r} must be NDArrays")
                stored.copyto(o)

    def pushpull(self, key, value, out=None, priority=0):
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        from .ndarray.sparse import unsupported
        raise unsupported("kvstore.row_sparse_pull")

    def set_gradient_compression(self, compression_params):
        raise NotImplementedError("kvstore.set_gradient_compression: gradient compression "
                                  "is for distributed stores, which xprof does not have")

    def set_optimizer(self, optimizer):
        """Update stored values with ``optimizer`` when gradients are pushed."""
        self._optimizer = optimizer
        self._set_updater(_optimizer.get_updater(optimizer))

    def _set_updater(self, updater):
        self._updater = updater

    def _barrier(self):
        pass

    barrier = _barrier

    def save_optimizer_states(self, fname, dump_optimizer=False):
        if self._updater is None or not hasattr(self._updater, "get_states"):
            raise ValueError("kvstore.save_optimizer_states: no optimizer is set")
        with open(fname, "wb") as f:
            f.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        if self._updater is None or not hasattr(self._updater, "set_states"):
            raise ValueError("kvstore.load_optimizer_states: no optimizer is set")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())


def create(name="local"):
    """A store of type ``name`` (local ones only)."""
    if not isinstance(name, str):
        raise ValueError(f"kvstore type {name!r} must be a string")
    if name not in _LOCAL_TYPES:
        raise NotImplementedError(f"kvstore type {name!r} is not supported by xprof: one "
                                  f"process only ({', '.join(_LOCAL_TYPES)})")
    return KVStore(name)
