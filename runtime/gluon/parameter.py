"""Gluon parameters: a named weight array, its gradient buffer, and deferred init.

A :class:`Parameter` whose shape still has unknown (0) dimensions when
``initialize`` is called remembers the initializer and is created at the first
forward, once its layer has seen the input (deferred initialization, as in MXNet 1.x).
Until then ``data()`` raises :class:`DeferredInitializationError`.

The gradient buffer is attached with ``autograd.mark_variables``, so ``backward``
writes (``grad_req='write'``) or adds (``'add'``) into ``grad()``.

Initialized on several contexts (``ctx=[mx.cpu(0), mx.cpu(1)]``, data parallelism), a
parameter holds one copy of the weight and one gradient buffer per context:
``data(ctx)`` / ``grad(ctx)`` pick one, ``list_data()`` / ``list_grad()`` give them all
in context order, and a Trainer sums the gradients and updates every copy (as in MXNet
1.x). ``_data`` / ``_grad`` are the first context's.
"""
import re
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import autograd
from .. import initializer as _init
from .. import util as _util
from . import _arrays
from ..context import Context, current_context
from ..ndarray import ndarray as _nd
from ..ndarray import serialization as _serialization

__all__ = ["Parameter", "Constant", "ParameterDict", "DeferredInitializationError"]


class DeferredInitializationError(RuntimeError):
    """``data()`` of a parameter whose shape is not known yet (initialized lazily at the
    first forward)."""


def _ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    ctxs = list(ctx)
    if not ctxs:
        raise ValueError("ctx must be a Context or a non-empty list of Contexts")
    for c in ctxs:
        if not isinstance(c, Context):
            raise ValueError(f"ctx {c!r} is not a Context")
    return ctxs


def _known(shape):
    return shape is not None and all(int(s) > 0 for s in shape)


def _zeros(shape, dtype, ctx, cls=None):
    """Zeros of ``cls`` (default: the class Gluon makes now, ``_arrays.array_class``)."""
    return _nd.push_op(_nd._ops["_zeros"], (), {"shape": tuple(shape),
                                                "dtype": np.dtype(dtype).name}, ctx=ctx,
                       cls=cls or _arrays.array_class())[0]


def _merge_shapes(known, asked):
    """The shape two descriptions of one shared parameter agree on (0 marks a dimension
    either leaves open), or None when they conflict."""
    if known is None:
        return asked
    if len(known) != len(asked):
        return None
    out = []
    for a, b in zip(known, asked):
        if a and b and a != b:
            return None
        out.append(a or b)
    return tuple(out)


class StorageTypeError(ValueError, AssertionError):
    """A storage type that is not one of MXNet's (a ValueError; MXNet's own check is an
    assert, so it is an AssertionError too)."""


_STYPES = ("default", "row_sparse", "csr")


def _sparse_class(stype):
    from ..ndarray.sparse_rules import class_of
    return class_of(stype)


def _check_stype(what, stype):
    if stype not in _STYPES:
        raise StorageTypeError(f"Parameter: {what}={stype!r} is not a storage type; "
                               f"allowed: {', '.join(map(repr, _STYPES))}")
    return stype


class Parameter:
    """A weight of a Block.

    ``shape`` may contain 0 for dimensions inferred at the first forward. ``init`` is
    this parameter's own initializer (overrides the one given to ``initialize``);
    ``grad_req`` is 'write', 'add' or 'null'.
    """

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        self.name = name
        self._shape = None if shape is None else self._check_shape(shape)
        self.dtype = np.dtype(dtype).type
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._grad_req = None
        self.grad_req = grad_req if differentiable else "null"
        self._stype = _check_stype("stype", stype)
        self._grad_stype = _check_stype("grad_stype", grad_stype)
        self._data = None
        self._grad = None
        self._copies = []           # the weight on the 2nd, 3rd... context
        self._copy_grads = []
        self._ctx = None
        self._trainer = None
        self._deferred_init = ()
        self._direct_owner = None   # see gluon/_hybrid.py: pending direct gradient writer

    @staticmethod
    def _check_shape(shape):
        """The shape as kept: a tuple of ints, 0 for each unknown dimension (MXNet 1.x
        writes unknown as 0, MXNet 2 as -1: both are accepted)."""
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        try:
            shape = tuple(int(s) for s in shape)
        except TypeError:
            raise ValueError(f"shape {shape!r} is not an int or a tuple of ints") from None
        if any(s < -1 for s in shape):
            raise ValueError(f"shape {shape!r} has a negative dimension (-1, or 0, marks "
                             "one inferred at the first forward)")
        return tuple(0 if s == -1 else s for s in shape)

    def __repr__(self):
        return (f"Parameter {self.name} (shape={self.shape}, "
                f"dtype={np.dtype(self.dtype).name})")

    # -- properties ---------------------------------------------------------------------
    @property
    def shape(self):
        """The shape; unknown dimensions are 0, or -1 under NumPy shape semantics
        (``npx.set_np()``), as MXNet 1.x and 2 show them."""
        shape = self._shape
        if shape is not None and 0 in shape and _util.is_np_shape():
            return tuple(-1 if s == 0 else s for s in shape)
        return shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = self._check_shape(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        ok = len(new_shape) == len(self._shape) and all(
            old in (0, new) for old, new in zip(self._shape, new_shape))
        if not ok:
            raise ValueError(f"parameter {self.name!r}: cannot set shape {new_shape}, the "
                             f"known shape is {self._shape} (0 marks unknown dimensions)")
        self._shape = new_shape

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ("write", "add", "null"):
            raise ValueError(f"grad_req {req!r} is not allowed; use 'write', 'add' or "
                             "'null'")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if getattr(self, "_data", None) is not None:
            self._init_grad()

    @property
    def ctx(self):
        return self.list_ctx()[0]

    # -- initialization -----------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False,
                   device=None):
        """Create the array on ``ctx`` and fill it (now, or at the first forward if the
        shape is not known yet)."""
        if device is not None:
            ctx = device
        if default_init is None:
            default_init = _init.Uniform()
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        ctxs = _ctx_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not _known(self._shape):
            if self.allow_deferred_init:
                self._deferred_init = (init, ctxs, default_init)
                return
            raise ValueError(f"cannot initialize parameter {self.name!r}: its shape "
                             f"{self._shape} is not fully known and deferred "
                             "initialization is off (allow_deferred_init=False)")
        self._deferred_init = (init, ctxs, default_init)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Create and fill the array now that the shape is known (called by the layer)."""
        if not self._deferred_init:
            return
        init, ctxs, default_init = self._deferred_init
        if not _known(self._shape):
            raise ValueError(f"parameter {self.name!r}: shape {self._shape} is still "
                             "unknown; it is inferred from the first forward's input")
        self._deferred_init = ()
        ctx = ctxs[0]
        with autograd.pause():
            data = _zeros(self._shape, self.dtype, ctx)
            desc = _init.InitDesc(self.name, {"__init__": init})
            _init.create(default_init)(desc, data)
            if self._stype != "default":       # a sparse weight (values kept dense)
                data = data.tostype(self._stype)
        self._ctx = ctxs
        self._data = data
        self._copy_to_contexts(ctxs)
        self._init_grad()

    def _copy_to_contexts(self, ctxs):
        """One copy of the weight per context after the first (``_data``'s)."""
        with autograd.pause():
            self._copies = [self._data.copyto(c) for c in ctxs[1:]]

    def _init_grad(self):
        if self._data is None:
            return
        arrays = [self._data] + self._copies
        if self._grad_req == "null":
            self._grad, self._copy_grads = None, []
            autograd.mark_variables(arrays, [None] * len(arrays), "null")
            return
        kind = None if self._grad_stype == "default" else _sparse_class(self._grad_stype)
        grads = [_zeros(self._shape, self.dtype, a.context, kind or a.__class__)
                 for a in arrays]
        self._grad, self._copy_grads = grads[0], grads[1:]
        autograd.mark_variables(arrays, grads, self._grad_req)

    def _set_trainer(self, trainer):
        """The Trainer updating this parameter (set by the Trainer; ``params.load``
        resets its kvstore). A sparse parameter can have only one, as in MXNet."""
        if self._stype != "default" and self._trainer is not None and trainer is not None \
                and self._trainer is not trainer:
            raise RuntimeError(f"Failed to set the trainer for Parameter {self.name!r}: it "
                               f"already has one; more than one Trainer for a {self._stype} "
                               "Parameter is not supported")
        self._trainer = trainer

    # The Trainer is held weakly: it holds its parameters, and a strong reference back
    # would put every weight, gradient and optimizer state in a reference cycle, freed
    # only by the cyclic collector (whose threshold the engine raises)
    @property
    def _trainer(self):
        ref = self._trainer_ref
        return ref() if ref is not None else None

    @_trainer.setter
    def _trainer(self, trainer):
        self._trainer_ref = weakref.ref(trainer) if trainer is not None else None

    def reset_ctx(self, ctx):
        ctxs = _ctx_list(ctx)
        if self._data is not None:
            self._data = self._data.as_in_context(ctxs[0])
            self._copy_to_contexts(ctxs)
            self._init_grad()
        elif self._deferred_init:
            init, _, default_init = self._deferred_init
            self._deferred_init = (init, ctxs, default_init)
        self._ctx = ctxs

    # -- access ---------------------------------------------------------------------------
    def _check_initialized(self):
        if self._data is not None:
            return
        if self._deferred_init:
            raise DeferredInitializationError(
                f"parameter {self.name!r} has not been initialized yet because "
                "initialization was deferred: its shape is inferred at the first forward. "
                "Run a forward pass first (or give the layer its input size, e.g. "
                "in_units / in_channels)")
        raise RuntimeError(f"parameter {self.name!r} has not been initialized; call "
                           "initialize() on it or on the block that owns it")

    def _pick(self, arrays, ctx, what):
        if ctx is None or len(arrays) == 1:
            return arrays[0]
        for a in arrays:
            if a.context == ctx:
                return a
        raise RuntimeError(f"parameter {self.name!r}: no {what} on context {ctx}; it was "
                           "initialized on " + ", ".join(str(a.context) for a in arrays))

    def reset_device(self, device):
        """MXNet 2's name of :meth:`reset_ctx`."""
        self.reset_ctx(device)

    def data(self, ctx=None, device=None):
        """The weight array on ``ctx`` (MXNet 2: ``device``; default: the first
        context; the same array every call)."""
        if device is not None:
            ctx = device
        return self._pick(self._dense_only("data"), ctx, "data")

    def list_data(self):
        """The weight on every context, in context order."""
        return self._dense_only("list_data")

    def _dense_only(self, what):
        if self._stype != "default":
            raise RuntimeError(f"Cannot return a copy of Parameter '{self.name}' via {what}() "
                               f"because its storage type is {self._stype}. Please use "
                               "row_sparse_data() instead.")
        return self._arrays()

    def _arrays(self):
        """The weight on every context, whatever its storage type (the Trainer's)."""
        if self._data is None:
            self._check_initialized()
        return [self._data] + self._copies

    def row_sparse_data(self, row_id):
        """A row_sparse weight's rows ``row_id`` (the others zero), on ``row_id``'s context
        (MXNet pulls them from the Trainer's store: a Trainer must exist)."""
        return self._rows(row_id, "row_sparse_data")[0]

    def list_row_sparse_data(self, row_id):
        """:meth:`row_sparse_data` on every context."""
        return self._rows(row_id, "list_row_sparse_data", every=True)

    def _rows(self, row_id, what, every=False):
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return copies of Parameter '{self.name}' via {what}() "
                               f"because its storage type is {self._stype}. Please use data() "
                               "instead.")
        if self._trainer is None:
            raise RuntimeError(f"Cannot get row_sparse data for Parameter '{self.name}' when "
                               "no Trainer is created with it.")
        arrays = self._arrays() if every else [self._pick(self._arrays(), row_id.context,
                                                           "data")]
        self._trainer._row_sparse_pull(self, arrays, row_id)    # MXNet: the parameter's
        return arrays                           # own arrays, holding the rows pulled

    def _full(self):
        """The weight's first array with every row (a row_sparse one pulled whole from
        its Trainer's store first, as MXNet's ``_reduce``)."""
        arrays = self._arrays()
        trainer = self._trainer
        if self._stype == "row_sparse" and trainer is not None:
            from ..ndarray import arange
            trainer._row_sparse_pull(self, arrays[:1], arange(0, self.shape[0]),
                                     full_idx=True)
        return arrays[0]

    def grad(self, ctx=None, device=None):
        """The gradient buffer that ``backward`` writes (on ``ctx``, or ``device``)."""
        if device is not None:
            ctx = device
        return self._pick(self.list_grad(), ctx, "gradient")

    def list_grad(self):
        if self._data is None:
            self._check_initialized()
        if self._grad is None:
            raise RuntimeError(f"cannot get the gradient of parameter {self.name!r}: its "
                               "grad_req is 'null'")
        return [self._grad] + self._copy_grads

    def list_device(self):
        """MXNet 2's name of :meth:`list_ctx`."""
        return self.list_ctx()

    def list_ctx(self):
        if self._data is not None:
            return [a.context for a in [self._data] + self._copies]
        if self._deferred_init:
            return list(self._deferred_init[1])
        raise RuntimeError(f"parameter {self.name!r} has not been initialized")

    def set_data(self, data):
        """Replace the values (an NDArray or array-like of the parameter's shape)."""
        if not isinstance(data, _nd.NDArray):
            data = _nd.from_numpy(np.asarray(data, dtype=self.dtype))
        self.shape = data.shape
        if self._data is None:
            if self._deferred_init:
                self._finish_deferred_init()
            else:
                raise RuntimeError(f"parameter {self.name!r} has not been initialized; "
                                   "call initialize() before set_data()")
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore:
            trainer._reset_kvstore()      # the store's copy of the weight is stale now
        with autograd.pause():
            for a in [self._data] + self._copies:
                a[:] = data

    def zero_grad(self):
        for g in [self._grad] + self._copy_grads if self._grad is not None else []:
            g[:] = 0

    def var(self):
        """The symbol variable standing for this parameter in a hybridized graph."""
        from .. import symbol
        known = _known(self._shape)
        cached = getattr(self, "_var", None)
        if cached is not None and cached[0] == (self._shape, self.dtype):
            return cached[1]
        v = symbol.var(self.name, shape=self._shape if known else None, dtype=self.dtype,
                       lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=self.init,
                       stype=None if self._stype == "default" else self._stype)
        if known:
            self._var = ((self._shape, self.dtype), v)
        return v

    def cast(self, dtype):
        self.dtype = np.dtype(dtype).type
        if self._data is None:
            return
        with autograd.pause():
            self._data = self._data.astype(dtype)
            self._copies = [c.astype(dtype) for c in self._copies]
        self._init_grad()


class Constant(Parameter):
    """A parameter that never changes (no gradient); initialized to ``value``."""

    def __init__(self, name, value=None):
        if value is None:            # MXNet 2: Constant(value), the name is Gluon's
            name, value = "const", name
        value = value.asnumpy() if isinstance(value, _nd.NDArray) else np.asarray(
            value, dtype=np.float32)
        self.value = value
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_init.Constant(value.tolist()), differentiable=False)

    @Parameter.grad_req.setter
    def grad_req(self, req):
        if req != "null":
            raise ValueError("a Constant's grad_req is always 'null'")
        self._grad_req = "null"


class ParameterDict:
    """An ordered name -> Parameter mapping with a prefix; ``get`` creates or returns
    ``prefix + name``."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join(f"  {p!r}" for p in self._params.values())
        return f"{self._prefix} (\n{body}\n)"

    @property
    def prefix(self):
        return self._prefix

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter ``prefix + name``, created with ``kwargs`` if new."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if k == "shape" and v is not None:
                merged = _merge_shapes(param._shape, Parameter._check_shape(v))
                if merged is None:
                    raise ValueError(f"parameter {name!r} already exists with shape "
                                     f"{param.shape}, incompatible with {v}")
                param._shape = merged
            elif k == "init" and v is not None and param.init is None:
                param.init = v
        return param

    def get_constant(self, name, value=None):
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(f"no constant named {name!r}; give a value to create it")
            param = Constant(name, value)
            self._params[name] = param
        return param

    def update(self, other):
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise ValueError(f"cannot update: a different parameter named {k!r} "
                                 "already exists")
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False,
                   device=None):
        """Initialize every parameter (``init`` is the default for those without
        their own initializer)."""
        if init is None:
            init = _init.Uniform()
        if device is not None:
            ctx = device
        for p in self._params.values():
            p.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for p in self._params.values():
            p.zero_grad()

    def reset_ctx(self, ctx):
        for p in self._params.values():
            p.reset_ctx(ctx)

    def setattr(self, name, value):
        """Set attribute ``name`` (``grad_req``, ``lr_mult``, ``wd_mult``...) on all."""
        for p in self._params.values():
            setattr(p, name, value)

    def list_ctx(self):
        out = []
        for p in self._params.values():
            for c in p.list_ctx():
                if c not in out:
                    out.append(c)
        return out

    def select(self, pattern):
        regex = re.compile(pattern)
        ret = ParameterDict(self._prefix)
        for k, v in self._params.items():
            if regex.match(k):
                ret._params[k] = v
        return ret

    def save(self, filename, strip_prefix=""):
        arrays = {}
        for p in self._params.values():
            name = p.name
            if strip_prefix and name.startswith(strip_prefix):
                name = name[len(strip_prefix):]
            arrays[name] = p._full().asnumpy()
        _save_arrays(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        arrays = {restore_prefix + k: v for k, v in _load_arrays(filename).items()}
        _assign(self._params, arrays, filename, allow_missing, ignore_extra, ctx,
                saved_dtype=cast_dtype and dtype_source == "saved")


def _save_arrays(filename, arrays):
    """Write name -> array in MXNet 1.x's ``.params`` format (see ndarray/serialization)."""
    _serialization.save(filename, arrays)


def _load_arrays(filename):
    """name -> numpy array from an MXNet ``.params`` file (real MXNet's or ours; a numpy
    ``.npz`` file, which xprof wrote before, is read too). Keys saved by Module/export
    as ``arg:<name>``/``aux:<name>`` keep their prefix."""
    with open(filename, "rb") as f:
        head = f.read(8)
    if _serialization.is_mxnet_file(head):
        loaded = _serialization.load(filename)
        if not isinstance(loaded, dict):
            raise ValueError(f"{filename}: holds {len(loaded)} unnamed arrays; parameters "
                             "need names (save a dict)")
        return loaded
    with np.load(filename, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _assign(params, arrays, filename, allow_missing, ignore_extra, ctx, saved_dtype=False):
    if not allow_missing:
        missing = [k for k in params if k not in arrays]
        if missing:
            raise ValueError(f"{filename}: no values for parameter(s) {missing}; pass "
                             "allow_missing=True to keep their current values")
    if not ignore_extra:
        extra = [k for k in arrays if k not in params]
        if extra:
            raise ValueError(f"{filename}: holds value(s) {extra} that match no parameter; "
                             "pass ignore_extra=True to skip them")
    for k, p in params.items():
        if k not in arrays:
            continue
        value = arrays[k]
        if p._data is None:
            p.shape = value.shape
            if not p._deferred_init:
                p.initialize(ctx=ctx, default_init=_init.Zero())
            else:
                p._finish_deferred_init()
        if saved_dtype and np.dtype(p.dtype) != value.dtype:
            p.cast(value.dtype)
        p.set_data(value.astype(np.dtype(p.dtype), copy=False))
