"""The executor: a bound symbol whose forward and backward passes push engine ops.

Binding infers every entry's shape and dtype once, allocates every node output (they
are reused by every ``forward``, as in MXNet) and builds a list of *steps*, one per node:
the kernel, its input and output arrays and its params. ``forward`` pushes them in
topological order with mode ``MODE_SYMBOLIC`` (the profiler's "symbolic" bit);
``backward`` pushes each node's ``_backward_<op>`` in reverse order, followed by the
accumulation of gradients into ``grad_arrays`` (``write``/``add``/``null`` per argument).

Bulk execution: consecutive steps run as one engine op per *segment*
(:mod:`.segments`, which says how and which settings bound them).

With bulk off (or a segment of one step) every node is its own event, named by its
operator (``_backward_Convolution``), its node name in its args (``{"name": "conv0"}``).
"""

import math
import warnings

import numpy as np

from .. import _env
from ..context import Context, current_context
from ..engine.base import MODE_INTERNAL, MODE_SYMBOLIC
from ..ndarray import ndarray as _nd
from ..ndarray import random as _ndrandom
from ..ops import registry as _registry
from .graph import _topo
from .inference import infer_graph
from ..ndarray import release as _release, sparse_rules as _sparse_rules
from .memory import ExecutorMemory, _push_drop, fill_ones as _fill_ones
from .segments import _Step, _bulk_settings, _segments, _single, _watch

__all__ = ["Executor"]

_REQS = ("write", "add", "null")
_run = _nd._run


def _check_ctx(ctx):
    if ctx is None:
        return current_context()
    if not isinstance(ctx, Context):
        raise ValueError(f"ctx={ctx!r} is not a Context; use mx.cpu()")
    ctx.check_available()
    return ctx


def _zeros(shape, dtype, ctx, role, stype=None):
    a = _nd.new_array(tuple(shape), np.dtype(dtype), ctx, role,
                      _sparse_rules.class_of(stype) if stype else _nd.NDArray)
    a._data = np.zeros(a.shape, a._dtype)
    return a


def _as_list(what, value, names, allow_none=True):
    """``value`` (list in ``names`` order, or dict by name) as a list aligned to names."""
    if value is None:
        return [None] * len(names)
    if isinstance(value, dict):
        # MXNet reads a dict by the symbol's names and ignores the other keys; an array
        # under a name the symbol does not have is most likely a typo, so it is warned of
        unknown = [k for k in value if k not in names and value[k] is not None]
        if unknown:
            warnings.warn(f"bind: {what} has name(s) the symbol does not have, ignored: "
                          + ", ".join(repr(k) for k in unknown)
                          + f"; the symbol's: {', '.join(names) or 'none'}", stacklevel=4)
        out = [value.get(n) for n in names]
    elif isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise ValueError(f"bind: {what} has {len(value)} item(s), the symbol has "
                             f"{len(names)}: {', '.join(names) or 'none'}")
        out = list(value)
    else:
        raise ValueError(f"bind: {what} must be a list or a dict of NDArrays, not "
                         f"{type(value).__name__}")
    for n, a in zip(names, out):
        if a is None:
            if not allow_none:
                raise ValueError(f"bind: {what} is missing {n!r}")
        elif not isinstance(a, _nd.NDArray):
            raise ValueError(f"bind: {what}[{n!r}] is {type(a).__name__}, not an NDArray")
    return out


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in names}
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise ValueError(f"bind: grad_req has {len(grad_req)} item(s), the symbol has "
                             f"{len(names)} arguments: {', '.join(names)}")
        reqs = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        # as MXNet: read by the symbol's names ('null' where missing), other keys ignored;
        # a request for a name the symbol does not have is warned of (a likely typo)
        unknown = [k for k in grad_req if k not in names and grad_req[k] != "null"]
        if unknown:
            warnings.warn("bind: grad_req has argument name(s) the symbol does not have, "
                          "ignored: " + ", ".join(repr(k) for k in unknown)
                          + f"; arguments: {', '.join(names)}", stacklevel=4)
        reqs = {n: grad_req.get(n, "null") for n in names}
    else:
        raise ValueError(f"bind: grad_req={grad_req!r} must be a string, list or dict")
    for n, r in reqs.items():
        if r == "inplace":
            reqs[n] = "write"
        elif r not in _REQS:
            raise ValueError(f"bind: grad_req {r!r} for {n!r} is not allowed; use 'write', "
                             "'add' or 'null'")
    return reqs


def _add_n(*xs):
    out = np.add(xs[0], xs[1]) if len(xs) > 1 else xs[0].copy()
    for x in xs[2:]:
        out += x
    return out


def _copy(x):
    return x.copy()



class Executor(ExecutorMemory):
    """A symbol bound to arrays (see :meth:`Symbol.bind` / :meth:`Symbol.simple_bind`)."""

    def __init__(self, symbol, ctx, arg_arrays, grad_arrays, grad_reqs, aux_arrays):
        self._symbol = symbol
        self._ctx = ctx
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_arrays = list(arg_arrays)
        self.grad_arrays = [g if grad_reqs[n] != "null" else None
                            for n, g in zip(self._arg_names, grad_arrays)]
        self.aux_arrays = list(aux_arrays)
        self._grad_req = {n: (grad_reqs[n] if g is not None else "null")
                          for n, g in zip(self._arg_names, self.grad_arrays)}
        self.arg_dict = dict(zip(self._arg_names, self.arg_arrays))
        self.grad_dict = dict(zip(self._arg_names, self.grad_arrays))
        self.aux_dict = dict(zip(self._aux_names, self.aux_arrays))
        self._order = _topo(symbol._outputs)
        self._prepare()
        self._plans = {}
        self._bwd_steps = None
        self._head_state = "ones"
        self._monitor = None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def _bind(cls, symbol, ctx, args, args_grad, grad_req, aux_states):
        ctx = _check_ctx(ctx)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        if args is None:
            raise ValueError("bind: args is required (a list in list_arguments() order or "
                             f"a dict by name); arguments: {', '.join(arg_names)}")
        arg_arrays = _as_list("args", args, arg_names, allow_none=False)
        if aux_names and aux_states is None:
            raise ValueError("bind: aux_states is required for the auxiliary states "
                             + ", ".join(repr(a) for a in aux_names))
        aux_arrays = _as_list("aux_states", aux_states, aux_names, allow_none=False) \
            if aux_names else []
        grads = _as_list("args_grad", args_grad, arg_names)
        if args_grad is None:
            grad_req = "null"
        reqs = _grad_reqs(grad_req, arg_names)
        for n, a, g in zip(arg_names, arg_arrays, grads):
            if g is not None and g.shape != a.shape:
                raise ValueError(f"bind: args_grad[{n!r}] has shape {g.shape}, the argument "
                                 f"has shape {a.shape}")
        return cls(symbol, ctx, arg_arrays, grads, reqs, aux_arrays)

    @classmethod
    def _simple_bind(cls, symbol, ctx, grad_req, type_dict, shapes, stype_dict=None):
        ctx = _check_ctx(ctx)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        given = symbol._shape_kwargs("simple_bind", (), shapes)
        dtypes = {}
        for k, d in (type_dict or {}).items():
            if k not in arg_names and k not in aux_names:
                raise ValueError(f"simple_bind: type_dict names {k!r}, which is not an "
                                 f"argument; arguments: {', '.join(arg_names)}")
            try:
                dtypes[k] = np.dtype(d)
            except TypeError:
                raise ValueError(f"simple_bind: type_dict[{k!r}]={d!r} is not a dtype") \
                    from None
        order = _topo(symbol._outputs)
        inf = infer_graph(order, given, dtypes)
        var_shape, var_dtype = {}, {}
        for n in order:
            if n.op is None:
                key = (id(n), 0)
                if key in inf.shape:
                    var_shape[n.name] = inf.shape[key]
                var_dtype[n.name] = inf.dtype.get(key, np.dtype(np.float32))
        missing = [a for a in arg_names + aux_names if a not in var_shape]
        if missing:
            raise ValueError("simple_bind: cannot infer the shape of "
                             + ", ".join(repr(m) for m in missing)
                             + "; pass it as a keyword argument (name=shape)")
        reqs = _grad_reqs(grad_req, arg_names)
        stypes, grad_stypes = _sparse_rules.bind_stypes(order, stype_dict)
        args = [_zeros(var_shape[a], var_dtype[a], ctx, "arg", stypes.get(a))
                for a in arg_names]
        grads = [_zeros(var_shape[a], var_dtype[a], ctx, "grad", grad_stypes.get(a))
                 if reqs[a] != "null" else None for a in arg_names]
        aux = [_zeros(var_shape[a], var_dtype[a], ctx, "aux") for a in aux_names]
        return cls(symbol, ctx, args, grads, reqs, aux)

    def _prepare(self):
        """Infer shapes from the bound arrays, allocate outputs, build forward steps."""
        order = self._order
        by_name = dict(self.arg_dict)
        by_name.update(self.aux_dict)
        shapes = {n: a.shape for n, a in by_name.items()}
        dtypes = {n: a._dtype for n, a in by_name.items()}
        inf = infer_graph(order, shapes, dtypes)
        entry = {}
        # results are arrays of the kind bound (mx.np arrays in, mx.np arrays out), as an
        # imperative op's results take its first input's class
        args = self.arg_arrays
        cls = args[0].__class__ if args else _nd.NDArray
        sparse = _sparse_rules.live and any(a.stype != "default" for a in by_name.values())
        for n in order:
            if n.op is None:
                entry[(id(n), 0)] = by_name[n.name]
                continue
            for i in range(n.num_outputs()):
                key = (id(n), i)
                if key not in inf.shape:
                    raise ValueError(f"bind: cannot infer the output shapes of "
                                     f"{n.op.name} node {n.name!r}")
                kind = _sparse_rules.node_class(n, entry) if sparse else None  # MXNet's
                a = _nd.new_array(inf.shape[key], inf.dtype[key], self._ctx, n.op.name,
                                  kind or cls)                 # storage type inference
                entry[key] = a
        self._entry = entry
        self._shape = inf.shape
        self._dtype = inf.dtype
        self.outputs = [entry[(id(n), i)] for n, i in self._symbol._outputs]
        self._states = {}   # node id -> a stateful op's state (made once, kept for backward)
        self._fwd = {}

    def _forward_steps(self, is_train):
        steps = self._fwd.get(is_train)
        if steps is not None:
            return steps
        steps = []
        entry = self._entry
        for n in self._order:
            if n.op is None:
                continue
            ins = [entry[(id(c), i)] for c, i in n.inputs]
            outs = [entry[(id(n), i)] for i in range(n.num_outputs())]
            op = n.op
            if op.stateful:
                steps.append(self._stateful_forward_step(n, ins, outs, is_train))
                continue
            params = n.full_params()
            extra = ()
            if "rng" in op.params:
                params["rng"] = _ndrandom._RngRef()
                extra = (_ndrandom._var(),)
            cost = op.estimate_cost(ins, params, [o.shape for o in outs])
            targets = op.written(ins, outs, is_train)   # + updated aux states
            step = _Step(op.name, n.name, _run, (op.kernel_for(is_train), ins, targets,
                                                 params),
                         list(ins), list(targets) + list(extra), cost)
            step.push = self._push_op_fn(op, ins, params, outs, extra, is_train, step.attrs)
            _watch(step, n, ins, outs)
            steps.append(step)
        self._fwd[is_train] = steps
        return steps

    def _push_op_fn(self, op, ins, params, outs, extra, is_train, attrs):
        ctx = self._ctx
        push_op = _nd.push_op

        def push():
            push_op(op, ins, params, outs, ctx, MODE_SYMBOLIC, attrs, extra, is_train)
        return push

    def _state(self, n, ins):
        """Node ``n``'s state, made once per node (MXNet's ``FCreateOpState``: a custom
        op's ``CustomOp``) and kept for its backward."""
        state = self._states.get(id(n))
        if state is None:
            state = self._states[id(n)] = n.op.create_state(
                n.full_params(), self._ctx, ins[:n.n_args], MODE_SYMBOLIC)
        return state

    def _stateful_forward_step(self, n, ins, outs, is_train):
        """The step of a stateful op: it pushes itself on its state."""
        op, params = n.op, n.full_params()
        args, aux = ins[:n.n_args], ins[n.n_args:]
        state = self._state(n, ins)

        def push():
            op.push_forward(state, params, args, aux, outs, is_train, MODE_SYMBOLIC)
        step = _Step(op.name, n.name, None, None, args, outs, 0, push)
        _watch(step, n, ins, outs)
        return step

    # -- forward ------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Run the graph; keyword arguments first copy new values into ``arg_dict``."""
        for name, value in kwargs.items():
            dst = self.arg_dict.get(name)
            if dst is None:
                raise ValueError(f"forward: {name!r} is not an argument; arguments: "
                                 f"{', '.join(self._arg_names)}")
            if isinstance(value, _nd.NDArray):
                if value.shape != dst.shape:
                    raise ValueError(f"forward: {name!r} has shape {value.shape}, the bound "
                                     f"argument has shape {dst.shape}")
                if value is not dst:
                    value.copyto(dst)
            else:
                arr = np.asarray(value, dtype=dst._dtype)
                if arr.shape != dst.shape:
                    raise ValueError(f"forward: {name!r} has shape {arr.shape}, the bound "
                                     f"argument has shape {dst.shape}")
                dst[:] = arr
        is_train = bool(is_train)
        self._retake()
        self._forward_pass = is_train
        if self._monitor is not None:
            self._run_monitored(self._forward_steps(is_train))
            return self.outputs
        kind = "fwd" if is_train else "inference"
        on, max_nodes = _bulk_settings(kind)
        key = (kind, on, max_nodes)
        plan = self._plans.get(key)
        if plan is None:
            steps = self._forward_steps(is_train)
            plan = _segments(steps, max_nodes) if on else [_single(s) for s in steps]
            self._plans[key] = plan
        for push in plan:
            push()
        if is_train and getattr(self, "_releasing", False):   # a Module's (memory.py)
            _push_drop(_release.drop_values, self._unread_by_backward())
        return self.outputs

    # -- backward -----------------------------------------------------------------------
    def backward(self, out_grads=None, is_train=True):
        """Push the gradient ops; gradients land in ``grad_arrays`` per ``grad_req``."""
        if getattr(self, "_dropped", None):
            # a second backward after its temporaries went (release_temporaries): the
            # forward pass is pushed again to remake what the gradients read
            self.forward(is_train=True)
        self._retake("_dropped_bwd")
        heads = self._head_buffers()
        if out_grads is None:
            if self._head_state != "ones":
                for h in heads:
                    _nd.engine_push(_fill_ones, (h,), [], [h], "_ones", 0, MODE_INTERNAL,
                                    0, None)
                self._head_state = "ones"
        else:
            if isinstance(out_grads, (_nd.NDArray, np.ndarray)):
                out_grads = [out_grads]
            out_grads = list(out_grads)
            if len(out_grads) < len(heads):
                raise ValueError(f"backward: {len(out_grads)} out_grads for {len(heads)} outputs")
            out_grads = out_grads[:len(heads)]   # as MXNet: gradients past the outputs unread
            copy = _registry.get("CopyCPU2CPU")
            for i, (g, h) in enumerate(zip(out_grads, heads)):
                n = self._symbol._outputs[i][0]
                if n.op is not None and not n.op.reads_out_grads(n.full_params()):
                    continue      # as MXNet: a gradient its op never reads is left unread
                if not isinstance(g, _nd.NDArray):
                    g = _nd.from_numpy(np.asarray(g, dtype=h._dtype), self._ctx)
                if g.shape != h.shape:
                    raise ValueError(f"backward: out_grads[{i}] has shape {g.shape}, output "
                                     f"{i} has shape {h.shape}")
                _nd.push_op(copy, (g,), {}, outs=[h], mode=MODE_SYMBOLIC,
                            attrs={"name": f"out_grad{i}"})
            self._head_state = "given"
        if self._monitor is not None:
            self._run_monitored(self._backward_steps())
            return
        on, max_nodes = _bulk_settings("bwd")
        key = ("bwd", on, max_nodes)
        plan = self._plans.get(key)
        if plan is None:
            steps = self._backward_steps()
            plan = _segments(steps, max_nodes) if on else [_single(s) for s in steps]
            self._plans[key] = plan
        for push in plan:
            push()

    def _head_buffers(self):
        bufs = getattr(self, "_heads", None)
        if bufs is None:
            bufs = self._heads = []
            for o in self.outputs:
                b = _nd.new_array(o.shape, o._dtype, self._ctx, "head_grad")
                _fill_ones(b)
                bufs.append(b)
        return bufs

    def _backward_steps(self):
        """Steps of the backward pass (built once, at the first ``backward``)."""
        if self._bwd_steps is not None:
            return self._bwd_steps
        entry, ctx = self._entry, self._ctx
        reqs = self._grad_req
        need = set()
        for n in self._order:
            if n.op is None:
                if reqs.get(n.name, "null") != "null" and n.name in self.arg_dict:
                    need.add(id(n))
            elif any(id(c) in need for c, _ in n.inputs[:n.n_args]):
                need.add(id(n))
        contrib, count = {}, {}
        heads = self._head_buffers()
        for (n, i), h in zip(self._symbol._outputs, heads):
            if id(n) in need:
                contrib.setdefault((id(n), i), []).append(h)
                count[(id(n), i)] = count.get((id(n), i), 0) + 1
        for n in self._order:
            if n.op is not None and id(n) in need:
                for c, i in n.inputs[:n.n_args]:
                    if id(c) in need:
                        count[(id(c), i)] = count.get((id(c), i), 0) + 1
        steps, direct = [], set()
        zeros = {}
        # MXNet's MXNET_EXEC_INPLACE_GRAD_SUM_CAP (8): a variable with that many gradient
        # contributions or more (an unrolled RNN's weights) sums them as they come, a
        # chain of _grad_add into one array; every part after the first is written into
        # one buffer (the engine orders each write after the previous add read it),
        # instead of one buffer per part and an add_n of them all at the end
        cap = _env.get_int("EXEC_INPLACE_GRAD_SUM_CAP", 8)
        chains = {}

        def zeros_like(a):
            key = (a.shape, a._dtype)
            z = zeros.get(key)
            if z is None:
                z = zeros[key] = _zeros(a.shape, a._dtype, ctx, "zeros")
            return z

        def accumulate(parts, out, label, add_to=False):
            if add_to:
                parts = [out] + parts
            opname = "add_n" if len(parts) > 1 else "_copy"
            fn = _add_n if len(parts) > 1 else _copy
            steps.append(_Step(opname, label, _run, (fn, list(parts), [out], {}),
                               list(parts), [out], sum(p.size for p in parts)))

        for n in reversed(self._order):
            if n.op is None or id(n) not in need:
                continue
            ograds = []
            for i in range(n.num_outputs()):
                out = entry[(id(n), i)]
                parts = contrib.pop((id(n), i), None)
                if not parts:
                    ograds.append(zeros_like(out))
                elif len(parts) == 1:
                    ograds.append(parts[0])
                else:
                    total = _nd.new_array(out.shape, out._dtype, ctx, "grad_sum")
                    accumulate(parts, total, f"{n.name}_output{i}")
                    ograds.append(total)
            ins = [entry[(id(c), i)] for c, i in n.inputs]
            args = ins[:n.n_args]
            bufs = []
            needs = [id(c) in need for c, _ in n.inputs[:n.n_args]]
            # a custom op is told 'null' for the inputs whose gradient nobody reads (a
            # Module's label), as MXNet's executor tells it
            grad_reqs = ["write" if needed else "null" for needed in needs]
            # a stateful op's backward writes every input gradient; a monitor sees them all
            stateful = n.op.stateful
            every = stateful or self._monitor is not None
            if every:
                needs = [True] * len(needs)
            watched = []
            added = []          # (running sum, this part) of chained variables
            for (c, i), x, needed in zip(n.inputs[:n.n_args], args, needs):
                if not needed and not every:
                    continue      # nobody reads this gradient: never computed
                key = (id(c), i)
                req = reqs.get(c.name)
                chained = c.op is None and id(c) in need and count.get(key, 0) >= cap \
                    and req in ("write", "add") and self._monitor is None
                if c.op is None and req == "write" and count.get(key) == 1 \
                        and key not in direct:
                    buf = self.grad_dict[c.name]
                    direct.add(key)
                elif chained and key not in chains:     # the first part: the sum
                    buf = self.grad_dict[c.name] if req == "write" else _nd.new_array(
                        x.shape, x._dtype, ctx, "_backward_" + n.op.name)
                    chains[key] = [buf, None]
                elif chained:
                    chain = chains[key]
                    if chain[1] is None:
                        chain[1] = _nd.new_array(x.shape, x._dtype, ctx,
                                                 "_backward_" + n.op.name)
                    buf = chain[1]
                    added.append((chain[0], buf))
                else:
                    buf = _nd.new_array(x.shape, x._dtype, ctx, "_backward_" + n.op.name)
                bufs.append(buf)
                watched.append((f"{n.name}_backward_{len(watched)}".encode(), buf))
                if id(c) in need and not chained:
                    contrib.setdefault(key, []).append(buf)
            outs = [entry[(id(n), i)] for i in range(n.num_outputs())]
            if stateful:
                steps.append(self._stateful_backward_step(n, ograds, args, ins[n.n_args:],
                                                          outs, bufs, grad_reqs))
                steps[-1].watch = watched
                self._chain_steps(steps, added, n.name)
                continue
            op = n.op
            if op.grad is None:
                raise ValueError(f"backward: operator {op.name!r} (node {n.name!r}) has no "
                                 "gradient")
            params = n.full_params()
            kernel = op.grad_kernel(len(outs), len(args), params, needs)
            all_in = ograds + args + outs
            cost = op.grad_cost(args, params)
            steps.append(_Step(op.grad_name, n.name, _run, (kernel, all_in, bufs, {}),
                               all_in, bufs, cost))
            steps[-1].watch = watched
            self._chain_steps(steps, added, n.name)
        for n in self._order:
            if n.op is not None or id(n) not in need:
                continue
            key = (id(n), 0)
            if key in chains:
                if reqs[n.name] == "add":
                    accumulate([chains[key][0]], self.grad_dict[n.name], n.name, add_to=True)
                continue
            parts = contrib.get(key)
            if not parts or key in direct:
                continue
            req = reqs[n.name]
            accumulate(parts, self.grad_dict[n.name], n.name, add_to=(req == "add"))
            contrib.pop(key)
        self._bwd_steps = steps
        return steps

    def _stateful_backward_step(self, n, ograds, args, aux, outs, bufs, reqs):
        op, params = n.op, n.full_params()
        state = self._state(n, args + aux)

        def push():
            op.push_backward(state, params, ograds, args + aux, outs, bufs, MODE_SYMBOLIC,
                             reqs=reqs)
        return _Step(op.grad_name, n.name, None, None, ograds + args, bufs, 0, push)

    # -- monitoring ----------------------------------------------------------------------
    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` for every array a node computes (its inputs
        too with ``monitor_all``), right after the node is pushed; ``name`` is bytes,
        as MXNet's C API gives it (``mx.base.py_str`` decodes it). A monitored
        executor pushes one op per node (no bulk segments) and computes every input
        gradient of a node in backward; ``None`` switches monitoring off."""
        self._set_monitor(callback, monitor_all, False, "set_monitor_callback")

    def _set_op_hook(self, callback, monitor_all=False):
        """Gluon's ``register_op_hook``: ``callback(name, operator name, array)`` for the
        same arrays, the inputs named only ``<node>_<input>`` (names and operator
        names as bytes)."""
        self._set_monitor(callback, monitor_all, True, "register_op_hook")

    def _set_monitor(self, callback, monitor_all, op_hook, what):
        if callback is not None and not callable(callback):
            raise ValueError(f"{what}: {callback!r} is not callable")
        monitor = None if callback is None else (callback, bool(monitor_all), op_hook)
        if monitor != self._monitor:
            self._monitor = monitor
            self._plans.clear()
            self._bwd_steps = None

    def _run_monitored(self, steps):
        callback, monitor_all, op_hook = self._monitor
        for step in steps:
            opname = step.opname.encode()
            if monitor_all:
                for name, a, own in step.watch_in:
                    if not op_hook:
                        callback(name, a)
                    elif not own:
                        callback(name, opname, a)
            _single(step)()
            for name, a in step.watch:
                if op_hook:
                    callback(name, opname, a)
                else:
                    callback(name, a)

    # -- reshaping -------------------------------------------------------------------------
    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes (``name=shape``) that shares every array
        whose shape is unchanged (the parameters, their gradients) with this one.

        An argument whose shape changes must be named, unless ``partial_shaping``; one
        that grows needs ``allow_up_sizing`` (MXNet's rule: bind the largest shape
        first). Changed arrays are new zero-filled arrays."""
        sym = self._symbol
        arg_shapes, _, aux_shapes = sym.infer_shape(**kwargs)
        if arg_shapes is None:
            raise ValueError("reshape: cannot infer every shape from "
                             + ", ".join(f"{k}={v}" for k, v in kwargs.items()))
        def pick(kind, name, old, shape, grad=False):
            shape = tuple(shape)
            if old is None:
                return None
            if old.shape == shape:
                return old
            if name not in kwargs and not partial_shaping:
                raise ValueError(f"reshape: the shape of {kind} {name!r} changes from "
                                 f"{old.shape} to {shape} but it was not given; pass "
                                 "partial_shaping=True if that is intended")
            if math.prod(shape) > old.size and not allow_up_sizing:
                raise ValueError(f"reshape: {kind} {name!r} grows from {old.shape} to "
                                 f"{shape}; pass allow_up_sizing=True (or bind the "
                                 "largest shape first)")
            return _zeros(shape, old._dtype, old.context, "grad" if grad else kind)

        args = [pick("argument", n, a, s) for n, a, s in
                zip(self._arg_names, self.arg_arrays, arg_shapes)]
        grads = [pick("argument", n, g, s, True) for n, g, s in
                 zip(self._arg_names, self.grad_arrays, arg_shapes)]
        aux = [pick("auxiliary state", n, a, s) for n, a, s in
               zip(self._aux_names, self.aux_arrays, aux_shapes)]
        reqs = dict(self._grad_req)
        new = type(self)(sym, self._ctx, args, grads, reqs, aux)
        if self._monitor is not None:
            new._set_monitor(*self._monitor, "reshape")
        return new

    # -- conveniences ---------------------------------------------------------------------
    def debug_str(self):
        """A text listing of the bound graph: each node with its inputs and shapes, and
        the bytes of the arrays this executor holds."""
        lines = ["Symbol Outputs:"]
        for i, (n, k) in enumerate(self._symbol._outputs):
            lines.append(f"\toutput[{i}]={n.name}({k})")
        total = 0
        for n in self._order:
            if n.op is None:
                a = self.arg_dict.get(n.name, self.aux_dict.get(n.name))
                lines.append(f"Variable:{n.name}" + (f" shape={a.shape}" if a is not None
                                                     else ""))
                continue
            opname = n.op.display_name(n.params)
            lines.append("--------------------")
            lines.append(f"Op:{opname}, Name={n.name}")
            lines.append("Inputs:")
            for j, (c, k) in enumerate(n.inputs):
                lines.append(f"\targ[{j}]={c.name}({k}) shape="
                             f"{self._shape.get((id(c), k))}")
            for k in range(n.num_outputs()):
                shape = self._shape.get((id(n), k))
                lines.append(f"Output[{k}] shape={shape}")
                if shape is not None:
                    total += math.prod(shape) * np.dtype(self._dtype[(id(n), k)]).itemsize
        for a in self.arg_arrays + self.aux_arrays + [g for g in self.grad_arrays if g is not None]:
            total += a.size * a._dtype.itemsize
        lines.append(f"Total {total / (1 << 20):.4f} MB allocated")
        return "\n".join(lines) + "\n"

    def get_optimized_symbol(self):
        """The symbol this executor runs: xprof applies no graph rewriting (no operator
        fusion or subgraph backends), so it is a copy of the bound symbol."""
        return self._symbol.copy()

    @property
    def output_dict(self):
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    @property
    def symbol(self):
        return self._symbol

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy arrays by name into ``arg_dict`` / ``aux_dict``."""
        for target, params in ((self.arg_dict, arg_params), (self.aux_dict, aux_params)):
            for name, value in (params or {}).items():
                dst = target.get(name)
                if dst is None:
                    if allow_extra_params:
                        continue
                    raise ValueError(f"copy_params_from: {name!r} is not an argument or "
                                     "auxiliary state of the symbol")
                if value.shape != dst.shape:
                    raise ValueError(f"copy_params_from: {name!r} has shape {value.shape}, "
                                     f"expected {dst.shape}")
                value.copyto(dst)

    def __repr__(self):
        return f"<Executor {self._symbol!r} @{self._ctx}>"

