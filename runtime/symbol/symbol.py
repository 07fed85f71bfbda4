"""Symbols: a graph of operator nodes, composed lazily and run by an :class:`Executor`.

A :class:`Symbol` is a list of output entries ``(node, index)``. A node is a variable
(``op is None``), a registered operator (an :class:`~xprof.runtime.ops.registry.OpDef`)
(a custom operator is the registered op ``Custom``, its ``op_type`` a param). Operator
functions (``mx.sym.FullyConnected``, ``mx.sym.dot``...) are generated from the
registry: symbols given positionally or as keyword arguments named like the operator's
arguments are inputs, other keywords are parameters, and every missing input becomes a
new variable named ``<node name>_<argument>`` (``fc1_weight``, ``softmax_label``), as in
MXNet. Unnamed nodes are called ``<op name lowercased><n>`` with one per-process counter
per op name (``fullyconnected0``).

The graph itself is :mod:`.graph`; shape inference :mod:`.inference`; JSON
:mod:`.serialization`; binding :mod:`.executor`.
"""
import numbers
import warnings

import numpy as np

from .. import ops as _ops_pkg  # noqa: F401 - registers every operator
from ..ops import python_level as _python_level
from ..ops import registry as _registry
from .. import attribute as _attribute
from .. import base as _base
from .. import operator as _operator   # (registers ``Custom``: symbol files name it)
from . import serialization as _serialization
from .executor import Executor
from .graph import _Node, _active_args, _allowed_params, _auto_name, _aux_ids, _topo
from .graph import substitute
from .graph import reset_names  # noqa: F401 - mx.sym.symbol.reset_names, as before the split
from .inference import _check_dtype, _check_shape, _infer_dtype_only, infer_graph

__all__ = ["Symbol", "Variable", "var", "Group", "Custom", "load", "load_json"]

# bool(symbol): MXNet's NotImplementedForSymbol, and the TypeError Python code expects
_BoolError = type("NotImplementedForSymbol", (_base.NotImplementedForSymbol, TypeError), {})


# -- Symbol --------------------------------------------------------------------------
class Symbol:
    """A symbolic output (or a group of outputs) of a graph."""

    __slots__ = ("_outputs",)
    __array_priority__ = 1000.0

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # -- structure --------------------------------------------------------------------
    @property
    def name(self):
        """The node's name for a single-output symbol, None for a group."""
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    def _single(self, what):
        if len(self._outputs) != 1:
            raise ValueError(f"{what}: the symbol is a group of {len(self._outputs)} "
                             "outputs; pick one with sym[i]")
        return self._outputs[0]

    def _order(self):
        return _topo(self._outputs)

    def list_arguments(self):
        """Names of the argument variables, in topological order."""
        order = self._order()
        aux = _aux_ids(order)
        seen, out = set(), []
        for n in order:
            if n.op is None and id(n) not in aux and n.name not in seen:
                seen.add(n.name)
                out.append(n.name)
        return out

    def list_auxiliary_states(self):
        order = self._order()
        aux = _aux_ids(order)
        seen, out = set(), []
        for n in order:
            if n.op is None and id(n) in aux and n.name not in seen:
                seen.add(n.name)
                out.append(n.name)
        return out

    def list_inputs(self):
        seen, out = set(), []
        for n in self._order():
            if n.op is None and n.name not in seen:
                seen.add(n.name)
                out.append(n.name)
        return out

    def list_outputs(self):
        return [node.output_names()[i] for node, i in self._outputs]

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([e]) for e in self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise ValueError(f"symbol has no output named {index!r}; outputs: "
                                 + ", ".join(names))
            index = matches[0]
        if not isinstance(index, numbers.Integral):
            raise ValueError(f"symbol index {index!r} is not an int or an output name")
        n = len(self._outputs)
        if not -n <= index < n:
            raise ValueError(f"symbol output index {index} is out of range for "
                             f"{n} output(s)")
        return Symbol([self._outputs[index]])

    def get_internals(self):
        """A group of every visible output of every node (variables included)."""
        entries = []
        for n in self._order():
            entries.extend((n, i) for i in range(n.num_visible()))
        return Symbol(entries)

    def _gen_atomic_symbol(self):
        """A new symbol applying this symbol's operator with the same parameters to fresh
        input variables (MXNet's atomic symbol: the operator, not its composition)."""
        nodes = {id(n): n for n, _ in self._outputs}
        if len(nodes) != 1:
            raise ValueError(f"_gen_atomic_symbol: the symbol has {len(nodes)} nodes as "
                             "outputs; it needs the outputs of one operator node")
        (node,) = nodes.values()
        if node.op is None:
            raise ValueError(f"_gen_atomic_symbol: {node.name!r} is a variable, not a "
                             "registered operator")
        return _compose(node.op, (), dict(node.params), None, node.attr)

    def get_children(self):
        """The inputs of this symbol's node(s), in order (each node once); None when
        they are all variables."""
        seen, entries = set(), []
        for node, _ in self._outputs:
            if id(node) not in seen:
                seen.add(id(node))
                entries.extend(node.inputs)
        return Symbol(entries) if entries else None

    def __call__(self, *args, **kwargs):
        """MXNet's composition: a copy of this graph with argument variables replaced by
        the symbols given (positionally in ``list_arguments()`` order, or by name)."""
        name = kwargs.pop("name", None)
        names = self.list_arguments()
        if len(args) > len(names):
            raise ValueError(f"compose: {len(args)} positional symbols for "
                             f"{len(names)} arguments {names}")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise ValueError(f"compose: {k!r} is not an argument of the symbol; "
                                 f"arguments: {', '.join(names)}")
            given[k] = v
        repl = {k: _entry(v, "compose", k) for k, v in given.items()}
        copies = {}

        def copy(entry):
            node, i = entry
            if node.op is None:
                return repl.get(node.name, entry)
            new = copies.get(id(node))
            if new is None:
                new = copies[id(node)] = _Node(node.op, node.name, node.params,
                                               [copy(e) for e in node.inputs], node.n_args,
                                               node.attr)
            return (new, i)
        out = [copy(e) for e in self._outputs]
        if name is not None and len(out) == 1 and out[0][0].op is not None:
            out[0][0].name = name
        return Symbol(out)

    def __getstate__(self):
        return {"handle": self.tojson()}

    def __setstate__(self, state):
        self._outputs = list(_serialization.graph_entries(state["handle"]))

    def __copy__(self):
        return Symbol(self._outputs)

    def copy(self):
        return self.__copy__()

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __repr__(self):
        if len(self._outputs) == 1:
            return f"<Symbol {self.name}>"
        return "<Symbol group [" + ", ".join(self.list_outputs()) + "]>"

    def __bool__(self):
        # as MXNet: NotImplementedForSymbol (a TypeError here as well)
        raise _BoolError(bool, None)

    # -- attributes -------------------------------------------------------------------
    def attr(self, key):
        node, _ = self._single("attr")
        value = node.user_attrs().get(key)
        return value

    def list_attr(self, recursive=False):
        if recursive:
            raise ValueError("list_attr(recursive=True) is removed in MXNet 1.x; use "
                             "attr_dict()")
        node, _ = self._single("list_attr")
        return node.user_attrs()

    def attr_dict(self):
        out = {}
        for n in self._order():
            attrs = n.user_attrs()
            if attrs:
                out[n.name] = attrs
        return out

    def _set_attr(self, **kwargs):
        node, _ = self._single("_set_attr")
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError(f"_set_attr: attribute {k}={v!r} must be a string")
            node.attr[k] = v

    # -- inference --------------------------------------------------------------------
    def _shape_kwargs(self, what, args, kwargs):
        return self._named_values(what, "shapes", args, kwargs, _check_shape)

    def _named_values(self, what, kind, args, kwargs, check):
        """{argument name: checked value} from positional (list_arguments order) and
        keyword values; unknown names and too many positionals raise ValueError."""
        names = self.list_arguments()
        inputs = self.list_inputs()
        if len(args) > len(names):
            raise ValueError(f"{what}: {len(args)} positional {kind} for {len(names)} "
                             f"arguments {names}")
        values = {}
        for name, v in zip(names, args):
            if v is not None:
                values[name] = check(v, f"{what}: argument {name!r}")
        for name, v in kwargs.items():
            if name not in inputs:
                raise ValueError(f"{what}: {name!r} is not an argument of the symbol; "
                                 f"arguments: {', '.join(inputs)}")
            if v is not None:
                values[name] = check(v, f"{what}: argument {name!r}")
        return values

    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from some argument shapes.

        When the given shapes are not enough to infer everything, a warning names the
        arguments still unknown and the result is ``(None, None, None)``, as in MXNet.
        """
        res = self._infer_shape(False, args, kwargs)
        return res

    def infer_shape_partial(self, *args, **kwargs):
        """Like ``infer_shape``; unknown shapes are ``()``."""
        return self._infer_shape(True, args, kwargs)

    def _infer_shape(self, partial, args, kwargs):
        shapes = self._shape_kwargs("infer_shape", args, kwargs)
        order = self._order()
        inf = infer_graph(order, shapes, {})
        by_name = {}
        for n in order:
            if n.op is None and (id(n), 0) in inf.shape:
                by_name[n.name] = inf.shape[(id(n), 0)]
        args_n = self.list_arguments()
        aux_n = self.list_auxiliary_states()
        arg_shapes = [by_name.get(a) for a in args_n]
        aux_shapes = [by_name.get(a) for a in aux_n]
        out_shapes = [inf.shape.get((id(node), i)) for node, i in self._outputs]
        if partial:
            return ([s or () for s in arg_shapes], [s or () for s in out_shapes],
                    [s or () for s in aux_shapes])
        unknown = [a for a, s in zip(args_n + aux_n, arg_shapes + aux_shapes) if s is None]
        if unknown or any(s is None for s in out_shapes):
            warnings.warn("infer_shape: cannot infer the shapes of "
                          + (", ".join(repr(u) for u in unknown) or "some outputs")
                          + " from the shapes given; pass more shapes", stacklevel=3)
            return None, None, None
        return arg_shapes, out_shapes, aux_shapes

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as numpy scalar types; all None when some
        stay unknown (``infer_type_partial`` gives the known ones)."""
        return self._infer_type(False, args, kwargs)

    def infer_type_partial(self, *args, **kwargs):
        """Like ``infer_type``; unknown types are None."""
        return self._infer_type(True, args, kwargs)

    def _infer_type(self, partial, args, kwargs):
        dtypes = self._named_values("infer_type", "types", args, kwargs, _check_dtype)
        order = self._order()
        dt = _infer_dtype_only(order, dtypes)
        by_name = {n.name: dt.get((id(n), 0)) for n in order if n.op is None}
        arg_t = [by_name.get(a) for a in self.list_arguments()]
        aux_t = [by_name.get(a) for a in self.list_auxiliary_states()]
        out_t = [dt.get((id(node), i)) for node, i in self._outputs]
        if partial:
            def types(ts):
                return [None if t is None else t.type for t in ts]
            return types(arg_t), types(out_t), types(aux_t)
        if any(t is None for t in arg_t + aux_t + out_t):
            return None, None, None
        return ([t.type for t in arg_t], [t.type for t in out_t], [t.type for t in aux_t])

    # -- binding ----------------------------------------------------------------------
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None, **kwargs):
        """An :class:`Executor` over existing arrays (``args`` as a list in
        ``list_arguments()`` order or a dict by name)."""
        if kwargs:
            raise ValueError("bind: unknown keyword argument(s) "
                             + ", ".join(repr(k) for k in kwargs)
                             + "; allowed: ctx, args, args_grad, grad_req, aux_states, "
                               "group2ctx, shared_exec")
        return Executor._bind(self, ctx, args, args_grad, grad_req, aux_states)

    _bind = bind

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Allocate zero-filled arguments (and gradients) from shapes given by name.
        As in MXNet, only tuple (and list) values are shapes; other keywords are ignored."""
        shapes = {k: v for k, v in kwargs.items() if isinstance(v, (tuple, list))}
        return Executor._simple_bind(self, ctx, grad_req, type_dict, shapes, stype_dict)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given arrays, run forward, return the outputs."""
        from ..context import current_context
        ex = self.bind(ctx or current_context(), kwargs, grad_req="null")
        return ex.forward()

    # -- serialization ----------------------------------------------------------------
    def tojson(self):
        return _serialization.graph_json(self._outputs)

    def save(self, fname, remove_amp_cast=True):
        with open(fname, "w") as f:
            f.write(self.tojson())

    # -- arithmetic: the operators of ops.python_level.OPERATORS, attached below -------
    def _binary(self, other, names):
        if isinstance(other, Symbol):   # (shapes are unknown when composing: the plain op)
            return _compose(_registry.get(names[0]), (self, other), {}, None, None)
        if isinstance(other, numbers.Number) and not isinstance(other, bool):
            return _compose(_registry.get(names[2]), (self,), {"scalar": other}, None, None)
        return NotImplemented

    def _reflected(self, other, names):
        if isinstance(other, numbers.Number) and not isinstance(other, bool):
            return _compose(_registry.get(names[3]), (self,), {"scalar": other}, None, None)
        return NotImplemented

    def __neg__(self):
        return self.__mul__(-1.0)   # MXNet 1.x: _mul_scalar with scalar -1.0

    def __pos__(self):
        return self

    def __abs__(self):
        return _compose(_registry.get("abs"), (self,), {}, None, None)

    __hash__ = object.__hash__

    # -- method forms of common operators ---------------------------------------------
    def reshape(self, shape=None, **kwargs):
        if shape is not None:
            kwargs["shape"] = shape
        return _compose(_registry.get("reshape"), (self,), kwargs, None, None)

    def flatten(self, **kwargs):
        return _compose(_registry.get("Flatten"), (self,), kwargs, None, None)

    def transpose(self, axes=(), **kwargs):
        return _compose(_registry.get("transpose"), (self,), dict(kwargs, axes=axes), None,
                        None)


_python_level.attach_operators(Symbol, Symbol._binary, Symbol._reflected)


def _astype(self, dtype, name=None):
    return _compose(_registry.get("Cast"), (self,), {"dtype": np.dtype(dtype).name}, name,
                    None)


Symbol.astype = _astype


# -- construction ----------------------------------------------------------------------
def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
             stype=None, **kwargs):
    """A placeholder symbol: an argument (or auxiliary state) bound at ``bind`` time."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"Variable: name {name!r} must be a non-empty string")
    if attr is not None and not isinstance(attr, dict):
        raise ValueError(f"Variable {name!r}: attr={attr!r} must be a dict of strings")
    attrs = {k: str(v) for k, v in _attribute.current().get(attr).items()}
    if shape is not None:
        attrs["__shape__"] = str(_check_shape(shape, f"Variable {name!r}"))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = _check_dtype(dtype, f"Variable {name!r}").name
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else (
            init.dumps() if hasattr(init, "dumps") else str(init))
    if stype is not None:
        from ..ndarray.sparse_rules import _STORAGE_TYPE_STR_TO_ID   # MXNet stores the id
        attrs["__storage_type__"] = str(_STORAGE_TYPE_STR_TO_ID.get(stype, stype))
    for k, v in kwargs.items():
        if not (k.startswith("__") and k.endswith("__")):
            raise ValueError(f"Variable {name!r}: attribute {k}={v!r} is not supported; "
                             "extra attributes must start and end with double underscores")
        attrs[k] = str(v)
    return Symbol([(_Node(None, name, attr=attrs), 0)])


var = Variable


def Group(symbols):
    """One symbol whose outputs are the outputs of ``symbols``, in order."""
    if isinstance(symbols, Symbol):
        symbols = [symbols]
    entries = []
    for i, s in enumerate(symbols):
        if not isinstance(s, Symbol):
            raise ValueError(f"Group: item {i} is {type(s).__name__}, not a Symbol")
        entries.extend(s._outputs)
    if not entries:
        raise ValueError("Group: needs at least one symbol")
    return Symbol(entries)


def _entry(sym, opname, argname):
    if not isinstance(sym, Symbol):
        raise ValueError(f"{opname}: input {argname!r} is {type(sym).__name__}, not a Symbol")
    if len(sym._outputs) != 1:
        raise ValueError(f"{opname}: input {argname!r} is a group of {len(sym._outputs)} "
                         "outputs; pick one with sym[i]")
    return sym._outputs[0]


def _split_kwargs(kwargs):
    inputs, params = {}, {}
    for k, v in kwargs.items():
        if isinstance(v, Symbol):
            inputs[k] = v
        else:
            params[k] = v
    return inputs, params


def _node_attr(attr, opname):
    if attr is not None and not isinstance(attr, dict):
        raise ValueError(f"{opname}: attr={attr!r} must be a dict of strings")
    return {k: str(v) for k, v in _attribute.current().get(attr).items()}


def _is_dunder(key):
    return len(key) > 4 and key.startswith("__") and key.endswith("__")


# Attributes an operator gives the variables of some inputs when composed, unless they
# have them (MXNet's FSetInputVarAttrOnCompose): a PReLU slope starts at 0.25.
_INPUT_VAR_ATTRS = {("LeakyReLU", "gamma"): {"__init__": '["Constant", {"value": 0.25}]'}}


def _set_input_var_attrs(opname, argname, entry):
    extra = _INPUT_VAR_ATTRS.get((opname, argname))
    node = entry[0]
    if extra and node.op is None:
        for k, v in extra.items():
            node.attr.setdefault(k, v)


# MXNet's hidden keys: given to an operator (``FullyConnected(..., lr_mult=0)``) they are
# node attributes ``__lr_mult__``..., which the variables created for its missing inputs
# (``fc1_weight``, ``fc1_bias``) inherit.
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def _positional_params(op, args, kwargs):
    """MXNet's generated signature: inputs, then parameters in order
    (``mx.sym.clip(x, 0, 1)``, ``x.slice_axis(1, 0, 2)``): the trailing non-Symbol
    positional arguments become parameters."""
    k = len(args)
    while k and not isinstance(args[k - 1], Symbol) and args[k - 1] is not None:
        k -= 1
    if k == len(args) or (k == 0 and op.nin):    # no input at all: reported as such
        return args, kwargs
    positional = args[k:]
    pnames = [p for p in op.params if p not in kwargs and p != "key"]
    if len(positional) > len(pnames):
        raise ValueError(f"{op.name}: {len(positional)} positional parameters given, it "
                         f"takes at most {len(pnames)} ({pnames})")
    return args[:k], dict(kwargs, **dict(zip(pnames, positional)))


def _compose(op, args, kwargs, name, attr, hint=None):
    """A node applying registered operator ``op``; missing inputs become variables.
    ``hint`` (default: the op's name) names an unnamed node: ``<hint lowercased><n>``.
    An input given as None is not given (``sequence_length=None``)."""
    if args and not op.variadic:
        args, kwargs = _positional_params(op, args, kwargs)
        while args and args[-1] is None:       # trailing inputs given as None: not given
            args = args[:-1]
    if any(v is None for v in kwargs.values()):
        inputs = set(op.arg_names) | set(op.list_aux(kwargs))
        kwargs = {k: v for k, v in kwargs.items() if v is not None or k not in inputs}
    inputs_kw, params = _split_kwargs(kwargs)
    dunder = {k: params.pop(k) for k in [k for k in params if _is_dunder(k)]}
    hidden = {f"__{k}__": str(params.pop(k)) for k in _HIDDEN_KEYS if k in params}
    dunder.update(hidden)
    if dunder:   # MXNet: ``__layout__='NC'`` and the like are node attributes
        attr = dict(attr or {}, **dunder)
    allowed = _allowed_params(op)
    if allowed is not None:
        for k in params:
            if k not in allowed:
                raise ValueError(f"{op.name}: unknown parameter {k!r}; parameters: "
                                 + (", ".join(sorted(allowed)) or "none"))
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError(f"{op.name}: name {name!r} must be a non-empty string")
    node_name = _auto_name((hint or op.name).lower(), name)
    entries = []
    if op.variadic:
        if inputs_kw:
            raise ValueError(f"{op.name}: takes its inputs positionally, got keyword "
                             "input(s) " + ", ".join(repr(k) for k in inputs_kw))
        for i, s in enumerate(args):
            entries.append(_entry(s, op.name, f"arg{i}"))
        if len(entries) < max(op.nin, 1):
            raise ValueError(f"{op.name}: needs at least {max(op.nin, 1)} input(s)")
        n_args = len(entries)
    else:
        names = list(_active_args(op, params))
        aux_names = op.list_aux(params)
        if len(args) > len(names) + len(aux_names):
            every = names + aux_names
            raise ValueError(f"{op.name}: {len(args)} positional inputs, but it takes "
                             f"{len(every)} ({', '.join(every) or 'none'})")
        for i, an in enumerate(names):
            s = args[i] if i < len(args) else None
            if an in inputs_kw:
                if s is not None:
                    raise ValueError(f"{op.name}: input {an!r} given twice")
                s = inputs_kw.pop(an)
            if s is None:
                s = Variable(f"{node_name}_{an}", attr=hidden or None)
            entries.append(_entry(s, op.name, an))
            _set_input_var_attrs(op.name, an, entries[-1])
        n_args = len(entries)
        for j, an in enumerate(aux_names):
            s = args[len(names) + j] if len(names) + j < len(args) else None
            if an in inputs_kw:
                if s is not None:
                    raise ValueError(f"{op.name}: input {an!r} given twice")
                s = inputs_kw.pop(an)
            if s is None:
                s = Variable(f"{node_name}_{an}")
            entries.append(_entry(s, op.name, an))
        if inputs_kw:
            raise ValueError(f"{op.name}: unknown input(s) "
                             + ", ".join(repr(k) for k in inputs_kw)
                             + f"; inputs: {', '.join(names) or 'none'}")
    for i, a in enumerate(args):
        if a is not None and not isinstance(a, Symbol):
            raise ValueError(f"{op.name}: positional input {i} is {type(a).__name__}, "
                             "not a Symbol")
    node = _Node(op, node_name, params, entries, n_args, _node_attr(attr, op.name))
    n_vis = node.num_visible()
    return Symbol([(node, i) for i in range(n_vis)])


def Custom(*args, op_type=None, name=None, attr=None, **kwargs):
    """A custom-operator node: ``mx.sym.Custom(data=x, op_type='MyOp', **params)``, a
    node of the registered op ``Custom`` whose params are ``op_type`` and ``params``
    (inputs by the prop's argument names, as MXNet's front end takes them)."""
    if op_type is None:
        raise ValueError("Custom: op_type is required; registered: "
                         + (", ".join(_operator.custom_op_types()) or "none"))
    inputs_kw, params = _split_kwargs(kwargs)
    prop = _operator.prop_for({"op_type": op_type, **params})
    node_name = _auto_name("custom", name)
    arg_names = list(prop.list_arguments())
    if len(args) > len(arg_names):
        raise ValueError(f"Custom {op_type!r}: {len(args)} positional inputs, but it takes "
                         f"{len(arg_names)} ({', '.join(arg_names)})")
    entries = []
    for i, an in enumerate(arg_names):
        s = args[i] if i < len(args) else inputs_kw.pop(an, None)
        if s is None:
            s = Variable(f"{node_name}_{an}")
        entries.append(_entry(s, f"Custom {op_type!r}", an))
    for an in prop.list_auxiliary_states():
        s = inputs_kw.pop(an, None)
        if s is None:
            s = Variable(f"{node_name}_{an}")
        entries.append(_entry(s, f"Custom {op_type!r}", an))
    if inputs_kw:
        raise ValueError(f"Custom {op_type!r}: unknown input(s) "
                         + ", ".join(repr(k) for k in inputs_kw)
                         + f"; inputs: {', '.join(arg_names)}")
    node = _Node(_operator.CUSTOM_OP, node_name, {"op_type": op_type, **params}, entries,
                 len(arg_names), _node_attr(attr, "Custom"))
    return Symbol([(node, i) for i in range(node.num_outputs())])


def make_function(op, fname=None):
    """The ``mx.sym.<fname>`` composition function of registered operator ``op``
    (``fname``: the name it is called by, an alias or the op's own name)."""
    hint = fname or op.name

    def fn(*args, name=None, attr=None, out=None, **kwargs):   # out: ignored, as MXNet's
        return _compose(op, args, kwargs, name, attr, hint)

    fn.__name__ = fn.__qualname__ = hint
    fn.__doc__ = op.doc or (f"Symbolic operator ``{op.name}`` (inputs: "
                            f"{', '.join(op.arg_names) or 'none'}).")
    return fn


def load_json(json_str):
    """A symbol from ``tojson()`` output (or an MXNet 1.x symbol file's content)."""
    return Symbol(_serialization.graph_entries(json_str))


def load(fname):
    with open(fname) as f:
        return load_json(f.read())
