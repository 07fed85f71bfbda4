"""``mx.operator``: custom operators written in Python, run and profiled as in MXNet.

A call (``mx.nd.Custom``, a ``Custom`` node of a bound symbol, or its backward) is pushed
as one *internal* async engine op that reads the inputs and writes the outputs; it is
never profiled. When its inputs are ready it hands the Python ``forward``/``backward`` to
a pool of custom-operator worker threads (inline under NaiveEngine). There the code sees
fresh NDArray handles on the same data, with their own engine variables, so the
sub-operators it pushes are ordinary, asynchronous engine ops. The thread runs inside
:class:`~xprof.runtime.engine.attribution`, so each sub-operator is stamped with the
call (its profile name becomes ``<op_type>::<op name>``, category ``Custom Operator``)
and never runs inline on the Python thread. The call completes when an internal
dependency-only op that reads every output handle runs: it moves the handles' data to
the real outputs and calls the engine's ``on_complete``.

Profile events per call: ``<op_type>::pure_python`` (exactly the Python ``forward`` on
the worker thread) or ``_backward_<op_type>::pure_python``, one event per sub-operator,
and flow arrows from the Python slice to each sub-operator. Creating the operator
(``create_operator``, on the caller's thread) is the call's too, while recording: the
ops it launches are sub-operators (``<op_type>::<name>``), its Python time the call's
Setup (:func:`create_operator`).
"""
import warnings
from time import perf_counter_ns

import numpy as np

from . import autograd
from . import engine as _engine
from .custom_pool import pool as _pool   # the threads that run forward/backward
from .engine.base import (ALWAYS_RUN, MODE_IMPERATIVE, attribution, tag_entry as _tag_entry,
                          tag_exit as _tag_exit, tags_set as _tags_set,
                          thread_state as _thread_state)
from .ndarray import ndarray as _nd
from .custom_props import (_registry, custom_op_types, describe, infer,  # noqa: F401
                           make_prop, prop_for)
from .ops import registry as _ops
from .profiler import sampler as _sampler
from .profiler.observer import flags as _flags, observer as _observer

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]

_REQS = ("null", "write", "inplace", "add")


class CustomOp:
    """Base class of a custom operator's implementation (``forward``/``backward``)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError(f"{type(self).__name__}.backward is not implemented")

    def assign(self, dst, req, src):
        """Store ``src`` into ``dst`` according to ``req``."""
        if req == "null":
            return
        if req not in _REQS:
            raise ValueError(f"assign: req {req!r} is not allowed; use one of "
                             + ", ".join(_REQS))
        if req in ("write", "inplace"):
            dst[:] = src
        else:
            dst += src


class CustomOpProp:
    """Describes a custom operator: arguments, outputs, shapes, types, and its factory."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]] * len(self.list_outputs()), \
            [in_shape[0]] * len(self.list_auxiliary_states())

    def infer_type(self, in_type):
        t = in_type[0] if in_type else np.float32
        return in_type, [t] * len(self.list_outputs()), \
            [t] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), \
            ["default"] * len(self.list_auxiliary_states())

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        raise NotImplementedError(f"{type(self).__name__}.create_operator is not implemented")


def register(reg_name):
    """Class decorator: register a :class:`CustomOpProp` subclass as ``reg_name``."""
    if not isinstance(reg_name, str) or not reg_name:
        raise ValueError(f"register: name {reg_name!r} is not allowed; use a non-empty string")

    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise ValueError(f"register({reg_name!r}): {prop_cls!r} is not a CustomOpProp "
                             "subclass")
        if reg_name in _registry:
            warnings.warn(f"custom operator {reg_name!r} is already registered; the new "
                          f"definition {prop_cls.__name__} replaces it", stacklevel=2)
        _registry[reg_name] = prop_cls
        return prop_cls

    return do_register


def get_all_registered_operators():
    """Every operator name: the native ones (as MXNet lists them: ``Activation``,
    ``Convolution``... and ``Custom``) and the registered custom op types."""
    return sorted(set(_ops.registry) | set(_registry))


class Call:
    """Attribution tag of one custom-operator call (read by the engine and profiler),
    and of creating its operator when the call did (``create_operator``, while
    recording: one object for both, made once). ``mode`` is the profile mode its
    sub-operators carry; ``names`` the call's event names (``observer.CallNames``,
    built once per op type); ``tid``, ``t_start`` and ``profiled`` are stamped by
    ``observer.call_begins`` (while the operator is created: by
    ``observer.setup_begins``, with the caller's track and the creation's start, also
    in ``setup_tid``/``setup_t0``, which the call keeps). ``in_call``: ops it pushes run
    inside its call (``waitall`` would wait for it); False while the operator is
    created, on the caller's thread. The call's span: ``t_span``
    (``observer.call_pushed``, 0 = no span), ``t_return`` (``call_ends``), ``blocked``
    (``call_waited``, on the call's thread), ``subs`` (its sub-operators' run times,
    appended by the workers that ran them, the creation's first), ``setup`` (the
    creation's Python time, 0 when the call reused an operator). Its dependency record
    (``t_push``, ``t_ready``, ``pusher``, ``reads``, ``writes``) and ``t_span`` are
    set by ``run_call``'s ``dispatch`` while its mode is profiled."""

    __slots__ = ("name", "names", "mode", "tid", "t_start", "profiled", "in_call",
                 "t_push", "pusher", "t_ready", "reads", "writes",
                 "t_span", "t_return", "blocked", "subs", "setup", "sample",
                 "setup_tid", "setup_t0", "events", "here", "pend")

    def __init__(self, name, mode):
        self.name = name
        self.names = _observer.call_names(name)
        self.mode = mode
        self.tid = None
        self.t_start = self.t_push = self.t_ready = self.t_span = 0
        self.t_return = self.blocked = self.setup = 0
        self.profiled = False
        self.in_call = True
        self.sample = None   # the line sampler's entry while its Python code runs
        self.subs = []
        self.events = None   # its thread's record list (call_begins, setup_begins)
        self.here = None     # sub-operators of a call packed in one record (call_begins)
        self.pend = None     # where its packed record goes (call_begins)


def create_operator(prop, op_type, ctx, in_shapes, in_dtypes, mode=MODE_IMPERATIVE):
    """``prop.create_operator(ctx, in_shapes, in_dtypes)``, as the call's own work:
    ``(op, setup)`` where ``setup`` (the :class:`Call` of the first call run with
    ``op``, or None when nothing is recorded) goes to that call
    (``run_call(..., setup=)``). While it runs, the thread's tag is that call, not yet
    in it: the ops the creation pushes are the operator's (``<op_type>::<name>``, its
    Sub-operators, with flow arrows from the caller's track), and its Python time on
    the caller's thread is the call's ``Setup``. The tag is set in place rather than
    with :class:`attribution` (the same field and ``tags_set`` entry, no object and no
    call made): this runs on every imperative call, MXNet creating the operator per
    call."""
    if not (_flags.recording and _observer.mask & mode):   # (the API mode alone: nothing
        return prop.create_operator(ctx, in_shapes, in_dtypes), None   # of a Setup is kept)
    setup = Call(op_type, mode)
    setup.in_call = False   # (on the caller's thread, before the call: waitall is allowed)
    st = _thread_state
    saved = st.tag if _tags_set else None   # (no tag anywhere: none to read)
    _tag_entry(None)
    st.tag = setup   # (and the ops it pushes never run inline here)
    _observer.setup_begins(setup)   # tid, t_start (the sub-operators' pusher, flow start)
    try:
        op = prop.create_operator(ctx, in_shapes, in_dtypes)
    finally:
        st.tag = saved
        _tag_exit()
        if setup.sample is not None:   # (the line sampler's: most creations have none)
            _observer.setup_ends(setup)
    setup.setup = perf_counter_ns() - setup.setup_t0
    setup.in_call = True
    return op, setup


def _handle(src, data=None):
    """A new NDArray on ``src``'s data (or ``data``) with its own engine variable."""
    return _nd.new_handle(src, src._data if data is None else data)


def _warn_user(code_of, message):
    """A ``RuntimeWarning`` about the user's code, located at it: the first line of
    ``code_of`` (the ``forward``/``backward`` method that did not assign an output), in
    its module's warning registry, so the message names the user's file and line (the
    warning is raised on an engine thread, after the code returned: no frame of the
    user's is on the stack for ``stacklevel`` to find)."""
    func = getattr(code_of, "__func__", code_of)
    code = getattr(func, "__code__", None)
    if code is None:   # not Python code (a builtin, a callable object): no place to name
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return
    g = func.__globals__
    warnings.warn_explicit(message, RuntimeWarning, code.co_filename, code.co_firstlineno,
                           module=g.get("__name__"),
                           registry=g.setdefault("__warningregistry__", {}),
                           module_globals=g)


def run_call(name, mode, body, reads, outputs, write_reqs, check_names=None, setup=None,
             code_of=None, pusher=None):
    """Push one custom-operator call.

    ``body(handles_for(arrays))`` is the Python code; it receives a function that makes
    handles and returns the output handles to wait for. ``outputs`` are the real arrays
    the call writes; ``write_reqs`` their reqs (for the never-assigned warning, located
    at ``code_of``, the user's ``forward``/``backward``); ``setup`` the :class:`Call`
    that ``create_operator`` made when this call's operator was created for it;
    ``pusher``: this thread's track when the caller has it (the creation's, stamped by
    ``observer.setup_begins`` on this thread: no second thread-local read).
    """
    inline = _engine.get().synchronous   # everything runs on the pushing thread
    # the call's stamps only when its mode is profiled: the API mode alone records none
    # of them (call_begins finds the call not profiled), so it makes none
    pushed = None
    if _flags.recording and _observer.mask & mode:
        pushed = _observer.pushed_by() if pusher is None else (perf_counter_ns(), pusher)

    def dispatch(on_complete, stamps):
        # (pushed ALWAYS_RUN, so the pool's counts stay right:) an input a failed op
        # wrote carries its error on, as every other op's does, to the outputs, and so to
        # whatever reads them next: a Module's metric, the next forward (#40.1)
        for r in reads:
            if r.exc is not None:
                on_complete(r.exc)
                return
        call = Call(name, mode) if setup is None else setup
        # The call's dependency record (profiling only; set here: a method call costs
        # ~400 instructions): pushed at t_push by the thread with track `pusher`, ready
        # at t_ready (its inputs were), the id()s of its inputs and outputs (a tuple
        # display for up to three: cheaper than tuple(map(id, ...))); its span's start. The
        # engine's stamps of the call's op when it has them (the op was ready when its
        # inputs were, and the wait for an engine worker to hand the call to the pool is
        # queue wait like the pool's own queue); else (run at once: NaiveEngine) the
        # push, for both: it ran as it was pushed, its inputs ready then.
        if pushed is not None:
            if stamps[0]:
                call.t_push, call.t_ready, call.pusher = stamps
            else:
                call.t_push, call.pusher = pushed
                call.t_ready = call.t_push
            n = len(reads)   # (a backward reads three: its output's gradient, input, output)
            call.reads = id(reads[0]) if n == 1 else (id(reads[0]), id(reads[1])) if n == 2 \
                else (id(reads[0]), id(reads[1]), id(reads[2])) if n == 3 \
                else tuple(map(id, reads))
            call.writes = id(outputs[0]) if len(outputs) == 1 else \
                tuple(map(id, outputs))
            call.t_span = t_span
        if inline:
            _execute(call, body, outputs, write_reqs, check_names, on_complete, code_of, True)
            return

        def complete(exc=None):
            _pool.finished()
            on_complete(exc)

        _pool.started()
        _pool.submit(lambda: _execute(call, body, outputs, write_reqs, check_names,
                                      complete, code_of), complete, name)

    if not inline:
        _pool.throttle()
    if pushed is None:   # not recording: no span
        t_span = 0
    elif inline:   # pushed and run here at once: the push stamp is the span's start too
        t_span = pushed[0] if _observer.call_spans else 0
    else:   # after the pool's throttle, as before the stamps existed
        t_span = _observer.call_pushed()
    _nd.engine_push_async(dispatch, (), list(reads), list(outputs), "Custom", mode=ALWAYS_RUN,
                          stamped=True)


def _execute(call, body, outputs, write_reqs, check_names, on_complete, code_of=None,
             inline=False):
    """On a custom-op worker: run the Python code, then wait for its sub-operators
    (``inline``: on the pushing thread, under NaiveEngine, where the call also
    completes: its span is recorded on this thread's list, ``call.events``).

    pool thread -> ``observer.call_begins`` -> ``body`` pushes sub-operators (tagged with
    the call by ``attribution``) -> ``observer.call_ends`` -> the dependency-only op
    ``CustomOperatorWait`` completes the call when they are done (``observer.call_done``:
    the call's span, pushed -> outputs ready)."""
    out_handles = [_handle(o, o._data if o._data is not None else np.empty(o.shape, o._dtype))
                   for o in outputs]
    placeholders = [h._data for h in out_handles]
    _observer.call_begins(call, inline)
    try:
        with attribution(call):
            body(out_handles)
    except BaseException as e:  # noqa: BLE001 - reaches the caller at the next sync point
        if call.profiled:   # (the observer records nothing for a call not profiled)
            _observer.call_ends(call)
            _observer.call_done(call)
        if not isinstance(e, Exception) and not _pool.owns_thread():
            on_complete(None)   # Ctrl-C in a forward run inline: the program's, not the op's
            raise
        on_complete(e)
        return
    profiled = call.profiled
    if _engine._slow is not None and profiled:   # xprof run --slow: its Python
        _slow_call(call)
    if profiled:
        _observer.call_ends(call)

    def finish(handles):
        exc = None
        for h in handles:
            if h.exc is not None:
                exc = h.exc
                break
        if exc is None:
            for i, (o, h, ph, req) in enumerate(zip(outputs, handles, placeholders,
                                                     write_reqs)):
                if req == "write" and h._data is ph and check_names is not None:
                    what = "backward" if call.name.startswith("_backward_") else "forward"
                    _warn_user(code_of, f"custom operator {call.name!r}: {what} did not "
                               f"assign output {i} ({check_names[i]!r}) whose req is "
                               f"'write'")
                o._data = h._data
        if profiled:
            _observer.call_done(call, call.events if inline else None)
        on_complete(exc)

    # The dependency-only op: runs once every sub-operator writing an output is done.
    _nd.engine_push(finish, (out_handles,), list(out_handles), [], "CustomOperatorWait",
                    mode=ALWAYS_RUN)


def _slow_call(call):
    """``xprof run --slow``: the call's Python, made slower by the wait its spec asks for
    (its waits at sync points are not its Python), before it returns; marked for the
    trace on its ``pure_python`` record (which starts at ``call.t_start``)."""
    slow = _engine._slow
    python = perf_counter_ns() - call.t_start - call.blocked
    here = call.here   # sub-operators it ran at once here (NaiveEngine): not its Python
    if here:
        python -= sum(here[i + 2] - here[i + 1] for i in range(0, len(here), 5))
    extra = slow.call_extra(call.name, python)
    if extra:
        slow.spin(extra)
        _observer.slowed[call.t_start] = extra


# -- forward / backward entry points ------------------------------------------------------
def custom_call(op_type, inputs, kwargs, mode=MODE_IMPERATIVE, is_train=None, outputs=None,
                aux=None, reqs=None, prop=None, op=None, record=True, setup=None):
    """Run a custom op forward on NDArrays; return the output NDArrays (and record for
    autograd when recording and ``record``). ``op``: a CustomOp instance to reuse (an
    executor creates one with :func:`create_operator` and keeps it for backward; its
    ``setup`` comes with the first call)."""

    in_shapes = [x.shape for x in inputs]
    in_dtypes = [x._dtype for x in inputs]
    if prop is None:
        prop, oshapes, ashapes, odtypes, adtypes, out_names = describe(
            op_type, kwargs, in_shapes, in_dtypes)
    else:
        _, oshapes, ashapes, odtypes, adtypes = infer(prop, op_type, in_shapes, in_dtypes)
        out_names = list(prop.list_outputs())
    if inputs:
        ctx = inputs[0].context
    else:
        from .context import current_context
        ctx = current_context()
    if outputs is None:
        # of the callers' kind: mx.np arrays in, mx.np arrays out (and as handles);
        # with sparse inputs, the storage types the prop infers (MXNet's
        # infer_storage_type)
        cls = inputs[0].__class__ if inputs else _nd.NDArray
        classes = [cls] * len(oshapes)
        if any(x.stype != "default" for x in inputs):
            from .ndarray.sparse import class_of
            stypes = prop.infer_storage_type([x.stype for x in inputs])[1]
            classes = [class_of(t) for t in stypes]
        outputs = [_nd.new_array(s, d, ctx, op_type, c)
                   for s, d, c in zip(oshapes, odtypes, classes)]
    if aux is None:
        aux = [_nd.new_array(s, d, ctx, op_type + "_aux") for s, d in zip(ashapes, adtypes)]
        for a in aux:
            a._data = np.zeros(a.shape, a._dtype)
    if is_train is None:
        is_train = autograd.state.training
    reqs = list(reqs or ["write"] * len(outputs))
    pusher = None
    if op is None:
        op, setup = create_operator(prop, op_type, ctx, [list(s) for s in in_shapes],
                                    [x.dtype for x in inputs], mode)
        if setup is not None:   # created here: its track is this thread's
            pusher = setup.tid
    n_out = len(outputs)

    def body(out_handles):
        op.forward(is_train=is_train, req=reqs, in_data=[_handle(x) for x in inputs],
                   out_data=out_handles[:n_out], aux=out_handles[n_out:])

    if aux:
        run_call(op_type, mode, body, list(inputs), list(outputs) + list(aux),
                 reqs + ["inplace"] * len(aux), out_names + ["aux"] * len(aux), setup,
                 op.forward, pusher)
    else:
        run_call(op_type, mode, body, list(inputs), list(outputs), reqs, out_names, setup,
                 op.forward, pusher)
    if record and autograd.state.recording:   # an ordinary op to autograd (CUSTOM_OP)
        autograd.record_op(CUSTOM_OP, list(inputs) + list(aux), outputs,
                           {"op_type": op_type, **kwargs},
                           state=_CustomState(op_type, kwargs, prop, op))
    return outputs


def custom_backward(op_type, op, prop, ograds, inputs, outputs, aux, mode=MODE_IMPERATIVE,
                    in_grads=None, reqs=None):
    """Push ``backward`` of a custom op; return the input-gradient NDArrays."""
    ctx = inputs[0].context
    name = "_backward_" + op_type
    if in_grads is None:
        in_grads = [_nd.new_array(x.shape, x._dtype, ctx, name, x.__class__) for x in inputs]
    reqs = list(reqs or ["write"] * len(in_grads))
    ograds = list(ograds)

    def body(grad_handles):
        og_h = [_handle(g) for g in ograds]
        in_h = [_handle(x) for x in inputs]
        out_h = [_handle(o) for o in outputs]
        aux_h = [_handle(a) for a in aux]
        op.backward(req=reqs, out_grad=og_h, in_data=in_h, out_data=out_h,
                    in_grad=grad_handles, aux=aux_h)

    reads = ograds + list(inputs) + list(outputs) + list(aux)
    run_call(name, mode, body, reads, in_grads, reqs,
             ["in_grad of " + a for a in prop.list_arguments()], code_of=op.backward)
    return in_grads


# The line sampler's samples stop below these frames: the ones that call the user's
# forward/backward (the ``body`` closures) and create_operator.
_sampler.stop_codes.update(
    c for f in (custom_call, custom_backward) for c in f.__code__.co_consts
    if isinstance(c, type(f.__code__)) and c.co_name == "body")
_sampler.stop_codes.add(create_operator.__code__)


_arity = {}    # (op type, parameters) -> (arguments, auxiliary states) of its prop


def Custom(*inputs, op_type=None, out=None, name=None, **kwargs):
    """``mx.nd.Custom``: apply the registered custom operator ``op_type``."""
    if op_type is None:
        raise ValueError("Custom: op_type is required; registered: "
                         + (", ".join(sorted(_registry)) or "none"))
    inputs = list(inputs)
    named = [k for k, v in kwargs.items() if isinstance(v, _nd.NDArray)]
    if named:   # inputs given by argument name, in list_arguments() order
        order = make_prop(op_type, {k: v for k, v in kwargs.items() if k not in named}) \
            .list_arguments()
        for a in order[len(inputs):]:
            if a in kwargs:
                inputs.append(kwargs.pop(a))
        for k in named:
            if k in kwargs:
                raise ValueError(f"Custom {op_type!r}: {k!r} is not an argument; "
                                 f"arguments: {order}")
    for i, x in enumerate(inputs):
        if not isinstance(x, _nd.NDArray):
            raise ValueError(f"Custom {op_type!r}: input {i} is {type(x).__name__}, "
                             "not an NDArray")
    aux = None
    if len(inputs) > 1:      # MXNet: auxiliary states may follow the arguments
        key = (op_type, tuple(sorted((k, str(v)) for k, v in kwargs.items())))
        counts = _arity.get(key)
        if counts is None:
            prop = make_prop(op_type, kwargs)
            counts = _arity[key] = (len(prop.list_arguments()),
                                    len(prop.list_auxiliary_states()))
        if counts[1] and len(inputs) == sum(counts):
            inputs, aux = inputs[:counts[0]], inputs[counts[0]:]
    outs = custom_call(op_type, inputs, kwargs, aux=aux,
                       outputs=None if out is None else
                       ([out] if isinstance(out, _nd.NDArray) else list(out)))
    return outs[0] if len(outs) == 1 else outs


# -- ``Custom``, a registered operator (as MXNet's src/operator/custom/custom.cc) -------------
class _CustomState:
    """A ``Custom`` node's state (MXNet's ``OpStatePtr``): the op type, the user's
    parameters, the prop, the ``CustomOp`` made once for the node and, until its first
    call, the ``Setup`` of that creation."""

    __slots__ = ("op_type", "kwargs", "prop", "op", "setup")

    def __init__(self, op_type, kwargs, prop, op, setup=None):
        self.op_type, self.kwargs, self.prop, self.op, self.setup = \
            op_type, kwargs, prop, op, setup


def _runs_on_its_state(*inputs, **params):
    """``Custom`` has no kernel: it runs through its state (``CustomOpDef.push_forward``)."""
    raise TypeError("Custom runs through CustomOpDef.push_forward, not a kernel")


class CustomOpDef(_ops.OpDef):
    """The ``Custom`` operator: its params are ``op_type`` and the user's parameters, and
    every question the graph, inference, serialization, the executor and autograd ask of
    an op is answered by the registered ``CustomOpProp`` (``list_arguments``,
    ``list_outputs``, ``list_auxiliary_states``, ``infer_shape``, ``infer_type``). It is
    stateful: a node's state holds its ``CustomOp`` (``create_state``), and its forward
    and backward are custom-op calls pushed on it (``push_forward``/``push_backward``,
    the async call path above)."""

    stateful = True

    def __init__(self):
        super().__init__("Custom", _runs_on_its_state, arg_names=(), infer=self._infer,
                         num_outputs=self._n_outputs, infer_args=self._infer_args,
                         doc="A registered custom operator: ``op_type`` and its params.")

    # -- names and inference, from the prop --------------------------------------------
    @staticmethod
    def _n_outputs(params):
        return len(prop_for(params).list_outputs())

    def list_arguments(self, params):
        return list(prop_for(params).list_arguments())

    def list_outputs(self, params):
        return list(prop_for(params).list_outputs())

    def list_aux(self, params):
        return list(prop_for(params).list_auxiliary_states())

    def dtype_param(self, params):
        return None   # (a ``dtype`` parameter is the prop's to read)

    def infer_types(self, in_dtypes, params):
        prop = prop_for(params)
        n_args = len(prop.list_arguments())
        res = prop.infer_type([np.dtype(d).type for d in in_dtypes[:n_args]])
        return [np.dtype(t) for t in res[1]]

    def params_from_text(self, attrs, parse):
        return dict(attrs)   # the prop takes its parameters as the strings written

    def display_name(self, params):
        return f"Custom({params.get('op_type')})"

    @staticmethod
    def _infer(in_shapes, in_dtypes, **params):
        """(out_shapes, out_dtypes) from every input (the arguments, then the
        auxiliary states, whose shapes must be the prop's)."""
        prop = prop_for(params)
        n_args = len(prop.list_arguments())
        _, oshapes, ashapes, odtypes, _ = infer(prop, params.get("op_type"),
                                                in_shapes[:n_args], in_dtypes[:n_args])
        names = prop.list_auxiliary_states()
        for name, given, expected in zip(names, in_shapes[n_args:], ashapes):
            if tuple(given) != tuple(expected):
                raise ValueError(f"auxiliary state {name!r} has shape {tuple(given)}, "
                                 f"expected {tuple(expected)}")
        return oshapes, odtypes

    @staticmethod
    def _infer_args(in_shapes, **params):
        """The inputs' shapes the prop gives from partial ones (the data's): None for
        each it cannot tell (a prop that fails on partial shapes tells none)."""
        prop = prop_for(params)
        n_args = len(prop.list_arguments())
        try:
            res = prop.infer_shape([list(s) if s is not None else []
                                    for s in in_shapes[:n_args]])
            filled = list(res[0]) + (list(res[2]) if len(res) > 2 else [])
            return [s if s is not None and len(s) and all(int(d) > 0 for d in s) else None
                    for s in filled]
        except Exception:  # noqa: BLE001 - the prop cannot work with partial shapes
            return [None] * len(in_shapes)

    # -- running: a custom-op call pushed on the node's state --------------------------
    @staticmethod
    def create_state(params, ctx, args, mode):
        """The node's state: its ``CustomOp``, created once (``create_operator``)."""
        op_type = params.get("op_type")
        prop = prop_for(params)
        op, setup = create_operator(prop, op_type, ctx, [list(x.shape) for x in args],
                                    [x.dtype for x in args], mode)
        if setup is not None:   # its call runs later, maybe on another thread: its own
            setup.pend = None   # lists are read then (observer.call_begins)
        kwargs = {k: v for k, v in params.items() if k != "op_type"}
        return _CustomState(op_type, kwargs, prop, op, setup)

    @staticmethod
    def push_forward(state, params, args, aux, outs, is_train, mode):
        """Push the forward call into ``outs`` (the first call carries the Setup)."""
        setup, state.setup = state.setup, None
        custom_call(state.op_type, args, state.kwargs, mode=mode, is_train=is_train,
                    outputs=outs, aux=aux, reqs=["write"] * len(outs), prop=state.prop,
                    op=state.op, record=False, setup=setup)

    @staticmethod
    def push_backward(state, params, ograds, inputs, outputs, in_grads=None,
                      mode=MODE_IMPERATIVE, reqs=None):
        """Push the backward call; return the arguments' gradients (``inputs``: the
        arguments, then the auxiliary states). ``reqs``: each argument's, 'write'
        unless given ('null' for a gradient nobody reads, as the executor passes)."""
        n_args = len(state.prop.list_arguments())
        if reqs is None and in_grads is not None:
            reqs = ["write"] * len(in_grads)
        return custom_backward(state.op_type, state.op, state.prop, ograds,
                               list(inputs[:n_args]), list(outputs), list(inputs[n_args:]),
                               mode, in_grads=in_grads, reqs=reqs)


CUSTOM_OP = _ops.registry.get("Custom")
if CUSTOM_OP is None:   # (registered once per process, with the ops of ``ops/``)
    CUSTOM_OP = _ops.registry["Custom"] = CustomOpDef()


# mx.operator names whose code lives in the Symbol layer (operator must not import it)
LAZY_NAMES = {"NumpyOp": ("symbol.numpy_op", "NumpyOp"),
              "PythonOp": ("symbol.numpy_op", "PythonOp")}


def __getattr__(name):
    from . import _lazy
    return _lazy.resolve(globals(), LAZY_NAMES, name, __name__)
