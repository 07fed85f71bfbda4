"""The graph of a ``forward``-style HybridBlock (MXNet 2's), made by recording one call.

MXNet 2's blocks define ``forward(self, x)`` with ``mx.np``/``npx`` functions, not
``hybrid_forward(F, ...)``: they cannot be called on Symbols. MXNet builds their graph
by running ``forward`` once in "deferred compute" mode; xprof does the same with the
autograd tape: the block's first hybridized call runs its ``forward`` imperatively while
every operator it calls is recorded (``autograd.state.tape``), and the recorded nodes
reachable from its outputs become the graph, one node per operator:

- the call's input arrays are the graph's inputs (``data``, ``data0``...), the arrays of
  the block's parameters are its variables (named after the parameters), any other
  array an operator read that was not made by a recorded operator (an ``mx.np.array``
  made from Python data inside ``forward``) is a constant bound with that value;
- each node is named after the layer whose call pushed it (``dense0_fwd``,
  ``dense0_fwd1``...): its events in a profile carry the layer's name, as the nodes of a
  ``hybrid_forward`` graph do;
- hybridized children run imperatively while being recorded (their operators join the
  parent's graph, as in MXNet, where hybridizing the outer block makes one graph).

That first call's results are returned as they are (the operators ran once, so a
BatchNorm's running statistics are updated once); when the caller records for autograd
the recorded nodes are also its backward, otherwise they are dropped. Later calls with
the same input signature run the graph through the symbolic executor (``_hybrid.py``).

A ``forward`` whose history holds something that is not an operator (an
``autograd.Function``) has no graph: the block then runs imperatively, and says so once.
"""
import threading
import warnings

from .. import autograd
from ..ndarray import ndarray as _nd
from ._structure import _flatten, regroup_inputs

__all__ = ["tracing", "needs_trace", "trace_call", "Untraceable"]


class Untraceable(ValueError):
    """A forward whose operators cannot all be graph nodes."""


class _Tracing(threading.local):
    depth = 0


_tracing = _Tracing()


def tracing():
    """True while a block's forward is being recorded into a graph on this thread:
    hybridized blocks inside run imperatively."""
    return _tracing.depth > 0


def needs_trace(block):
    """True if ``block`` or a block inside it defines ``forward`` itself (MXNet 2's
    style): its graph can only be made by recording a call."""
    todo = [block]
    while todo:
        b = todo.pop()
        if getattr(type(b), "_forward_style", False):
            return True
        todo.extend(b._children.values())
    return False


def _sym():
    from .. import symbol
    return symbol


class Traced:
    """What recording one call gave: the graph (``symbol``, ``input_names``, ``fmt``),
    the Parameter of each variable (``params``), the constants, and the call's result."""

    __slots__ = ("symbol", "input_names", "fmt", "params", "consts", "result", "classes")


def trace_call(block, args, in_fmt, input_names):
    """Run ``block.forward`` on ``args`` (the flattened inputs, placed by ``in_fmt``)
    recording its operators; return a :class:`Traced`. Raises :class:`Untraceable`
    (after the call ran: its ``result`` is on the exception) when the history holds a
    non-operator node."""
    state = autograd.state
    caller_records = state.recording
    saved_tape, saved_rec = state.tape, state.recording
    tape = []
    state.tape, state.recording = tape, True
    _tracing.depth += 1
    try:
        result = block.forward(*regroup_inputs(args, in_fmt))
    finally:
        _tracing.depth -= 1
        state.tape, state.recording = saved_tape, saved_rec
        if saved_tape is not None:      # an enclosing recording keeps its nodes too
            saved_tape.extend(tape)
    outputs, fmt = _flatten(result)
    try:
        for o in outputs:
            if not isinstance(o, _nd.NDArray):
                raise Untraceable(f"{block.name or type(block).__name__}: forward returned "
                                  f"a {type(o).__name__}; a hybridized block returns arrays "
                                  "(or lists of them)")
        traced = _graph(block, tape, args, input_names, outputs)
    except Untraceable as e:
        e.result = result
        raise
    finally:
        if not caller_records:
            _forget(tape)
    traced.fmt = fmt
    traced.result = result
    traced.classes = [o.__class__ for o in outputs]   # later calls give the same kinds
    return traced


def _forget(tape):
    """Drop the recorded history (the caller was not recording): the outputs' links to
    their nodes, which would otherwise keep every intermediate array alive."""
    for node in tape:
        for o in node.outputs:
            ag = o._ag
            if ag is not None and ag[0] is node:
                o._ag = None
    tape.clear()


def _param_arrays(block):
    """id(array) -> Parameter, for every array of the block's parameters."""
    out = {}
    for p in block.collect_params().values():
        if p._data is None:
            continue
        for a in [p._data] + p._copies:
            out[id(a)] = p
    return out


def _graph(block, tape, args, input_names, outputs):
    from ..symbol.graph import _Node
    sym = _sym()
    on_tape = {id(n): n for n in tape}
    owners = _param_arrays(block)
    leaves = {}           # id(array) -> entry of a variable node
    for name, a in zip(input_names, args):
        leaves.setdefault(id(a), (_Node(None, name), 0))
    params, consts, var_names = {}, {}, set(input_names)
    prefix = block.prefix or f"{type(block).__name__.lower()}_"

    def unique(name):
        base, k = name, 1
        while name in var_names:
            name = f"{base}{k}"
            k += 1
        var_names.add(name)
        return name

    def leaf(arr):
        entry = leaves.get(id(arr))
        if entry is not None:
            return entry
        p = owners.get(id(arr))
        if p is not None:
            name = unique(p.name)
            params[name] = p
        else:
            name = unique(f"{prefix}const{len(consts)}")
            consts[name] = arr
        entry = leaves[id(arr)] = (_Node(None, name), 0)
        return entry

    # the nodes reachable from the outputs, inputs first (the tape is in call order)
    needed, stack = set(), [o for o in outputs]
    while stack:
        a = stack.pop()
        if id(a) in leaves or id(a) in owners:
            continue
        ag = a._ag
        if ag is None or id(ag[0]) not in on_tape or id(ag[0]) in needed:
            continue
        needed.add(id(ag[0]))
        stack.extend(ag[0].inputs)
    built, counts = {}, {}

    def entry(arr):
        if id(arr) in leaves or id(arr) in owners:
            return leaf(arr)
        ag = arr._ag
        if ag is not None and id(ag[0]) in built:
            return (built[id(ag[0])], ag[1])
        return leaf(arr)

    for node in tape:
        if id(node) not in needed:
            continue
        op = node.op
        if op is None:
            raise Untraceable(f"{block.name or type(block).__name__}: its forward calls "
                              "an autograd.Function, which has no operator to put in a "
                              "graph")
        p = {k: v for k, v in node.params.items() if k != "rng"}
        layer = (node.attrs or {}).get("name") if isinstance(node.attrs, dict) else None
        stem = f"{layer}_fwd" if layer else op.name.lower().lstrip("_")
        n = counts.get(stem, 0)
        counts[stem] = n + 1
        name = stem if n == 0 and layer else f"{stem}{n}"
        built[id(node)] = _Node(op, name, p, [entry(a) for a in node.inputs],
                                len(node.inputs) - len(op.list_aux(p)))
    heads = [entry(o) for o in outputs]
    traced = Traced()
    traced.symbol = sym.Symbol(heads)
    traced.input_names = list(input_names)
    traced.params = params
    traced.consts = consts
    return traced


_warned = set()


def warn_imperative(block, reason):
    """Say once per block class that it runs imperatively although hybridized."""
    key = type(block)
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(f"{type(block).__name__} is hybridized but runs imperatively: {reason}",
                  stacklevel=4)
