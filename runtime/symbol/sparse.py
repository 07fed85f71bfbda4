"""``mx.sym.sparse``: MXNet 1.x's sparse symbol functions, each the operator of ``mx.sym``
of that name (``elemwise_add``, ``dot``, ``retain``...); storage types are the bound
arrays' (see ``ndarray/sparse.py``)."""
from ..ops import registry as _registry


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .functions import _fn
    target = {"retain": "_sparse_retain"}.get(name, name)
    if target not in _registry.registry:
        raise AttributeError(f"module 'mx.sym.sparse' has no attribute {name!r}")
    fn = globals()[name] = _fn(target)
    return fn
