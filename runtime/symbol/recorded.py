"""``mx.autograd.get_symbol``: the computation autograd recorded, as a Symbol. It lives
in the Symbol layer, which sits above autograd; ``mx.autograd`` resolves the name on
first use (``autograd.LAZY_NAMES``)."""
from .. import autograd as _autograd
from .graph import _Node, _auto_name
from .symbol import Symbol

__all__ = ["get_symbol"]


def get_symbol(x):
    """The recorded computation of ``x`` as a Symbol (MXNet's ``autograd.get_symbol``):
    one node per recorded operator, arrays that were not computed under recording
    become variables ``var0``, ``var1``... An ``autograd.Function`` or a hybridized block
    in the history has no operator to show and is refused."""
    if x._ag is None:
        raise ValueError("get_symbol: the array was not computed inside autograd.record()")
    built, variables = {}, {}

    def entry(arr):
        if arr._ag is None:
            v = variables.get(id(arr))
            if v is None:
                v = variables[id(arr)] = (_Node(None, f"var{len(variables)}"), 0)
            return v
        node, i = arr._ag
        return (built[id(node)], i)

    for node in _autograd._recorded_order([x]):
        op = node.op
        if op is None:
            raise ValueError("get_symbol: the history holds a custom function or a "
                             "hybridized block, which has no operator node")
        params = {k: v for k, v in node.params.items() if k != "rng"}
        built[id(node)] = _Node(op, _auto_name(op.name.lower().lstrip("_")), params,
                                [entry(a) for a in node.inputs],
                                len(node.inputs) - len(op.list_aux(params)))
    return Symbol([entry(x)])
