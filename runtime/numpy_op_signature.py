"""``mx.numpy_op_signature``: the ``mx.np``/``mx.npx`` function an operator named
``_np_<name>``/``_npx_<name>`` is the front door of."""
import importlib

__all__ = ["_get_builtin_op"]


def _get_builtin_op(op_name):
    for prefix, module in (("_npx_", "numpy_extension"), ("_np_", "numpy")):
        if op_name.startswith(prefix):
            namespace = importlib.import_module("xprof.runtime." + module)
            name = op_name[len(prefix):]
            for sub in ("linalg", "random"):
                if name.startswith(sub + "_") and hasattr(namespace, sub):
                    return getattr(getattr(namespace, sub), name[len(sub) + 1:], None)
            return getattr(namespace, name, None)
    return None
