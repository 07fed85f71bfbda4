"""The distributed kvstores (``dist_sync``, ``dist_device_sync``, ``dist_async``) on MPI.

One module per job: :mod:`.mpi` finds mpi4py (the ``xprof-mx[dist]`` extra) and owns the
communicators; :mod:`.comm_thread` is the one thread that calls MPI, in the same order
on every rank; :mod:`.faults` tells the other ranks when one fails; :mod:`.events`
records each collective under MXNet's names with Kineto's argument names;
:mod:`.sync_store` and :mod:`.async_store` are the two stores. ``create`` is what
``mx.kv.create('dist_*')`` calls.
"""

__all__ = ["create", "DIST_TYPES"]

DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_async", "dist_sync_device",
              "dist_device_async")


def create(name):
    """A distributed store of type ``name`` (MPI is initialised on the first one)."""
    if "async" in name:
        from .async_store import AsyncKVStore
        return AsyncKVStore(name)
    from .sync_store import SyncKVStore
    return SyncKVStore(name)
