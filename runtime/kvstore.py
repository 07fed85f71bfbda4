"""``mx.kv`` / ``mx.kvstore``: MXNet's key-value stores and ``create``.

``create('local')`` (or ``'device'``, ``'local_allreduce_cpu'``, ...) gives a one-process
store (:mod:`.kvstore_local`: every copy and sum an engine op, profiled like any array
code); ``'dist_sync'``, ``'dist_device_sync'`` and ``'dist_async'`` the distributed
stores of :mod:`.dist`, on MPI (the ``xprof-mx[dist]`` extra); a class registered with
``@mx.kv.KVStoreBase.register`` its own. Sparse arrays and ``horovod``/``byteps`` are
refused with an error naming them.
"""
from .kvstore_local import _TYPES, KVStore, KVStoreBase, MXNetError, TestStore

__all__ = ["KVStoreBase", "KVStore", "TestStore", "create"]


def create(name="local"):
    """A new store of type ``name`` (single process; see the module docstring)."""
    if not isinstance(name, str):
        raise MXNetError(f"create: name {name!r} must be a str")
    registered = KVStoreBase.kv_registry.get(name.lower())
    if registered is not None:
        return registered()
    if name not in _TYPES:
        from . import dist
        if name in dist.DIST_TYPES:
            return dist.create(name)
        if name.startswith("dist") or name in ("horovod", "byteps"):
            raise MXNetError(f"create: kvstore type {name!r} is not supported; xprof's "
                             "distributed stores are " + ", ".join(dist.DIST_TYPES[:3]))
        raise MXNetError(f"create: unknown kvstore type {name!r}; use one of "
                         + ", ".join(_TYPES + tuple(sorted(KVStoreBase.kv_registry))))
    return KVStore(name)
