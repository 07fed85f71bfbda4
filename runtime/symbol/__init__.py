"""``mx.sym`` / ``mx.symbol``: symbolic graphs, shape inference, binding and executors.

One composition function per registered operator (``mx.sym.FullyConnected``,
``mx.sym.Convolution``, ``mx.sym.dot``...) is generated from the operator registry, as
``mx.nd`` does for arrays; see :mod:`.symbol` for composition, :mod:`.graph` for nodes,
:mod:`.inference` for shape/dtype inference, :mod:`.serialization` for JSON and
:mod:`.executor` for binding and bulk execution.
"""
from ..ops import python_level as _python_level
from ..ops import registry as _registry
from . import executor, graph, inference, serialization, symbol  # noqa: F401
from .executor import Executor
from .graph import reset_names
from .symbol import Custom, Group, Symbol, Variable, load, load_json, make_function, var
from .functions import _FRONTEND, _fn

__all__ = ["Symbol", "Variable", "var", "Group", "Custom", "Executor", "load", "load_json",
           "zeros", "ones", "full", "arange"]


def zeros(shape, dtype=None, name=None, **kwargs):
    return _fn("_zeros")(shape=tuple(shape) if not isinstance(shape, int) else (shape,),
                         dtype=dtype or "float32", name=name, **kwargs)


def ones(shape, dtype=None, name=None, **kwargs):
    return _fn("_ones")(shape=tuple(shape) if not isinstance(shape, int) else (shape,),
                        dtype=dtype or "float32", name=name, **kwargs)


def full(shape, val, dtype=None, name=None, **kwargs):
    return _fn("_full")(shape=tuple(shape) if not isinstance(shape, int) else (shape,),
                        value=val, dtype=dtype or "float32", name=name, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """``mx.sym.arange``: the ``_arange`` operator, as ``mx.nd.arange``."""
    return _fn("_arange")(start=start, stop=stop, step=step, repeat=repeat,
                          infer_range=infer_range, dtype=dtype or "float32", name=name)


def _populate():
    g = globals()
    for name in list(_registry.registry):      # aliases too (flatten, Concat...)
        if name not in g:
            g[name] = _fn(name)


_populate()
_python_level.install(globals(), _FRONTEND)
# x.slice(...), x.take(...), ...: the same fluent methods as NDArray's
_python_level.attach_fluent(Symbol, globals())

from . import contrib, image, linalg, random, sparse  # noqa: E402,F401 - mx.sym.contrib...
from . import numpy, numpy_extension  # noqa: E402,F401 - mx.sym.np, mx.sym.npx (MXNet 1.x)
import types as _types  # noqa: E402
np, npx = numpy, numpy_extension

# mx.sym._internal: the operators whose names start with "_" (as mx.nd._internal)
_internal = _types.SimpleNamespace(**{n: f for n, f in globals().items()
                                      if n.startswith("_") and n in _registry.registry
                                      and callable(f)})


def __getattr__(name):
    # Operators registered after this module was imported.
    if name in _registry.registry:
        fn = _fn(name)
        globals()[name] = fn
        return fn
    raise AttributeError(f"module 'xprof.runtime.symbol' has no attribute {name!r}")
