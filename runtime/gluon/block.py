"""Gluon blocks: ``Block`` (imperative ``forward``) and ``HybridBlock``
(``hybrid_forward(F, x, *args, **params)``, run on ``mx.nd`` or, once hybridized, as a
symbol graph through the symbolic executor).

Naming follows MXNet 1.x: a block's prefix is its class hint plus a counter
(``conv0_``, ``dense1_``); inside a parent's ``name_scope()`` counters are the
parent's and the parent's prefix is prepended (``hybridsequential0_conv0_``).
Parameters are ``prefix + name`` (``conv0_weight``).

Profiling: calling a block sets the calling thread's op attributes to
``{"name": block.name}`` (so each engine op it pushes, and its gradient op, carries the
layer's name in the trace) and opens a ``mx.profiler.Scope`` named after the block (so
memory allocated inside is attributed to it in the memory CSV).
"""
import re
import threading
import warnings
from collections import OrderedDict

from .. import initializer as _init
from .. import name as _name
from ..ndarray import ndarray as _nd
from ..profiler.objects import Scope
from ..util import is_np_array as _np_array_on
from .parameter import DeferredInitializationError, Parameter, ParameterDict, _known
from .summary import summarize

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


# -- naming ---------------------------------------------------------------------------
class _Counters:
    """Global per-hint counters for blocks created outside any name scope."""

    lock = threading.Lock()
    counts = {}

    @classmethod
    def next(cls, hint):
        with cls.lock:
            n = cls.counts.get(hint, 0)
            cls.counts[hint] = n + 1
        return f"{hint}{n}"


def reset_name_counters():
    """Start the global block counters over (``conv0`` again): tests use it."""
    with _Counters.lock:
        _Counters.counts.clear()


class _BlockScope:
    """The name scope of a block: children created inside get its prefix."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        # the children's name counters live on the block (a scope is made per
        # name_scope() call: a scope kept on its block would be a reference cycle, and
        # everything the block holds, its cached executors' arrays, would wait for the
        # cyclic collector, which runs rarely: engine/__init__.py raises its threshold)
        counter = getattr(block, "_child_counter", None)
        self._counter = {} if counter is None else counter
        self._old_scope = None

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _Counters.next(hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        # as in MXNet: operators named inside get the block's prefix (``dense0_fwd``)
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return False
        self._name_scope.__exit__(*exc)
        _BlockScope._current.value = self._old_scope
        return False


# -- Block -----------------------------------------------------------------------------
class Block:
    """Base class of all layers and models: subclasses define ``forward``."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._child_counter = {}   # hint -> children named so far (see _BlockScope)
        self._children = OrderedDict()
        self._reg_params = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()
        self._hook_id = 0
        if self._name:
            self._op_attrs = {"name": self._name}
            self._mem_scope = Scope(self._name, append_mode=False)
        else:
            self._op_attrs = None
            self._mem_scope = None

    def _alias(self):
        return type(self).__name__.lower()

    def __repr__(self):
        lines = [f"{type(self).__name__}("]
        for key, block in self._children.items():
            body = repr(block).replace("\n", "\n  ")
            lines.append(f"  ({key}): {body}")
        if len(lines) == 1:
            return f"{type(self).__name__}()"
        return "\n".join(lines) + "\n)"

    def __setattr__(self, name, value):
        existing = self.__dict__.get(name)
        if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
            raise TypeError(f"changing attribute {name!r} of {self.name!r} from "
                            f"{type(existing).__name__} to {type(value).__name__} is not "
                            "allowed")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            self._reg_params[name] = value
        object.__setattr__(self, name, value)

    # -- names and parameters -------------------------------------------------------------
    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    @property
    def params(self):
        """This block's own parameters (not its children's)."""
        return self._params

    def name_scope(self):
        """Children created inside ``with block.name_scope():`` get its prefix."""
        return _BlockScope(self)

    def collect_params(self, select=None):
        """A ParameterDict of this block's and every descendant's parameters;
        ``select`` is a regular expression on their names."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        pattern = re.compile(select) if select else None
        own = list(self._params.items()) + [(p.name, p) for p in self._reg_params.values()]
        for name, p in own:
            if (pattern is None or pattern.match(name)) and name not in ret:
                ret._params[name] = p
        for child in self._children.values():
            for name, p in child.collect_params(select).items():
                if name not in ret:
                    ret._params[name] = p
        return ret

    def _check_container_with_block(self):
        """Warn, as MXNet does, about Blocks held in a list, tuple or dict attribute:
        they are not children, so their parameters are not collected."""
        children = set(map(id, self._children.values()))
        for name, value in self.__dict__.items():
            items = value.values() if isinstance(value, dict) else value \
                if isinstance(value, (list, tuple)) else ()
            stack = list(items)
            while stack:
                item = stack.pop()
                if isinstance(item, (list, tuple)):
                    stack.extend(item)
                elif isinstance(item, dict):
                    stack.extend(item.values())
                elif isinstance(item, Block) and id(item) not in children:
                    warnings.warn(f'"{name}" is an unregistered container with Blocks. Note '
                                  "that Blocks inside the list, tuple or dict will not be "
                                  "registered automatically. Make sure to register them "
                                  "using register_child() or switching to "
                                  "nn.Sequential/nn.HybridSequential instead.", stacklevel=3)
                    break

    def _collect_params_with_prefix(self, prefix=""):
        """Parameters keyed by their structural path (``0.weight``), as
        ``save_parameters`` stores them."""
        if prefix:
            prefix += "."
        ret = {prefix + key: p for key, p in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def register_child(self, block, name=None):
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_hook(self, hook):
        """``hook(block, inputs, output)`` after each forward; returns a handle."""
        return self._add_hook(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward; returns a handle."""
        return self._add_hook(self._forward_pre_hooks, hook)

    def _add_hook(self, table, hook):
        self._hook_id += 1
        key = self._hook_id
        table[key] = hook
        return _HookHandle(table, key)

    def apply(self, fn):
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False,
                   device=None):
        """Initialize every parameter (deferred for those whose shape the first
        forward determines). ``init`` defaults to ``mx.init.Uniform()``."""
        if init is None:
            init = _init.Uniform()
        self.collect_params().initialize(init, ctx, verbose, force_reinit, device=device)

    def hybridize(self, active=True, **kwargs):
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def reset_device(self, device):
        """Move every parameter to ``device`` (a Context or a list of them: one copy on
        each), as MXNet 2's ``Block.reset_device``."""
        for p in self.collect_params().values():
            p.reset_ctx(device)

    def reset_ctx(self, ctx):
        """MXNet 2's deprecated name of :meth:`reset_device`."""
        self.reset_device(ctx)

    def register_op_hook(self, callback, monitor_all=False):
        """``callback(node_name, operator_name, array)`` for every array an operator of a
        hybridized block computes (its inputs too with ``monitor_all``); names are bytes
        (``mx.base.py_str`` decodes them). Installed in every child, as in MXNet."""
        if not callable(callback):
            raise ValueError(f"register_op_hook: {callback!r} is not callable")
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def cast(self, dtype):
        for child in self._children.values():
            child.cast(dtype)
        for p in self._reg_params.values():
            p.cast(dtype)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for one forward on
        ``inputs`` (as MXNet's ``Block.summary``: not on a hybridized block, whose
        children are not called one by one)."""
        print(summarize(self, inputs))

    def save_parameters(self, filename, deduplicate=False):
        """Save parameter values by structural name (MXNet 1.x's ``.params`` format)."""
        from .parameter import _save_arrays
        params = self._collect_params_with_prefix()
        arrays, seen = {}, {}
        for key, p in params.items():
            if deduplicate and id(p) in seen:
                continue
            seen[id(p)] = key
            arrays[key] = p._arrays()[0].asnumpy()
        _save_arrays(filename, arrays)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current", device=None):
        """Load values saved by ``save_parameters`` (structural names; a parameter
        shared under several names needs one of them, as ``deduplicate=True`` saves it)
        or by full parameter name, onto ``ctx`` (MXNet 2: ``device``).
        ``cast_dtype=True, dtype_source='saved'`` gives the parameters the saved
        dtypes."""
        from .parameter import _assign, _load_arrays
        if device is not None:
            ctx = device
        if dtype_source not in ("current", "saved"):
            raise ValueError(f"load_parameters: dtype_source={dtype_source!r} is not "
                             "allowed; use 'current' or 'saved'")
        arrays = _load_arrays(filename)
        params = self._collect_params_with_prefix()
        if arrays and not any(k in params for k in arrays):
            # saved by full parameter name (ParameterDict.save / collect_params().save,
            # save_params: this block's prefix stripped)
            params = dict(self.collect_params().items())
            arrays = {self.prefix + k if k not in params and self.prefix + k in params
                      else k: v for k, v in arrays.items()}
        loaded = {id(params[k]) for k in arrays if k in params}
        params = {k: p for k, p in params.items() if k in arrays or id(p) not in loaded}
        _assign(params, arrays, filename, allow_missing, ignore_extra, ctx,
                cast_dtype and dtype_source == "saved")

    def save_params(self, filename):
        """MXNet's deprecated name: the parameters by full name (``collect_params().save``
        with this block's prefix stripped). Prefer ``save_parameters``."""
        warnings.warn("save_params is deprecated; use save_parameters", DeprecationWarning,
                      stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """MXNet's deprecated name of ``load_parameters``."""
        warnings.warn("load_params is deprecated; use load_parameters", DeprecationWarning,
                      stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return self._run(self.forward, args, kwargs)

    def _run(self, body, args, kwargs):
        """``body(*args, **kwargs)`` as this block's call: its hooks around it, its
        layer name on the operators pushed inside, its memory scope."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        attrs = self._op_attrs
        saved = None if attrs is None else _nd.set_op_attrs(attrs)
        mem = self._mem_scope
        if mem is not None:
            mem.__enter__()
        try:
            out = body(*args, **kwargs)
        finally:
            if mem is not None:
                mem.__exit__(None, None, None)
            if attrs is not None:
                _nd.restore_op_attrs(saved)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if _np_array_on() and _any_np(args):
            _check_np_outputs(out)
        return out

    def forward(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")


def _any_np(args):
    from ._structure import flatten_inputs
    leaves, _ = flatten_inputs(args)
    return any(isinstance(a, _nd.NDArray) and a.__class__ is not _nd.NDArray or
               a.__class__.__name__ == "_Symbol" for a in leaves)


def _check_np_outputs(out):
    """Under the NumPy interface a block called on np arrays gives np arrays (or np
    symbols), as MXNet checks: a legacy NDArray or Symbol among its outputs is a
    TypeError. (A block given legacy arrays, a transform say, gives what it was given.)"""
    if isinstance(out, (list, tuple)):
        for o in out:
            _check_np_outputs(o)
        return
    if isinstance(out, _nd.NDArray):
        legacy = out.__class__ is _nd.NDArray
    else:
        from ..symbol import Symbol
        legacy = out.__class__ is Symbol
    if legacy:
        raise TypeError("Block's output ndarrays/symbols must be of type "
                        "`mxnet.numpy.ndarray` or `mxnet.symbol.numpy._Symbol`, while got "
                        f"output type {type(out)}")


class _HookHandle:
    def __init__(self, table, key):
        self._table, self._key = table, key

    def detach(self):
        self._table.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
        return False


# -- HybridBlock ------------------------------------------------------------------------
class HybridBlock(Block):
    """A block whose computation can run as one graph. Two ways to write one:

    - MXNet 1.x's ``hybrid_forward(F, x, *args, **params)``, written once for ``mx.nd``
      and ``mx.sym``: it receives its parameters' arrays (or symbols) as keyword
      arguments named like the attributes holding them; its graph is built by calling
      it with ``F = mx.sym``;
    - MXNet 2's ``forward(self, x, *args)`` with ``mx.np``/``npx`` functions and
      ``self.weight.data()``: its graph is recorded from its first hybridized call
      (``_trace.py``). A parameter whose shape is unknown until the first call gets it
      from ``infer_shape(self, *args)``, which such a block defines when it reads that
      parameter itself (the built-in layers infer their own).

    After ``hybridize()``, calling the block with arrays builds the graph once per input
    signature (shapes, dtypes), binds it with the symbolic executor and runs
    ``Executor.forward``/``backward``; under ``autograd.record()`` the whole graph is
    one autograd node whose gradient is the executor's backward pass.
    """

    _forward_style = False   # True for classes that define forward() (MXNet 2's style)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "forward" in cls.__dict__ and "_forward_style" not in cls.__dict__:
            cls._forward_style = True

    def __call__(self, *args, **kwargs):
        if not self._forward_style:
            return self._run(self.forward, args, kwargs)
        from . import _hybrid, _trace
        if self._active and not kwargs and not _trace.tracing():
            return self._run(_hybrid.call_forward_style, (self,) + args, {})
        try:
            return self._run(self.forward, args, kwargs)
        except DeferredInitializationError:
            self._finish_deferred(args)
            return self._run(self.forward, args, kwargs)

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)
        self._active = False
        self._flags = {}
        self._cached = {}
        self._in_fmt = None     # the input structure the cached graph was built for
        self._op_hook = None    # (callback, monitor_all) of register_op_hook

    def register_op_hook(self, callback, monitor_all=False):
        super().register_op_hook(callback, monitor_all)
        self._op_hook = (callback, bool(monitor_all))

    def hybridize(self, active=True, **kwargs):
        self._active = bool(active)
        self._flags = dict(kwargs)
        self._cached = {}
        self._in_fmt = None
        super().hybridize(active, **kwargs)

    def cast(self, dtype):
        self._cached = {}
        super().cast(dtype)

    def register_child(self, block, name=None):
        """A new or replaced child makes the cached graph stale (as in MXNet)."""
        super().register_child(block, name)
        self._cached = {}
        self._in_fmt = None

    def infer_shape(self, *args):
        """Fill in parameter shapes from the inputs (deferred initialization).

        Built-in layers override this with their own rule; the default infers the
        shapes from the symbol graph of ``hybrid_forward``. A block written with
        ``forward`` (MXNet 2's style) that reads a parameter of unknown shape itself
        defines this method: its shapes cannot be read back from a recorded call."""
        if self._forward_style:
            missing = [p.name for p in self._reg_params.values()
                       if p._data is None and not _known(p._shape)]
            if missing:
                raise DeferredInitializationError(
                    f"{self.name or type(self).__name__}: the shape of parameter(s) "
                    f"{', '.join(missing)} is unknown and forward() reads them; define "
                    "infer_shape(self, *args) setting it from the inputs, or give the "
                    "full shape")
            return
        from . import _hybrid
        _hybrid.infer_param_shapes(self, args)

    def _finish_deferred(self, args):
        self.infer_shape(*args)
        for p in self.collect_params().values():
            if p._data is None and p._deferred_init and \
                    (not self._forward_style or _known(p._shape)):
                p._finish_deferred_init()

    def forward(self, x, *args):
        """NDArray inputs (``None`` and nested lists of them allowed, as in MXNet): run
        imperatively, or through the cached graph once hybridized; Symbol inputs: build
        the graph."""
        from . import _hybrid, _trace
        kind = _hybrid.input_kind(self, (x,) + args)
        if kind == "ndarray":
            if self._active and not _trace.tracing():
                return _hybrid.call_cached(self, x, *args)
            reg = self._reg_params
            ctx = getattr(x, "context", None)    # MXNet: the weights on the input's context
            try:
                params = {k: p.data(ctx) for k, p in reg.items()}
            except DeferredInitializationError:
                self._finish_deferred((x,) + args)
                params = {k: p.data(ctx) for k, p in reg.items()}
            return self.hybrid_forward(_nd_module(), x, *args, **params)
        params = {k: p.var() for k, p in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_hybrid.symbol_namespace(self), x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward()")

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (needs hybridize() and
        one forward, as in MXNet)."""
        from . import _hybrid
        return _hybrid.export(self, path, epoch)


def _nd_module():
    from .. import ndarray
    return ndarray


class SymbolBlock(HybridBlock):
    """A block running a given symbol graph: ``SymbolBlock(outputs, inputs, params)``."""

    _forward_style = False   # its forward() runs its graph: not MXNet 2's user forward

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix="", params=None)
        from . import _hybrid
        _hybrid.init_symbol_block(self, outputs, inputs, params)

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False, device=None):
        """A SymbolBlock from ``export``'s files (``param_file``: MXNet's .params or
        .npz), its parameters on ``ctx`` (MXNet 2: ``device``; default: the current
        device). A parameter the file lacks is an error unless ``allow_missing`` (it is
        then left to ``initialize``), a value for no parameter unless
        ``ignore_extra``."""
        from .. import symbol
        if device is not None:
            ctx = device
        if isinstance(input_names, str):
            input_names = [input_names]
        block = SymbolBlock(symbol.load(symbol_file), [symbol.var(n) for n in input_names])
        if param_file is not None:
            from .parameter import _load_arrays
            values = {k.split(":", 1)[-1]: v for k, v in _load_arrays(param_file).items()}
            params = block.collect_params()
            extra = sorted(set(values) - set(params.keys()))
            if extra and not ignore_extra:
                raise ValueError(f"{param_file}: values for {', '.join(extra)}, which the "
                                 f"graph of {symbol_file} does not use; pass "
                                 "ignore_extra=True to skip them")
            for name, p in params.items():
                if name not in values:
                    if allow_missing:
                        continue
                    raise ValueError(f"{param_file}: no value for parameter {name!r}; pass "
                                     "allow_missing=True to initialize it yourself")
                p.shape = values[name].shape
                p.initialize(ctx=ctx)
                p.set_data(values[name])
        return block

    def forward(self, x, *args):
        from . import _hybrid
        if _hybrid.input_kind(self, (x,) + args) == "symbol":
            return _hybrid.compose_symbol_block(self, (x,) + args)
        return _hybrid.call_cached(self, x, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("SymbolBlock runs its graph directly")

