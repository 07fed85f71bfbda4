"""What the ``mx.sym`` namespace and its sub-namespaces (``contrib``, ``linalg``,
``image``, ``random``) are made of: one composition function per registered operator,
made once (:func:`_fn`), and the front end of MXNet's Python-level operators
(:data:`_FRONTEND`). A module of its own so that the sub-namespaces import it, never the
package that imports them."""
from ..ops import python_level as _python_level
from ..ops import registry as _registry
from .symbol import Symbol, _compose, make_function

_made = {}


def _fn(opname):
    """The ``mx.sym.<opname>`` function (made on first use, then kept)."""
    fn = _made.get(opname)
    if fn is None:
        fn = _made[opname] = make_function(_registry.get(opname), opname)
    return fn


# MXNet's Python-level operator functions (maximum, pow, split_v2...), shared with mx.nd
_FRONTEND = _python_level.Frontend(
    lambda opname, inputs, params: _compose(_registry.get(opname), inputs, params, None,
                                            None, opname), Symbol, True)
