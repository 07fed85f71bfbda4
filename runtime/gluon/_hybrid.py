"""Running a hybridized block through the symbolic executor (MXNet's CachedOp role).

For each input signature (shapes, dtypes, which inputs need gradients) the block's
``hybrid_forward`` is called once with ``F = mx.sym`` to build its graph; parameters
whose shapes were deferred get them from the graph's shape inference. The graph is
then bound (``Symbol.bind``) to the parameters' own arrays, to input buffers and to
gradient buffers owned by the executor. A call:

1. points the bound input buffers at the caller's arrays (an internal engine op that
   shares the numpy buffer: kernels never modify arrays in place, so sharing is safe),
2. runs ``Executor.forward`` (bulk segments: one engine op per segment),
3. returns new arrays sharing the executor's outputs (so earlier results stay valid),
4. under ``autograd.record()``, records ONE autograd node for the whole graph whose
   gradient is ``Executor.backward``.

Gradients. A parameter with ``grad_req='write'`` is bound with its own ``grad()``
array, so the executor's backward writes it directly and autograd has nothing to copy
(it skips a contribution that already is the gradient buffer). Only one pending call
may write a parameter's buffer that way: a call made while another recorded call
writing it directly has not been back-propagated gets an executor with its own
gradient buffers, and autograd sums the contributions. Parameters with
``grad_req='add'`` always use the executor's buffers; autograd adds them.

An executor whose last recorded forward has not been back-propagated yet (its outputs
are still alive and still attached to the autograd graph) is busy: a second call in the
same recording binds another executor for the same graph, so each call keeps its own
activations (a network applied twice before one ``backward`` gets both gradients).
"""
import weakref

import numpy as np

from .. import autograd
from .. import name as _name
from ..engine.base import ALWAYS_RUN, MODE_SYMBOLIC
from ..ndarray import ndarray as _nd
from ..ops import registry as _registry
from ._structure import (_LEAF, _NONE, _flatten, _regroup, flatten_inputs,  # noqa: F401
                         regroup_inputs)

__all__ = ["call_cached", "infer_param_shapes", "symbol_namespace", "export",
           "init_symbol_block"]


def _sym():
    from .. import symbol
    return symbol


# -- names inside a block's graph ----------------------------------------------------------
class _PrefixedSymbols:
    """``mx.sym`` whose operator nodes are named after the calling block (MXNet's
    name scopes): ``F.Convolution(..., name='fwd')`` in block ``conv0_`` makes node
    ``conv0_fwd``; unnamed nodes get ``<prefix><op><n>``."""

    def __init__(self, prefix):
        self._module = _sym()
        self._prefix = prefix
        self._counts = {}

    def __getattr__(self, attr):
        value = getattr(self._module, attr)
        if attr not in _registry.registry or not callable(value):
            return value
        prefix, counts = self._prefix, self._counts

        def fn(*args, name=None, **kwargs):
            if name is None:
                hint = attr.lower().lstrip("_")
                n = counts.get(hint, 0)
                counts[hint] = n + 1
                name = f"{hint}{n}"
            with _name.NameManager():   # the prefix is given here, not again by the scope
                return value(*args, name=prefix + name, **kwargs)
        fn.__name__ = attr
        return fn


def symbol_namespace(block):
    """The ``F`` a block's ``hybrid_forward`` gets when building its graph."""
    if not block.prefix:
        return _sym()
    return _PrefixedSymbols(block.prefix)


# -- building the graph ----------------------------------------------------------------------
def _input_names(n):
    return ["data"] if n == 1 else [f"data{i}" for i in range(n)]


def input_kind(block, args):
    """'ndarray' or 'symbol': what a HybridBlock is called on (as MXNet checks: not a
    mix of the two, at least one of them)."""
    for a in args:                       # the common case, checked first: NDArrays only
        if a.__class__ is not _nd.NDArray:
            break
    else:
        return "ndarray"
    leaves, _ = flatten_inputs(args)
    sym = _sym()
    has_nd = any(isinstance(a, _nd.NDArray) for a in leaves)
    has_sym = any(isinstance(a, sym.Symbol) for a in leaves)
    name = block.name or type(block).__name__
    if has_nd and has_sym:
        raise ValueError(f"{name}: inputs mix NDArrays and Symbols; a HybridBlock takes "
                         "one or the other")
    if not has_nd and not has_sym:
        raise ValueError(f"{name}: input must be an NDArray or a Symbol (or lists of them, "
                         f"None allowed), got {[type(a).__name__ for a in args]}")
    return "ndarray" if has_nd else "symbol"


def _build_symbol(block, n_inputs, in_fmt=None, np_inputs=False):
    """(symbol, input names, output format) of ``block`` called on ``n_inputs`` vars
    (placed in the argument structure ``in_fmt``)."""
    if hasattr(block, "_sb_symbol"):
        return block._sb_symbol, list(block._sb_inputs), block._sb_fmt
    sym = _sym()
    names = _input_names(n_inputs)
    variables = [sym.var(n) for n in names]
    if np_inputs:      # np symbols: F.np/F.npx and the np operators compose mx.sym.np
        variables = [v.as_np_ndarray() for v in variables]
    out = block(*(variables if in_fmt is None else regroup_inputs(variables, in_fmt)))
    flat, fmt = _flatten(out)
    for o in flat:
        if not isinstance(o, sym.Symbol):
            raise ValueError(f"{block.name}: hybrid_forward must return Symbols when "
                             f"building its graph, got {type(o).__name__}")
    symbol = flat[0] if len(flat) == 1 else sym.Group(flat)
    return symbol, names, fmt


def _graph_params(block, symbol, input_names):
    """Parameter of each non-input argument and auxiliary state of ``symbol``."""
    params = {p.name: p for p in block.collect_params().values()}
    out = {}
    for name in symbol.list_arguments() + symbol.list_auxiliary_states():
        if name in input_names:
            continue
        p = params.get(name)
        if p is None:
            raise ValueError(f"{block.name or type(block).__name__}: the graph has an input "
                             f"{name!r} that is neither a block input nor one of its "
                             f"parameters ({', '.join(params) or 'none'})")
        out[name] = p
    return out


def _infer_deferred(block, symbol, input_names, inputs, params):
    """Give deferred parameters their shapes from the graph and create them."""
    pending = [p for p in params.values() if p._data is None]
    if not pending:
        return
    if any(not p._deferred_init for p in pending):
        p = next(p for p in pending if not p._deferred_init)
        p._check_initialized()      # raises: never initialized
    shapes = {n: a.shape for n, a in zip(input_names, inputs)}
    arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
    inferred = dict(zip(symbol.list_arguments(), arg_shapes))
    inferred.update(zip(symbol.list_auxiliary_states(), aux_shapes))
    if any(p._data is None and not inferred.get(n) for n, p in params.items()) and \
            not getattr(block, "_running_once", False):
        _run_once_imperatively(block, inputs)
    for name, p in params.items():
        if p._data is None:
            s = inferred.get(name)
            if not s:
                raise ValueError(f"{block.name}: cannot infer the shape of parameter "
                                 f"{name!r} from inputs of shapes "
                                 f"{[a.shape for a in inputs]}")
            p.shape = s
            p._finish_deferred_init()


def _run_once_imperatively(block, inputs):
    """Deferred shapes the graph cannot infer backwards (the fused RNN layer packs its
    weights into one vector): one forward without the graph, outside autograd, lets
    each child infer its own from its real inputs (``HybridBlock.infer_shape``)."""
    paused, todo = [], [block]
    while todo:
        b = todo.pop()
        todo.extend(b._children.values())
        if getattr(b, "_active", False):
            b._active = False
            paused.append(b)
    block._running_once = True      # (its own forward cannot infer them again)
    try:
        with autograd.pause():
            block(*inputs)
    finally:
        block._running_once = False
        for b in paused:
            b._active = True


def infer_param_shapes(block, args):
    """HybridBlock.infer_shape's default: deferred shapes from the symbol graph."""
    args, in_fmt = flatten_inputs(args)
    for a in args:
        if not isinstance(a, _nd.NDArray):
            raise ValueError(f"{block.name}: cannot infer parameter shapes from a "
                             f"{type(a).__name__} input")
    np_inputs = bool(args) and args[0].__class__ is not _nd.NDArray
    symbol, names, _ = _build_symbol(block, len(args), in_fmt, np_inputs)
    params = _graph_params(block, symbol, names)
    _infer_deferred(block, symbol, names, args, params)


# -- bound executors -------------------------------------------------------------------------
def _share(src, dst):
    """Engine function: ``dst`` takes ``src``'s buffer (errors of ``src`` propagate)."""
    if src.exc is not None:
        raise src.exc
    dst._data = src._data


def _push_share(src, dst):
    # profiled with the graph's ops (MODE_SYMBOLIC): it is the edge between the caller's
    # arrays and the graph's, so without its dependency record a reader of the block's
    # outputs has no recorded predecessor and ``explain`` calls the whole forward a
    # hand-off (docs/dependencies.md)
    _nd.engine_push(_share, (src, dst), [src], [dst], "_share",
                    mode=MODE_SYMBOLIC | ALWAYS_RUN)


class _Bound:
    """One executor of a graph, with its input buffers and autograd bookkeeping.

    ``direct``: the 'write' parameters' gradients are bound to ``Parameter.grad()``
    itself (``direct_params``); otherwise to buffers of the executor."""

    __slots__ = ("exe", "inputs", "params", "grads", "owner", "direct", "direct_params")

    def __init__(self, graph, inputs, direct):
        sym_params = graph.params
        self.direct = direct
        self.direct_params = []
        args, grads, reqs, aux = {}, {}, {}, {}
        self.inputs = []
        for name, a, need in zip(graph.input_names, inputs, graph.need_grad):
            buf = _nd.new_array(a.shape, a._dtype, a.context, "data", a.__class__)
            self.inputs.append(buf)
            args[name] = buf
            reqs[name] = "write" if need else "null"
            if need:
                grads[name] = _zeros_like(a)
        for name, value in graph.consts.items():
            args[name] = value
            reqs[name] = "null"
        aux_names = set(graph.symbol.list_auxiliary_states())
        self.params = []
        self.grads = []
        for name, p in sym_params.items():
            data = p.data()
            self.params.append(data)
            self.grads.append(p._grad)
            if name in aux_names:
                aux[name] = data
                continue
            args[name] = data
            if p.grad_req == "null":
                reqs[name] = "null"
                continue
            reqs[name] = "write"
            if direct and p.grad_req == "write":
                grads[name] = p._grad
                self.direct_params.append(p)
            else:
                grads[name] = _zeros_like(data)
        ctx = inputs[0].context if inputs else None
        self.exe = graph.symbol.bind(ctx, args=args, args_grad=grads, grad_req=reqs,
                                     aux_states=aux or None)
        self.owner = None

    def busy(self):
        ref = self.owner
        if ref is None:
            return False
        out = ref()
        return out is not None and out._ag is not None

    def stale(self, params):
        """A parameter got a new array or gradient buffer (re-initialized, grad_req
        changed) since binding."""
        return any(p._data is not d or p._grad is not g
                   for p, d, g in zip(params, self.params, self.grads))


def _zeros_like(a):
    z = _nd.new_array(a.shape, a._dtype, a.context, "grad")
    z._data = np.zeros(a.shape, a._dtype)
    return z


class _Graph:
    """The graph of one block for one input signature, and its bound executors.
    ``traced``: the graph recorded from a call of a ``forward``-style block
    (``_trace.trace_call``) rather than built from ``hybrid_forward``."""

    def __init__(self, block, inputs, need_grad, in_fmt=None, traced=None):
        # no reference back to the block: it holds this graph in its cache, and a cycle
        # would leave the executors' arrays to the (rarely run) cyclic collector
        self.need_grad = need_grad
        self.bound = []
        self.classes = None      # the outputs' array classes (None: the first input's)
        if traced is not None:
            self.symbol, self.input_names = traced.symbol, traced.input_names
            self.fmt, self.params, self.consts = traced.fmt, traced.params, traced.consts
            self.classes = traced.classes
            return
        self.consts = {}
        self.symbol, self.input_names, self.fmt = _build_symbol(block, len(inputs), in_fmt)
        if len(self.input_names) != len(inputs):
            raise ValueError(f"{block.name or type(block).__name__}: called with "
                             f"{len(inputs)} inputs, its graph takes "
                             f"{len(self.input_names)} ({', '.join(self.input_names)})")
        self.params = _graph_params(block, self.symbol, self.input_names)
        _infer_deferred(block, self.symbol, self.input_names, inputs, self.params)

    def acquire(self, inputs, direct):
        """A free executor; ``direct`` True/False asks for one writing parameter
        gradients directly or not, None takes either."""
        params = list(self.params.values())
        self.bound = [b for b in self.bound if not b.stale(params)]
        for b in self.bound:
            if not b.busy() and (direct is None or b.direct == direct):
                return b
        b = _Bound(self, inputs, bool(direct))
        self.bound.append(b)
        return b


def _direct_free(params):
    """No pending recorded call writes these parameters' gradient buffers directly."""
    for p in params:
        ref = p._direct_owner
        if ref is not None:
            out = ref()
            if out is not None and out._ag is not None:
                return False
    return True


def _check_cached_inputs(block, args, in_fmt):
    name = block.name or type(block).__name__
    for i, a in enumerate(args):
        if not isinstance(a, _nd.NDArray):
            raise ValueError(f"{name}: hybridized blocks take NDArray inputs (None and "
                             f"lists of them allowed); input {i} is {type(a).__name__}")
    devices = {(a.context.device_type.replace("cpu_pinned", "cpu"), a.context.device_id)
               for a in args}
    if len(devices) > 1:
        raise ValueError(f"{name}: a hybridized block takes inputs on one context; got "
                         f"{sorted({str(a.context) for a in args})}")
    if getattr(block, "_in_fmt", None) is None:
        block._in_fmt = in_fmt
    elif _without_trailing_none(block._in_fmt) != _without_trailing_none(in_fmt):
        # (trailing Nones are the defaults of optional arguments: the same call)
        raise ValueError(f"{name}: the argument structure (which inputs are None or "
                         "lists) does not match the one the block was hybridized with; "
                         "call hybridize() again to rebuild its graph")


def _without_trailing_none(fmt):
    fmt = list(fmt)
    while fmt and fmt[-1] == _NONE:
        fmt.pop()
    return fmt


_IMPERATIVE = "imperative"   # a cache entry: this signature's forward has no graph


def call_forward_style(block, *args):
    """A hybridized ``forward``-style block's call (``HybridBlock.__call__``)."""
    if input_kind(block, args) == "symbol":
        raise ValueError(f"{block.name or type(block).__name__} defines forward() (MXNet "
                         "2's style), which computes on arrays: it cannot be called on "
                         "Symbols")
    return call_cached(block, *args)


def _record_graph(block, args, in_fmt, key, need):
    """The first call of a signature whose graph is recorded (``_trace.py``): run it,
    keep its graph, return its result."""
    from . import _trace
    from .parameter import DeferredInitializationError
    names = _input_names(len(args))
    try:
        try:
            traced = _trace.trace_call(block, args, in_fmt, names)
        except DeferredInitializationError:
            block._finish_deferred(regroup_inputs(args, in_fmt))
            traced = _trace.trace_call(block, args, in_fmt, names)
    except _trace.Untraceable as e:
        block._cached[key] = _IMPERATIVE
        _trace.warn_imperative(block, str(e))
        return e.result
    block._cached[key] = _Graph(block, args, need, in_fmt, traced)
    return traced.result


def call_cached(block, *args):
    """Run hybridized ``block`` on NDArrays ``args`` (see the module docstring)."""
    args, in_fmt = flatten_inputs(args)
    _check_cached_inputs(block, args, in_fmt)
    state = autograd.state
    recording = state.recording
    need = tuple(recording and (a._grad is not None or a._ag is not None) for a in args)
    key = (tuple((a.shape, a._dtype) for a in args), need)
    graph = block._cached.get(key)
    if graph is None:
        from . import _trace
        if _trace.needs_trace(block) or (args and args[0].__class__ is not _nd.NDArray
                                         and not hasattr(block, "_sb_symbol")):
            # mx.np arrays: the graph is recorded from the call, as MXNet 2 records
            # every hybridized block (deferred compute), hybrid_forward ones too:
            # their F is mx.nd, whose F.np/F.npx are mx.np/mx.npx
            return _record_graph(block, args, in_fmt, key, need)
        graph = block._cached[key] = _Graph(block, args, need, in_fmt)
    elif graph is _IMPERATIVE:
        return block.forward(*regroup_inputs(args, in_fmt))
    if recording:
        direct = _direct_free(graph.params.values())
    else:
        direct = None          # no backward will follow: any free executor will do
    bound = graph.acquire(args, direct)
    exe = bound.exe
    exe._set_op_hook(*(block._op_hook or (None, False)))
    for a, buf in zip(args, bound.inputs):
        _push_share(a, buf)
    exe.forward(is_train=state.training)
    outs = []
    classes = graph.classes
    if classes is None:   # np arrays in, np arrays out
        classes = [args[0].__class__ if args else _nd.NDArray] * len(exe.outputs)
    for o, cls in zip(exe.outputs, classes):
        r = _nd.new_array(o.shape, o._dtype, o.context, "output", cls)
        _push_share(o, r)
        outs.append(r)
    if recording:
        node_inputs = list(args) + bound.params
        names = graph.input_names + list(graph.params)
        grad_dict = exe.grad_dict

        def backward_fn(ograds, exe=exe, names=names, grad_dict=grad_dict):
            exe.backward(out_grads=list(ograds))
            return [grad_dict.get(n) for n in names]

        autograd.record_op(None, node_inputs, outs, {}, backward_fn)
        owner = bound.owner = weakref.ref(outs[0])
        for p in bound.direct_params:
            p._direct_owner = owner
    return _regroup(outs, graph.fmt)


# -- SymbolBlock and export ------------------------------------------------------------------
def compose_symbol_block(block, args):
    """A SymbolBlock called on Symbols: its graph with the inputs replaced by them."""
    leaves, _ = flatten_inputs(args)
    if len(leaves) != len(block._sb_inputs):
        raise ValueError(f"SymbolBlock: {len(leaves)} inputs given, the graph takes "
                         f"{len(block._sb_inputs)} ({', '.join(block._sb_inputs)})")
    out = block._sb_symbol(**dict(zip(block._sb_inputs, leaves)))
    if block._sb_fmt is None:
        return out
    return _regroup(list(out), block._sb_fmt)


def init_symbol_block(block, outputs, inputs, params):
    from .parameter import Parameter
    sym = _sym()
    if isinstance(inputs, sym.Symbol):
        inputs = [inputs] if len(inputs) == 1 else list(inputs)
    if isinstance(outputs, (list, tuple)):
        flat, fmt = list(outputs), (list, [None] * len(outputs))
        outputs = sym.Group(flat)
    else:
        fmt = None if len(outputs) == 1 else (list, [None] * len(outputs))
    names = []
    for s in inputs:
        if not isinstance(s, sym.Symbol) or len(s) != 1:
            raise ValueError("SymbolBlock: inputs must be single-output variable symbols")
        names.append(s.name)
    given = {} if params is None else {p.name: p for p in params.values()}
    for node in outputs.get_internals():        # MXNet refuses row_sparse parameters
        assert node.attr("__storage_type__") != "1", \
            f"SymbolBlock doesn't support Parameter '{node.name}' because its storage " \
            "type is 'row_sparse'."
    aux = set(outputs.list_auxiliary_states())
    for name in outputs.list_arguments() + outputs.list_auxiliary_states():
        if name in names:
            continue
        p = given.get(name)
        if p is None:
            p = Parameter(name, allow_deferred_init=True,
                          grad_req="null" if name in aux else "write")
        block._params._params[name] = p
    block._sb_symbol = outputs
    block._sb_inputs = names
    block._sb_fmt = fmt


def export(block, path, epoch=0):
    """``path-symbol.json`` (the graph) and ``path-%04d.params`` (numpy .npz with keys
    ``arg:<name>`` / ``aux:<name>``, as MXNet names them)."""
    graphs = [g for g in block._cached.values() if g is not _IMPERATIVE]
    if not graphs:
        raise RuntimeError(f"{block.name}: export needs hybridize() and one forward pass "
                           "first (the graph is built from the first input's shape)")
    graph = graphs[0]
    sym_file = f"{path}-symbol.json"
    graph.symbol.save(sym_file)
    aux = set(graph.symbol.list_auxiliary_states())
    arrays = {("aux:" if n in aux else "arg:") + n: p.data().asnumpy()
              for n, p in graph.params.items()}
    arrays.update({"arg:" + n: c.asnumpy() for n, c in graph.consts.items()})
    params_file = f"{path}-{epoch:04d}.params"
    with open(params_file, "wb") as f:
        np.savez(f, **arrays)
    return sym_file, params_file
