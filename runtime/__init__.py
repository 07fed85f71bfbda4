"""xprof's runtime: an asynchronous, MXNet-1.x-shaped array engine with a profiler.

``import xprof.runtime as mx`` gives ``mx.nd``, ``mx.sym``, ``mx.autograd``,
``mx.operator``, ``mx.gluon``, ``mx.profiler``, ``mx.random``, ``mx.init``, contexts and
devices, so that an MXNet 1.x profiling script runs after changing its import line.
See docs/architecture.md for how an op travels from an ``mx.nd`` call to a trace event.
"""
import importlib

from xprof.traces.version import version as _version

__version__ = _version()

from . import _env  # noqa: E402

_env.check_at_import()   # every XPROF_*/MXNET_* setting, before any of them is used
from . import engine, context, profiler  # noqa: E402
from .context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus  # noqa: E402
from . import ndarray, autograd, random, device  # noqa: E402
from .ndarray import NDArray, waitall  # noqa: E402

nd = ndarray
_LAZY = {"sym": "symbol", "symbol": "symbol", "operator": "operator", "gluon": "gluon",
         "init": "initializer", "initializer": "initializer", "optimizer": "optimizer",
         "executor": "symbol.executor", "test_utils": "test_utils", "metric": "metric",
         "io": "io", "lr_scheduler": "lr_scheduler", "base": "base", "util": "util",
         "name": "name", "attribute": "attribute", "runtime": "runtime", "np": "numpy",
         "numpy": "numpy", "kv": "kvstore", "kvstore": "kvstore", "mod": "module",
         "module": "module", "model": "model", "rnn": "rnn", "callback": "callback",
         "visualization": "visualization", "viz": "visualization", "contrib": "contrib",
         "recordio": "recordio", "image": "image", "img": "image", "npx": "numpy_extension",
         "numpy_extension": "numpy_extension",
         "mon": "monitor", "monitor": "monitor"}
# Names MXNet exposes at the top level, from the module that holds them.
_LAZY_NAMES = {"AttrScope": ("attribute", "AttrScope"), "np_shape": ("util", "np_shape"),
               "use_np_shape": ("util", "use_np_shape"), "is_np_shape": ("util", "is_np_shape"),
               "set_np_shape": ("util", "set_np_shape"), "is_np_array": ("util", "is_np_array"),
               "np_array": ("util", "np_array"), "use_np_array": ("util", "use_np_array"),
               "use_np": ("util", "use_np"), "set_np": ("util", "set_np"),
               "reset_np": ("util", "reset_np"), "current_device": ("device", "current_device"),
               "Device": ("device", "Device"),
               "MXNetError": ("base", "MXNetError")}


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None and name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        value = getattr(importlib.import_module("." + module, __name__), attr)
        globals()[name] = value
        return value
    if target is None:
        raise AttributeError(f"module 'xprof.runtime' has no attribute {name!r}")
    try:
        module = importlib.import_module("." + target, __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{target}":
            raise
        raise AttributeError(f"module 'xprof.runtime' has no attribute {name!r} "
                             f"(xprof has no mx.{name})") from None
    globals()[name] = module
    return module


profiler.session.autostart_from_env()

__all__ = ["nd", "ndarray", "autograd", "profiler", "random", "context", "device", "engine",
           "Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "NDArray",
           "waitall", "sym", "symbol", "operator", "gluon", "init", "initializer",
           "__version__"]
