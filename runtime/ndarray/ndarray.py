"""NDArray: an asynchronous array handle, and the one function that pushes operators.

An NDArray owns an engine variable and, once the op writing it has run, a numpy array
(``_data``). Creating one does not wait for anything; reading its values
(``asnumpy``, ``asscalar``, ``wait_to_read``) is a sync point. Memory is released when
the last reference goes; pending ops hold references to the arrays they use, so freeing
waits for them without any engine op.

:func:`push_op` is the single path from an operator call to the engine: shape/dtype
inference, output allocation, the push, autograd recording and API profiling all happen
there, for ``mx.nd`` calls, NDArray methods, autograd and the symbolic executor alike.
:data:`engine_push`/:data:`engine_push_async` are the one engine-facing helper for
everything else the runtime pushes (gradients, executor steps, bookkeeping ops,
custom-operator calls): keyword arguments and named op flags. Both reach the engine
through its methods bound once per engine (``engine.on_engine_change``), never through
the engine module's variable.
"""
import math
import numbers
from time import perf_counter_ns

import numpy as np

from .. import _lazy, engine as _engine
from ..base import as_mxnet_error as _as_mxnet_error
from ..context import Context, current_context
from ..engine.base import MODE_IMPERATIVE, Var
from ..ops import registry as _registry
from ..ops import python_level as _python_level
from . import indexing as _indexing
from ..ops.elemwise import SCALAR_FNS as _SCALAR_FNS
from ..ops.python_level import SWAPPED as _SWAPPED
from ..profiler.observer import flags as _flags, observer as _observer
from . import sparse_rules as _sparse_rules
from .memlog import allocated as _allocated, nbytes as _nbytes, _sizes
from .sparse_rules import _STORAGE_TYPE_STR_TO_ID  # noqa: F401 - MXNet's tests import it
from .opscope import (op_scope, op_scopes_set,  # noqa: F401 - set_op_attrs: API here
                      restore_op_attrs, set_op_attrs)
from xprof.traces.names import INPUT_DIMS

_ops = _registry.registry
_new = object.__new__
_same_shape = _registry.same_shape
_float32 = np.dtype(np.float32)

__all__ = ["NDArray", "push_op", "engine_push", "engine_push_async", "invoke", "new_array",
           "from_numpy", "waitall"]

_api_event = _observer.api
_waited = _observer.call_waited

# The current engine's push and wait methods, rebound when the engine is replaced.
#
# engine_push(fn, args, reads, writes, name, prio=0, mode=MODE_IMPERATIVE, cost=0,
#             attrs=None) and engine_push_async(fn, args, reads, writes, name, prio=0,
#             mode=ALWAYS_RUN, cost=0, stamped=False) are the one engine-facing helper for every engine op
# that is not an operator call (push_op): gradients, executor steps, bookkeeping ops,
# custom-operator calls. Call them with keyword arguments and named flags: ``mode`` is
# the profile mode of the pushing path (MODE_IMPERATIVE, MODE_SYMBOLIC) or ALWAYS_RUN
# (engine bookkeeping: runs even if an input failed, never profiled); engine_push_async
# is the ASYNC op (``fn(on_complete, *args)`` is done when ``on_complete(exc=None)`` is
# called, possibly later, from any thread; ``stamped=True``: ``fn(on_complete, stamps,
# *args)`` with the op's profiling stamps). They are the engine's bound methods
# themselves, not a wrapper: a Python call in between measured ~1,500 instructions per
# push (two per custom-operator call). Read them as ``ndarray.engine_push`` at the call:
# the binding changes with the engine.
engine_push = engine_push_async = _wait_for_var = _wait_all = None


def _bind_engine(eng):
    global engine_push, engine_push_async, _wait_for_var, _wait_all
    engine_push, engine_push_async = eng.push, eng.push_async
    _wait_for_var, _wait_all = eng.wait_for_var, eng.wait_all


_engine.on_engine_change(_bind_engine)


py_slice = slice     # MXNet's name for the builtin, imported by MXNet users' code
# Storage types as MXNet numbers them; xprof stores only 'default' (dense).

# Set by the autograd module when it is imported (it imports us, not the reverse).
_autograd = None
# NDArray methods whose code lives in the layer above (``mx.np``): name -> (module,
# attribute), resolved on first use into ``_ABOVE`` (see ``_lazy``)
_ABOVE_NAMES = {"as_np_ndarray": ("numpy.multiarray", "as_np_ndarray")}
_ABOVE = {}


def _dtype(dtype):
    if dtype is None:
        return _float32
    try:
        return np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype {dtype!r} is not a numpy dtype") from None


def _shape(shape):
    if isinstance(shape, numbers.Integral):
        shape = (int(shape),)
    try:
        dims = tuple(int(s) for s in shape)
        if any(d != s for d, s in zip(dims, shape)):   # 2.5, not a whole number
            raise ValueError
    except (TypeError, ValueError):   # ValueError: int('a') for shape='abc'
        raise ValueError(f"shape {shape!r} is not an int or a tuple of ints") from None
    shape = dims
    if any(s < 0 for s in shape):
        raise ValueError(f"shape {shape!r} has a negative dimension")
    return shape


class NDArray(Var):
    """An n-dimensional array whose values are computed asynchronously by the engine.

    The array is its own engine variable (it subclasses :class:`Var`): one object per
    array instead of two keeps creation cheap on the hot path.
    """

    __slots__ = ("_data", "shape", "_dtype", "context", "_ag", "_grad", "_grad_req",
                 "_released", "_fresh")
    __array_priority__ = 1000.0

    @property
    def _var(self):
        """The engine variable ordering ops on this array (the array itself)."""
        return self

    # -- metadata (never waits) -------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype.type

    @property
    def ctx(self):
        return self.context

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def stype(self):
        return "default"

    @property
    def handle(self):
        return self._var

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d NDArray")
        return self.shape[0]

    @property
    def T(self):
        return invoke("transpose", (self,), {})

    # -- sync points ---------------------------------------------------------------------
    def wait_to_read(self):
        t0 = perf_counter_ns() if _flags.recording else 0
        _wait_for_var(self)
        if t0:
            _waited(t0)
            if _flags.api:
                _api_event("wait_to_read", t0)

    def wait_to_write(self):
        self.wait_to_read()

    def asnumpy(self):
        """A numpy copy of the values (waits for the ops writing this array)."""
        t0 = perf_counter_ns() if _flags.recording else 0
        _wait_for_var(self)
        if t0:
            _waited(t0)
        out = np.array(self._data, dtype=self._dtype, copy=True)
        if t0 and _flags.api:
            _api_event("asnumpy", t0)
        return out

    def asscalar(self):
        if self.size != 1:
            raise ValueError(f"asscalar needs an array of size 1, not shape {self.shape}")
        return self.asnumpy().reshape(())[()]

    def item(self):
        return self.asscalar().item()

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __bool__(self):
        if self.size == 0:
            return False       # as in MXNet 1.x (numpy's deprecated answer)
        if self.size != 1:
            raise ValueError("the truth value of an NDArray with more than one element "
                             "is ambiguous")
        return bool(self.asscalar())

    def __index__(self):
        return int(self.asscalar())

    def __array__(self, dtype=None, copy=None):
        out = self.asnumpy()
        return out if dtype is None else out.astype(dtype)

    def tolist(self):
        return self.asnumpy().tolist()

    def __repr__(self):
        shape = "x".join(str(s) for s in self.shape)
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self.context}>"

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # -- copies and devices ---------------------------------------------------------------
    def copy(self):
        """A copy on the same device; as in MXNet (``copyto(self.context)``), the op is
        ``CopyCPU2CPU``."""
        return invoke("CopyCPU2CPU", (self,), {})

    def copyto(self, other):
        """Copy into ``other`` (an NDArray, op ``CopyCPU2CPU``) or a new array on a Context."""
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise ValueError(f"copyto: shapes differ: {self.shape} vs {other.shape}")
            return invoke("CopyCPU2CPU", (self,), {}, out=other)
        if isinstance(other, Context):
            other.check_available()
            out = new_array(self.shape, self._dtype, other, "CopyCPU2CPU", self.__class__)
            return invoke("CopyCPU2CPU", (self,), {}, out=out)
        raise ValueError(f"copyto: target {other!r} is not an NDArray or a Context")

    def as_in_context(self, context):
        if context == self.context:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def to_device(self, device):
        return self.as_in_context(device)

    def as_np_ndarray(self):
        """The same values as an ``mx.np.ndarray``, without waiting (MXNet's zero-copy
        conversion; the code is ``mx.np``'s, a layer above)."""
        fn = _ABOVE.get("as_np_ndarray") or _lazy.resolve(_ABOVE, _ABOVE_NAMES,
                                                          "as_np_ndarray", __name__)
        return fn(self)

    def as_nd_ndarray(self):
        return self

    def astype(self, dtype, copy=True):
        dtype = _dtype(dtype)
        if not copy and dtype == self._dtype:
            return self
        if _autograd.state.recording or self.__class__ is not NDArray:   # MXNet: copyto
            return invoke("Cast", (self,), {"dtype": dtype.name})
        return invoke("CopyCPU2CPU", (self,), {}, out=new_array(self.shape, dtype,
                                                               self.context, "astype"))

    # -- shape ops ------------------------------------------------------------------------
    def reshape(self, *shape, **kwargs):
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        return invoke("reshape", (self,), {"shape": tuple(shape), **kwargs})

    def transpose(self, *axes, **kwargs):
        """``x.transpose(1, 0)``, ``x.transpose((1, 0))`` or, as MXNet's fluent method,
        ``x.transpose(axes=(1, 0))``."""
        if "axes" in kwargs:
            if axes:
                raise TypeError("transpose: axes given both by position and as axes=")
            axes = (kwargs.pop("axes"),)
        if kwargs:
            raise TypeError(f"transpose: unknown argument {next(iter(kwargs))!r}; arguments: axes")
        if len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = axes[0]
        return invoke("transpose", (self,), {"axes": tuple(axes) if axes else ()})

    def broadcast_to(self, shape):
        return invoke("broadcast_to", (self,), {"shape": _shape(shape)})

    # -- reductions and math as methods ---------------------------------------------------------
    def sum(self, axis=None, keepdims=False, exclude=False):
        return invoke("sum", (self,), {"axis": axis, "keepdims": keepdims,
                                        "exclude": exclude})

    def mean(self, axis=None, keepdims=False, exclude=False):
        return invoke("mean", (self,), {"axis": axis, "keepdims": keepdims,
                                        "exclude": exclude})

    def max(self, axis=None, keepdims=False, exclude=False):
        return invoke("max", (self,), {"axis": axis, "keepdims": keepdims,
                                        "exclude": exclude})

    def min(self, axis=None, keepdims=False, exclude=False):
        return invoke("min", (self,), {"axis": axis, "keepdims": keepdims,
                                        "exclude": exclude})

    def argmax(self, axis=None, keepdims=False, out=None):
        # ``out=`` as MXNet's generated method has it (numpy's np.argmax(x, axis) passes
        # out=None and falls back to a numpy array without it)
        return invoke("argmax", (self,), {"axis": axis, "keepdims": keepdims}, out=out)

    def sqrt(self):
        return invoke("sqrt", (self,), {})

    def exp(self):
        return invoke("exp", (self,), {})

    def log(self):
        return invoke("log", (self,), {})

    def abs(self):
        return invoke("abs", (self,), {})

    def square(self):
        return invoke("square", (self,), {})

    def relu(self):
        return invoke("relu", (self,), {})

    def sigmoid(self):
        return invoke("sigmoid", (self,), {})

    def tanh(self):
        return invoke("tanh", (self,), {})

    def softmax(self, axis=-1):
        return invoke("softmax", (self,), {"axis": axis})

    def clip(self, a_min, a_max):
        return invoke("clip", (self,), {"a_min": a_min, "a_max": a_max})

    def zeros_like(self):
        return invoke("zeros_like", (self,), {})

    def ones_like(self):
        return invoke("ones_like", (self,), {})

    # -- autograd ---------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        _autograd.attach_grad(self, grad_req, stype and _sparse_rules.class_of(stype))

    @property
    def grad(self):
        return self._grad

    @property
    def _fresh_grad(self):
        """True once ``backward`` has written this variable's gradient (until reset)."""
        return getattr(self, "_fresh", False)

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        self._fresh = bool(value)

    def detach(self):
        """The same values, cut from the autograd graph (a copy op, ``_copy``)."""
        return push_op(_ops["_copy"], (self,), {})[0]

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        _autograd.backward([self], None if out_grad is None else [out_grad],
                           retain_graph=retain_graph, train_mode=train_mode)

    # -- indexing -----------------------------------------------------------------------------
    def __getitem__(self, key):
        if type(key) is slice and key == _FULL_SLICE:
            return self   # as in MXNet: x[:] is x (so dst[:] += src updates dst in place)
        key = _indexing.index_key(key, self.shape)
        return invoke("slice", (self,), {"key": key})

    def __setitem__(self, key, value):
        if type(key) is slice and key == _FULL_SLICE and isinstance(value, NDArray) \
                and value.shape == self.shape:   # x[:] = y, the common case: y.copyto(x)
            if value is not self:
                invoke("CopyCPU2CPU", (value,), {}, out=self)
            return
        if not self.shape and type(key) is slice and key == _FULL_SLICE:
            key = ()     # x[:] = v on a 0-d array (np shapes): the whole array, as MXNet
        key = _indexing.index_key(key, self.shape)
        full = all(k is Ellipsis or type(k) is slice and k == _FULL_SLICE for k in key)
        if isinstance(value, numbers.Number):
            if full:     # MXNet: x[:] = 1 is _full(out=x)
                invoke("_full", (), {"shape": self.shape, "dtype": self._dtype.name,
                                     "value": value}, out=self)
            else:
                invoke("_slice_assign_scalar", (self,), {"scalar": value, "key": key},
                       out=self)
            return
        if not isinstance(value, NDArray):
            value = from_numpy(np.asarray(value, dtype=self._dtype), self.context)
        if full and value.shape == self.shape:   # MXNet: x[:] = y is y.copyto(x)
            if value is not self:
                invoke("CopyCPU2CPU", (value,), {}, out=self)
        else:
            invoke("_slice_assign", (self, value), {"key": key}, out=self)

    # -- arithmetic: the operators of ops.python_level.OPERATORS, attached below ------------
    def _binary(self, other, names, out=None):
        # MXNet 1.x: broadcast_* whatever the shapes (Symbols, sparse arrays: elemwise_*)
        if isinstance(other, NDArray):
            return invoke(names[1], (self, other), {}, out=out)
        if isinstance(other, numbers.Number):
            return invoke(names[2], (self,), {"scalar": other}, out=out)
        if isinstance(other, np.ndarray):
            return self._binary(from_numpy(other.astype(self._dtype, copy=False), self.context),
                                names, out)
        return NotImplemented

    def _reflected(self, other, names):
        if isinstance(other, numbers.Number):
            return invoke(names[3], (self,), {"scalar": other})
        if isinstance(other, np.ndarray):
            return from_numpy(other.astype(self._dtype, copy=False), self.context)._binary(
                self, _SWAPPED[names[3]])
        return NotImplemented

    def __neg__(self):
        # MXNet 1.x: -x is _mul_scalar(x, -1.0), and profiles show that name
        return _scalar_op("_mul_scalar", self, -1.0)

    def __pos__(self):
        return self

    def __abs__(self):
        return invoke("abs", (self,), {})

    __hash__ = object.__hash__


def new_array(shape, dtype, ctx, role, cls=NDArray):
    """A fresh array of class ``cls`` (``NDArray``, or a subclass such as ``mx.np``'s
    ``ndarray``: same slots, other front-door rules) with a new engine variable and no
    data yet. While memory is profiled the allocation is logged (no lock, no
    formatting; see :mod:`..profiler.memory`) and its release is logged when the array
    is freed (:mod:`.memlog`)."""
    a = _new(cls)
    a.queue = None
    a.readers = 0
    a.writer = False
    a.exc = None
    a._data = None
    a.shape = shape
    a._dtype = dtype
    a.context = ctx
    a._ag = None
    a._grad = None
    a._grad_req = "null"
    if _flags.mem:
        try:
            n = _sizes[shape] * dtype.itemsize
        except (KeyError, TypeError):   # (first of its shape, or a list)
            n = _nbytes(shape, dtype)
        a._released = _allocated(ctx.dev_num, n)
        if _flags.mem_rows:
            _observer.allocation_row(n, ctx.dev_key, role)
    return a


def new_handle(src, data, cls=None):
    """A new array (own engine variable) on ``data``, shaped and typed as ``src``, of
    ``src``'s class unless ``cls`` is given."""
    h = _new(cls or src.__class__)
    h.queue = None
    h.readers = 0
    h.writer = False
    h.exc = None
    h._data = data
    h.shape = src.shape
    h._dtype = src._dtype
    h.context = src.context
    h._ag = None
    h._grad = None
    h._grad_req = "null"
    return h


def from_numpy(values, ctx=None, role="array", cls=NDArray):
    """An array of class ``cls`` holding a copy of ``values`` (ready at once: no engine
    op)."""
    ctx = ctx or current_context()
    ctx.check_available()
    values = np.array(values, copy=True, order="C")
    a = new_array(values.shape, values.dtype, ctx, role, cls)
    a._data = values
    return a


def _store(out, value):
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if value.dtype != out._dtype:
        value = value.astype(out._dtype)
    if value.shape != out.shape:
        if value.size == math.prod(out.shape):
            value = value.reshape(out.shape)
        else:
            raise ValueError(f"kernel produced shape {value.shape}, expected {out.shape}")
    out._data = value


def _run(kernel, inputs, outputs, params):
    """Engine function of every operator: call the kernel on numpy data, store results."""
    if len(inputs) == 1:
        result = kernel(inputs[0]._data, **params)
    else:
        result = kernel(*[x._data for x in inputs], **params)
    if len(outputs) == 1:
        out = outputs[0]
        if type(result) is tuple or type(result) is list:
            result = result[0]
        if type(result) is np.ndarray and result.dtype is out._dtype \
                and result.shape == out.shape:
            out._data = result
        else:
            _store(out, result)
    else:
        for o, r in zip(outputs, result):
            _store(o, r)


def push_op(op, inputs, params, outs=None, ctx=None, mode=MODE_IMPERATIVE, attrs=None,
            extra_vars=(), is_train=False, cls=None):
    """Infer, allocate, push ``op`` on ``inputs``; return every output (hidden too).
    New outputs are of class ``cls``, by default that of the first input (``NDArray``
    without inputs): one operator, whichever front door (``mx.nd``, ``mx.np``) called
    it, and its results are arrays of the caller's kind."""
    if op.infer is _same_shape and inputs:
        x = inputs[0]
        out_shapes = (x.shape,)
        out_dtypes = (x._dtype,)
    else:
        try:
            out_shapes, out_dtypes = op.infer([x.shape for x in inputs],
                                              [x._dtype for x in inputs], **params)
        except (ValueError, TypeError, IndexError, KeyError) as e:   # bad input: MXNetError too
            raise _as_mxnet_error(e).with_traceback(e.__traceback__) from None
    if outs is None:
        if ctx is None:
            ctx = inputs[0].context if inputs else current_context()
        name = op.name
        if cls is None:   # (sparse inputs: the storage type MXNet's rules give)
            cls = _sparse_rules.live and _sparse_rules.result_class(op, inputs, params) or (
                inputs[0].__class__ if inputs else NDArray)
        outs = [new_array(tuple(s), d, ctx, name, cls) for s, d in zip(out_shapes, out_dtypes)]
    else:
        for o, s in zip(outs, out_shapes):
            if o.shape != tuple(s):
                raise ValueError(f"{op.name}: out has shape {o.shape}, the result has "
                                 f"shape {tuple(s)}")
    targets = outs
    if is_train and op.mutate_aux:     # BatchNorm's moving statistics
        targets = op.written(inputs, outs, is_train)
    writes = list(targets)
    if extra_vars:
        writes.extend(extra_vars)
    if _flags.shapes:   # with_shapes(attrs, inputs), its one-input case inlined (~2,400 instr.)
        attrs = (inputs[0].shape,) if attrs is None and len(inputs) == 1 else \
            with_shapes(attrs, inputs)
    engine_push(_run, (op.kernel_for(is_train), inputs, targets, params), list(inputs),
                writes, op.name, 0, mode, op.estimate_cost(inputs, params, out_shapes), attrs)
    return outs


def with_shapes(attrs, inputs):
    """The attributes an operator's slice carries when operators are profiled: its input
    shapes, as a tuple of shapes when it has no other attributes (part of the slice's key:
    the record stays integers), else in a copy of ``attrs`` under ``"Input Dims"``."""
    n = len(inputs)   # (displays up to three: a list comprehension is a call in 3.11)
    dims = (inputs[0].shape,) if n == 1 else (inputs[0].shape, inputs[1].shape) if n == 2 \
        else (inputs[0].shape, inputs[1].shape, inputs[2].shape) if n == 3 \
        else tuple([x.shape for x in inputs])
    if attrs is None:
        return dims
    return {**attrs, INPUT_DIMS: dims}


def invoke(name, inputs, params, out=None, ctx=None, extra_vars=(), cls=None):
    """Call operator ``name`` imperatively (``mx.nd.<name>``): the API entry point.
    ``cls``: the class of new outputs (:func:`push_op`)."""
    t0 = perf_counter_ns() if _flags.api else 0
    op = _ops[name]
    outs = None
    if out is not None:
        outs = [out] if isinstance(out, NDArray) else list(out)
    ag = _autograd.state
    is_train = ag.training
    if outs is not None and ag.recording:
        _autograd.check_inplace(op, inputs, outs)
    outs = push_op(op, inputs, params, outs, ctx, MODE_IMPERATIVE,
                   op_scope.attrs if op_scopes_set else None, extra_vars, is_train, cls)
    if ag.recording:
        _autograd.record_op(op, inputs, outs, params)
    if t0:   # observer.api(name, t0) inlined (as in _scalar_op)
        _sink.add_slice((_api_keys[name], t0, perf_counter_ns()))
    nvis = op.visible_outputs or len(outs)
    if nvis.__class__ is not int:
        nvis = nvis(params)
    if out is not None:
        return out
    return outs[0] if nvis == 1 else outs[:nvis]


_PLAIN_SCALARS = frozenset((int, float))
_api_keys = _observer.api_keys
_sink = _observer.sink
_FULL_SLICE = slice(None)


def _run_scalar(fn, x, out, scalar):
    """Engine function of ``x + 1`` (``fn``: ``ops.elemwise.SCALAR_FNS``; ``_store`` casts)."""
    result = fn(x._data, scalar)
    if type(result) is np.ndarray and result.dtype is out._dtype and result.shape == out.shape:
        out._data = result
    else:
        _store(out, result)


def _scalar_op(name, x, scalar):
    """``x <op> scalar``: the hottest path, kept to one allocation and one push. Falls
    back to :func:`invoke` when autograd records."""
    if _autograd.state.recording:
        return invoke(name, (x,), {"scalar": scalar})
    t0 = perf_counter_ns() if _flags.api else 0
    shape = x.shape
    out = new_array(shape, x._dtype, x.context, name, x.__class__)
    attrs = op_scope.attrs if op_scopes_set else None   # (none set: no thread-local read)
    if _flags.shapes:   # with_shapes(attrs, (x,)), inlined on the hottest path
        attrs = (shape,) if attrs is None else with_shapes(attrs, (x,))
    engine_push(_run_scalar, (_SCALAR_FNS[name], x, out, scalar), [x], [out], name,
                0, MODE_IMPERATIVE, math.prod(shape), attrs)
    if t0:   # observer.api(name, t0) inlined: a call to it costs ~0.1 us more
        _sink.add_slice((_api_keys[name], t0, perf_counter_ns()))
    return out


# ``x + 1``, ``x - 2.0``...: straight to _scalar_op (one call fewer on the hottest path)
_python_level.attach_operators(NDArray, NDArray._binary, NDArray._reflected, inplace=True,
                               fast=(_PLAIN_SCALARS, _scalar_op, frozenset(_SCALAR_FNS)))


def waitall():
    """Block until every pushed operation is done; raise the first pending error."""
    t0 = perf_counter_ns() if _flags.recording else 0
    _wait_all()
    if _engine._slow is not None:   # xprof run --slow: a step ended here
        _engine._slow.step_end()
    if t0:
        _waited(t0)
        if _flags.api:
            _api_event("waitall", t0)

