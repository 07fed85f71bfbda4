"""``mx.autograd``: record imperative ops, then push their gradient ops backwards.

While recording, every op call leaves a :class:`Node` on its outputs (the op, its params,
its inputs and outputs). ``backward`` walks the nodes in reverse topological order and
asks each for its input gradients; for a registered operator that is one engine op named
``_backward_<op>`` running the gradient defined next to its kernel, so gradients are
asynchronous and profiled like any op; a stateful op (``Custom``) pushes its own backward
on the state its forward made (MXNet's ``OpStatePtr``). A :class:`Function` supplies its
own ``backward``.
Recording and training flags are per thread, as in MXNet.
"""
import threading


from . import _lazy
from .base import as_mxnet_error
from .engine.base import MODE_IMPERATIVE
from .ndarray import ndarray as _nd

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "backward", "mark_variables", "grad", "Function",
           "get_symbol"]


class _State(threading.local):
    recording = False
    training = False
    tape = None      # a list collecting every recorded Node (gluon/_trace.py), or None


state = _State()
_thread_state = state    # (record_op's parameter ``state`` is a stateful op's state)
_nd._autograd = __import__(__name__, fromlist=["_"])


def is_recording():
    return state.recording


def is_training():
    return state.training


def set_recording(is_recording):
    prev = state.recording
    state.recording = bool(is_recording)
    return prev


def set_training(train_mode):
    prev = state.training
    state.training = bool(train_mode)
    return prev


class _Scope:
    def __init__(self, recording, training):
        self._rec, self._train = recording, training

    def __enter__(self):
        self._saved = (state.recording, state.training)
        if self._rec is not None:
            state.recording = self._rec
        if self._train is not None:
            state.training = self._train
        return self

    def __exit__(self, *exc):
        state.recording, state.training = self._saved
        return False


def record(train_mode=True):
    """Record ops for ``backward`` inside this block (training mode by default)."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    return _Scope(False, train_mode)


def train_mode():
    return _Scope(None, True)


def predict_mode():
    return _Scope(None, False)


class Node:
    """One recorded op: how to compute its inputs' gradients from its outputs'."""

    __slots__ = ("op", "params", "inputs", "outputs", "backward_fn", "attrs", "state")

    def __init__(self, op, params, inputs, outputs, backward_fn=None, attrs=None,
                 state=None):
        self.op = op
        self.params = params
        self.inputs = inputs
        self.outputs = outputs
        self.backward_fn = backward_fn
        self.attrs = attrs   # the forward op's engine attrs (its Gluon layer name)
        self.state = state   # a stateful op's state, made by its forward

    def backward(self, ograds):
        """Input gradients (NDArray or None per input) for output gradients ``ograds``."""
        if self.backward_fn is not None:   # a Function's
            return self.backward_fn(ograds)
        op = self.op
        if op.stateful:
            return op.push_backward(self.state, self.params, ograds, self.inputs,
                                    self.outputs)
        if op.grad is None:
            raise ValueError(f"operator {op.name!r} has no gradient")
        return _push_grad(op, self.inputs, self.outputs, ograds, self.params)


def _push_grad(op, inputs, outputs, ograds, params, mode=MODE_IMPERATIVE):
    """Push ``_backward_<op>``: one engine op computing the input gradients that are
    needed (inputs recorded by autograd or marked with ``attach_grad``); None for the
    others, which are never allocated (and not computed, if the op is ``grad_needs``)."""
    needs = tuple(x._ag is not None or (x._grad is not None and x._grad_req != "null")
                  for x in inputs)
    wanted = [i for i, need in enumerate(needs) if need]
    if not wanted:
        return [None] * len(inputs)
    grads = [_nd.new_array(inputs[i].shape, inputs[i]._dtype, inputs[i].context,
                           op.grad_name, inputs[i].__class__) for i in wanted]
    all_args = list(ograds) + list(inputs) + list(outputs)
    kernel = op.grad_kernel(len(outputs), len(inputs), params, needs)
    _nd.engine_push(_nd._run, (kernel, all_args, grads, {}), all_args, list(grads),
                    op.grad_name, mode=mode, cost=op.grad_cost(inputs, params),
                    attrs=_nd.op_scope.attrs)
    result = [None] * len(inputs)
    for i, g in zip(wanted, grads):
        result[i] = g
    return result


def _in_graph(arr):
    """True if ``arr`` is a marked variable or the output of a recorded op that reads
    one (MXNet: its autograd entry is set)."""
    if arr._grad is not None and arr._grad_req != "null":
        return True
    if arr._ag is None:
        return False
    return any(x._ag is not None or (x._grad is not None and x._grad_req != "null")
               for x in arr._ag[0].inputs)


def check_inplace(op, inputs, outputs):
    """Writing into an array already in the graph (``y += 1``, ``relu(x, out=x)``) or
    into one of the op's own inputs (``x[idx] = y``) while recording would route
    gradients wrong: MXNet refuses it (an MXNetError, with MXNet's wording), and so does
    xprof, before the op is pushed. Called by the NDArray layer for ops given ``out=``."""
    for o in outputs:
        if _in_graph(o) or any(o is x for x in inputs):
            raise as_mxnet_error(ValueError(
                f"{op.name}: Inplace operations (+=, -=, x[:]=, etc) are not supported "
                "when recording with autograd: the output is already in the graph or is "
                "an input of the op; write to a new array, or call backward first"))


def record_op(op, inputs, outputs, params, backward_fn=None, state=None):
    """Called by the NDArray layer for every op while recording (``state``: a stateful
    op's, for its backward)."""
    node = Node(op, params, list(inputs), list(outputs), backward_fn, _nd.op_scope.attrs,
                state)
    for i, o in enumerate(outputs):
        o._ag = (node, i)
    tape = _thread_state.tape
    if tape is not None:
        tape.append(node)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as gradient leaves with the given gradient buffers."""
    if isinstance(variables, _nd.NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for v, g, req in zip(variables, gradients, grad_reqs):
        if req not in ("write", "add", "null"):
            raise ValueError(f"grad_req {req!r} is not allowed; use 'write', 'add' or 'null'")
        v._grad = g
        v._grad_req = req
        v._ag = None


def attach_grad(arr, grad_req="write", cls=None):
    if grad_req not in ("write", "add", "null"):
        raise ValueError(f"grad_req {grad_req!r} is not allowed; use 'write', 'add' or 'null'")
    grad = _zeros(arr, cls)
    mark_variables([arr], [grad], grad_req)


def _zeros(arr, cls=None):
    from .ndarray import ndarray as nd
    return nd.push_op(nd._ops["_zeros"], (), {"shape": arr.shape, "dtype": arr._dtype.name},
                      ctx=arr.context, cls=cls or arr.__class__)[0]


def _sum(arrays):
    if len(arrays) == 1:
        return arrays[0]
    return _nd.push_op(_nd._ops["add_n"], arrays, {})[0]


def _recorded_order(heads):
    """The recorded nodes reachable from ``heads`` (arrays), inputs first."""
    order, seen = [], set()
    stack = [(h._ag[0], False) for h in heads if h._ag is not None]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for x in node.inputs:
            if x._ag is not None and id(x._ag[0]) not in seen:
                stack.append((x._ag[0], False))
    return order


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute gradients of ``heads`` into the ``.grad`` of marked variables."""
    if isinstance(heads, _nd.NDArray):
        heads = [heads]
    if head_grads is None:
        head_grads = [None] * len(heads)
    elif isinstance(head_grads, _nd.NDArray):
        head_grads = [head_grads]
    if len(head_grads) != len(heads):
        raise ValueError(f"backward: {len(head_grads)} head gradients for {len(heads)} heads")
    order = _recorded_order(heads)
    if not order and not any(h._grad is not None for h in heads):
        raise ValueError("backward: the heads were not computed inside autograd.record() "
                         "from arrays with attach_grad()")
    contrib = {}  # id(array) -> [array, [grads]]

    def add(arr, g):
        entry = contrib.get(id(arr))
        if entry is None:
            contrib[id(arr)] = [arr, [g]]
        else:
            entry[1].append(g)

    for h, hg in zip(heads, head_grads):
        if hg is None:
            hg = _nd.push_op(_nd._ops["ones_like"], (h,), {})[0]
        add(h, hg)
    op_scope = _nd.op_scope
    saved_attrs = _nd.set_op_attrs(None)   # (reassigned per node below, restored after)
    with _Scope(False, train_mode):
        try:
            for node in reversed(order):
                # gradient ops carry the forward op's attrs (e.g. its layer's name)
                op_scope.attrs = node.attrs
                ograds = []
                for o in node.outputs:
                    entry = contrib.pop(id(o), None)
                    if entry is None:
                        ograds.append(_nd.push_op(_nd._ops["zeros_like"], (o,), {})[0])
                    else:
                        ograds.append(_sum(entry[1]))
                        if o._grad is not None:      # an intermediate marked as a variable
                            contrib[id(o)] = [o, [ograds[-1]]]
                in_grads = node.backward(ograds)
                for x, g in zip(node.inputs, in_grads):
                    if g is not None and (x._ag is not None or x._grad is not None):
                        add(x, g)
        finally:
            _nd.restore_op_attrs(saved_attrs)
        for arr, grads in contrib.values():
            if arr._grad is None or arr._grad_req == "null":
                continue
            total = _sum(grads)
            if arr._grad_req == "add":
                _nd.push_op(_nd._ops["elemwise_add"], (arr._grad, total), {}, outs=[arr._grad])
            elif total is not arr._grad:   # a node may write the gradient buffer itself
                _nd.push_op(_nd._ops["_copy"], (total,), {}, outs=[arr._grad])
            arr._fresh = True       # NDArray._fresh_grad: backward wrote this gradient
    if not retain_graph:
        for node in order:
            for o in node.outputs:
                o._ag = None


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """Gradients of ``heads`` w.r.t. ``variables`` returned as new arrays."""
    if create_graph:
        raise ValueError("grad: create_graph=True (higher-order gradients) is not supported")
    if isinstance(variables, _nd.NDArray):
        variables = [variables]
    saved = [(v._grad, v._grad_req) for v in variables]
    bufs = [_zeros(v) for v in variables]
    for v, b in zip(variables, bufs):
        v._grad, v._grad_req = b, "write"
    try:
        backward(heads, head_grads, retain_graph=bool(retain_graph), train_mode=train_mode)
    finally:
        for v, (g, req) in zip(variables, saved):
            v._grad, v._grad_req = g, req
    return bufs


class Function:
    """Custom differentiable function: subclass with ``forward`` and ``backward``
    working on NDArrays (both run imperatively)."""

    def __init__(self):
        self._saved = ()

    def save_for_backward(self, *args):
        self._saved = args

    @property
    def saved_tensors(self):
        return self._saved

    def __call__(self, *inputs):
        with pause():
            outputs = self.forward(*inputs)
        single = isinstance(outputs, _nd.NDArray)
        outs = [outputs] if single else list(outputs)
        if state.recording:
            def backward_fn(ograds):
                with pause():
                    res = self.backward(*ograds)
                return [res] if isinstance(res, _nd.NDArray) else list(res)
            record_op(None, inputs, outs, {}, backward_fn)
        return outputs


# Names of ``mx.autograd`` whose code lives above this module (it must not import the
# Symbol layer, which imports it): name -> (module under xprof.runtime, attribute).
LAZY_NAMES = {"get_symbol": ("symbol.recorded", "get_symbol")}


def __getattr__(name):
    return _lazy.resolve(globals(), LAZY_NAMES, name, __name__)
