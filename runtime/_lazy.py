"""Names a namespace module gets from a layer above it, resolved on first use.

MXNet's API puts some names in low namespaces whose code needs higher layers
(``mx.nd.CachedOp`` runs a Gluon block, ``mx.autograd.get_symbol`` builds a Symbol). The
namespace declares them in a table, ``name -> (module under xprof.runtime, attribute)``,
and its module ``__getattr__`` calls :func:`resolve`: the low layer never imports the
high one, and the dependency is written down in one place."""
import importlib


def resolve(namespace, table, name, module_name):
    """``name`` from ``table`` (an attribute, or the module itself when the attribute is
    None), imported now and kept in ``namespace`` (a module's
    globals); AttributeError, as Python's own, when the table does not have it."""
    if name not in table:
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
    module, attr = table[name]
    found = importlib.import_module("xprof.runtime." + module)
    value = namespace[name] = found if attr is None else getattr(found, attr)
    return value
