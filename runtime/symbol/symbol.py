"""Symbols: a graph of operator nodes, composed lazily and run by an :class:`Executor`.

A :class:`Symbol` is a list of output entries ``(node, index)``. A node is a variable
(``op is None``), a registered operator (an :class:`~xprof.runtime.ops.registry.OpDef`)
or a custom operator (``op is CUSTOM``, with its ``CustomOpProp`` instance). Operator
functions (``mx.sym.FullyConnected``, ``mx.sym.dot``...) are generated from the
registry: symbols given positionally or as keyword arguments named like the operator's
arguments are inputs, other keywords are parameters, and every missing input becomes a
new variable named ``<node name>_<argument>`` (``fc1_weight``, ``softmax_label``), as in
MXNet. Unnamed nodes are called ``<op name lowercased><n>`` with one per-process counter
per op name (``fullyconnected0``).

Shape inference (``infer_shape``, and binding) walks the graph in topological order with
each OpDef's ``infer``; an op whose inputs are not all known yet first asks its
``infer_args`` (weights from the data shape), and the walk repeats until nothing changes.
"""
import ast
import inspect
import json
import numbers
import threading
import warnings

import numpy as np

from .. import ops as _ops_pkg  # noqa: F401 - registers every operator
from ..ops import registry as _registry

__all__ = ["Symbol", "Variable", "var", "Group", "Custom", "load", "load_json", "CUSTOM"]


class _CustomMarker:
    """The ``op`` of a custom-operator node."""

    name = "Custom"
    params = {}

    def __repr__(self):
        return "<Custom>"


CUSTOM = _CustomMarker()


# -- names -----------------------------------------------------------------------------
_name_lock = threading.Lock()
_name_counts = {}


def _auto_name(hint):
    with _name_lock:
        n = _name_counts.get(hint, 0)
        _name_counts[hint] = n + 1
    return f"{hint}{n}"


def reset_names():
    """Restart the automatic node-name counters (``fullyconnected0`` again)."""
    with _name_lock:
        _name_counts.clear()


# -- nodes -----------------------------------------------------------------------------
class _Node:
    """One graph node; ``inputs`` holds the arguments then the auxiliary states."""

    __slots__ = ("op", "name", "params", "inputs", "n_args", "attr", "prop", "op_type",
                 "__weakref__")

    def __init__(self, op, name, params=None, inputs=(), n_args=None, attr=None,
                 prop=None, op_type=None):
        self.op = op
        self.name = name
        self.params = dict(params or {})
        self.inputs = list(inputs)
        self.n_args = len(self.inputs) if n_args is None else n_args
        self.attr = dict(attr or {})
        self.prop = prop
        self.op_type = op_type

    @property
    def is_var(self):
        return self.op is None

    def full_params(self):
        """Params as the kernel receives them: the op's defaults updated by the node's."""
        if self.op is None or self.op is CUSTOM:
            return dict(self.params)
        merged = dict(self.op.params)
        merged.update(self.params)
        return merged

    def num_outputs(self):
        if self.op is None:
            return 1
        if self.op is CUSTOM:
            return len(self.prop.list_outputs())
        return self.op.n_outputs(self.full_params())

    def num_visible(self):
        if self.op is None or self.op is CUSTOM:
            return self.num_outputs()
        return self.op.visible_outputs or self.num_outputs()

    def output_names(self):
        """Names of the visible outputs (``fc1_output``; a variable's own name)."""
        if self.op is None:
            return [self.name]
        if self.op is CUSTOM:
            outs = self.prop.list_outputs()
            return [f"{self.name}_{o}" for o in outs]
        n = self.num_visible()
        if n == 1:
            return [f"{self.name}_output"]
        names = self.op.output_names
        if names and len(names) >= n:
            return [f"{self.name}_{names[i]}" for i in range(n)]
        return [f"{self.name}_output{i}" for i in range(n)]

    def arg_names(self):
        if self.op is CUSTOM:
            return list(self.prop.list_arguments())
        if self.op.variadic:
            return [f"arg{i}" for i in range(self.n_args)]
        return list(_active_args(self.op, self.params))

    def aux_names(self):
        if self.op is CUSTOM:
            return list(self.prop.list_auxiliary_states())
        return list(self.op.aux_names)

    def user_attrs(self):
        """User attributes and op params, as strings (MXNet's node ``attrs``)."""
        out = {}
        if self.op is CUSTOM:
            out["op_type"] = self.op_type
        for k, v in self.params.items():
            out[k] = _param_str(v)
        out.update(self.attr)
        return out


def _param_str(v):
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    return str(v)


def _active_args(op, params):
    try:
        from ..ops.nn import active_args
    except ImportError:  # nn not available: every declared argument is taken
        return op.arg_names
    return active_args(op, params)


_signature_cache = {}


def _allowed_params(op):
    """Parameter names ``op`` accepts, or None when its kernel takes ``**kwargs``."""
    allowed = _signature_cache.get(op.name, False)
    if allowed is not False:
        return allowed
    names = set(op.params)
    try:
        sig = inspect.signature(op.kernel)
    except (TypeError, ValueError):
        sig = None
    if sig is None or any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        allowed = None
    else:
        positional = 0 if op.variadic else len(op.arg_names)  # the inputs come first
        for i, p in enumerate(sig.parameters.values()):
            if p.kind is p.KEYWORD_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD
                                            and i >= positional):
                names.add(p.name)
        names.difference_update(op.arg_names)
        allowed = names
    _signature_cache[op.name] = allowed
    return allowed


def _topo(entries):
    """Nodes reachable from ``entries`` in depth-first post-order (inputs first)."""
    order, seen = [], set()
    for head, _ in entries:
        if id(head) in seen:
            continue
        seen.add(id(head))
        stack = [(head, iter(head.inputs))]
        while stack:
            node, it = stack[-1]
            for child, _ in it:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child.inputs)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _aux_ids(order):
    aux = set()
    for n in order:
        if n.op is not None:
            for c, _ in n.inputs[n.n_args:]:
                aux.add(id(c))
    return aux


# -- shape parsing -------------------------------------------------------------------
def _check_shape(shape, what):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: shape {shape!r} is not a tuple of integers") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{what}: shape {shape!r} has a negative dimension")
    return shape


def _check_dtype(dtype, what):
    try:
        return np.dtype(dtype)
    except TypeError:
        raise ValueError(f"{what}: dtype {dtype!r} is not a numpy dtype") from None


def _attr_shape(node):
    text = node.attr.get("__shape__")
    if text is None:
        return None
    try:
        return _check_shape(ast.literal_eval(text), f"variable {node.name!r}")
    except (ValueError, SyntaxError):
        raise ValueError(f"variable {node.name!r}: attribute __shape__={text!r} is not a "
                         "tuple of integers") from None


def _attr_dtype(node):
    text = node.attr.get("__dtype__")
    if text is None:
        return None
    try:
        return np.dtype(text)
    except TypeError:
        # MXNet stores the dtype's enum value (0 = float32...)
        codes = {"0": "float32", "1": "float64", "2": "float16", "3": "uint8", "4": "int32",
                 "5": "int8", "6": "int64"}
        if text in codes:
            return np.dtype(codes[text])
        raise ValueError(f"variable {node.name!r}: attribute __dtype__={text!r} is not a "
                         "dtype") from None


# -- inference -----------------------------------------------------------------------
class _Inference:
    """Shapes and dtypes of every entry ``(id(node), index)`` of a graph."""

    def __init__(self, order):
        self.order = order
        self.shape = {}
        self.dtype = {}

    def set_shape(self, key, shape, who):
        shape = tuple(int(s) for s in shape)
        old = self.shape.get(key)
        if old is None:
            self.shape[key] = shape
            return True
        if old != shape:
            raise ValueError(f"infer_shape: {who} gives shape {shape} to an entry already "
                             f"known to have shape {old}")
        return False


def _node_desc(n):
    return f"{n.op.name} node {n.name!r}"


def infer_graph(order, shapes, dtypes):
    """Infer every entry's shape and dtype; ``shapes``/``dtypes`` map variable names.

    Raises ValueError naming the node on any contradiction. Entries left unknown are
    simply missing from the result's dicts.
    """
    inf = _Inference(order)
    for n in order:
        if n.op is None:
            key = (id(n), 0)
            s = shapes.get(n.name)
            if s is None:
                s = _attr_shape(n)
            if s is not None:
                inf.shape[key] = tuple(s)
            d = dtypes.get(n.name)
            if d is None:
                d = _attr_dtype(n)
            if d is not None:
                inf.dtype[key] = np.dtype(d)
    ops = [n for n in order if n.op is not None]
    done = set()
    changed = True
    while changed:
        changed = False
        for n in ops:
            if id(n) in done:
                continue
            keys = [(id(c), i) for c, i in n.inputs]
            in_shapes = [inf.shape.get(k) for k in keys]
            if any(s is None for s in in_shapes):
                if _fill_inputs(n, keys, in_shapes, inf):
                    changed = True
                    in_shapes = [inf.shape.get(k) for k in keys]
                if any(s is None for s in in_shapes):
                    continue
            in_dtypes = _fill_dtypes(keys, inf)
            out_shapes, out_dtypes = _infer_node(n, in_shapes, in_dtypes)
            for i, (s, d) in enumerate(zip(out_shapes, out_dtypes)):
                inf.set_shape((id(n), i), s, _node_desc(n))
                inf.dtype[(id(n), i)] = np.dtype(d)
            done.add(id(n))
            changed = True
    return inf


def _fill_dtypes(keys, inf):
    """Input dtypes, unknown ones taken from the first known input (else float32)."""
    known = [inf.dtype[k] for k in keys if k in inf.dtype]
    default = known[0] if known else np.dtype(np.float32)
    out = []
    for k in keys:
        d = inf.dtype.get(k)
        if d is None:
            d = inf.dtype[k] = default
        out.append(d)
    return out


def _infer_node(n, in_shapes, in_dtypes):
    if n.op is CUSTOM:
        from .. import operator as _operator
        try:
            _, oshapes, ashapes, odtypes, _ = _operator.infer(
                n.prop, n.op_type, in_shapes[:n.n_args], in_dtypes[:n.n_args])
        except ValueError as e:
            raise ValueError(f"infer_shape: {_node_desc(n)}: {e}") from None
        for (c, i), given, expected in zip(n.inputs[n.n_args:], in_shapes[n.n_args:],
                                           ashapes):
            if tuple(given) != tuple(expected):
                raise ValueError(f"infer_shape: {_node_desc(n)}: auxiliary state "
                                 f"{c.name!r} has shape {tuple(given)}, expected "
                                 f"{tuple(expected)}")
        return oshapes, odtypes
    try:
        out_shapes, out_dtypes = n.op.infer([tuple(s) for s in in_shapes], list(in_dtypes),
                                            **n.full_params())
    except (ValueError, TypeError, IndexError, KeyError) as e:
        raise ValueError(f"infer_shape: {_node_desc(n)} with input shapes "
                         f"{[tuple(s) for s in in_shapes]}: {e}") from None
    n_out = n.num_outputs()
    if len(out_shapes) != n_out:
        raise ValueError(f"infer_shape: {_node_desc(n)} inferred {len(out_shapes)} outputs, "
                         f"expected {n_out}")
    return out_shapes, out_dtypes


_SAME_SHAPE_OPS = ("elemwise_", "_backward_")


def _fill_inputs(n, keys, in_shapes, inf):
    """Fill unknown input shapes of ``n`` from the known ones; True if any was set."""
    changed = False
    if n.op is CUSTOM:
        if in_shapes[0] is None:
            return False
        try:
            res = n.prop.infer_shape([list(s) if s is not None else []
                                      for s in in_shapes[:n.n_args]])
        except Exception:  # noqa: BLE001 - the prop cannot work with partial shapes
            return False
        filled = list(res[0]) + (list(res[2]) if len(res) > 2 else [])
        for k, given, s in zip(keys, in_shapes, filled):
            if given is None and s is not None and len(s) and all(int(d) > 0 for d in s):
                changed |= inf.set_shape(k, s, _node_desc(n))
        return changed
    op = n.op
    if op.infer_args is not None:
        if in_shapes[0] is None:
            return False
        try:
            filled = op.infer_args([None if s is None else tuple(s) for s in in_shapes],
                                   **n.full_params())
        except (ValueError, TypeError, IndexError, KeyError) as e:
            raise ValueError(f"infer_shape: {_node_desc(n)} with input shapes "
                             f"{in_shapes}: {e}") from None
        for k, given, s in zip(keys, in_shapes, filled):
            if given is None and s is not None:
                changed |= inf.set_shape(k, s, _node_desc(n))
        return changed
    if op.name.startswith(_SAME_SHAPE_OPS) or op.name == "add_n":
        known = [s for s in in_shapes if s is not None]
        if known:
            for k, given in zip(keys, in_shapes):
                if given is None:
                    changed |= inf.set_shape(k, known[0], _node_desc(n))
    return changed


def _infer_dtype_only(order, dtypes):
    """Dtype propagation without shapes (``infer_type``): an output takes the op's
    ``dtype`` param when it has one (Cast, creation ops), else its first input's dtype."""
    dt = {}
    for n in order:
        if n.op is None:
            d = dtypes.get(n.name)
            if d is None:
                d = _attr_dtype(n)
            if d is not None:
                dt[(id(n), 0)] = np.dtype(d)
    changed = True
    done = set()
    while changed:
        changed = False
        for n in order:
            if n.op is None or id(n) in done:
                continue
            keys = [(id(c), i) for c, i in n.inputs]
            known = [dt[k] for k in keys if k in dt]
            if keys and not known:
                continue
            default = known[0] if known else np.dtype(np.float32)
            for k in keys:
                dt.setdefault(k, default)
            ins = [dt[k] for k in keys]
            if n.op is CUSTOM:
                res = n.prop.infer_type([d.type for d in ins[:n.n_args]])
                outs = [np.dtype(t) for t in res[1]]
            else:
                p = n.full_params().get("dtype")
                if p is None or (isinstance(p, str) and p == "None"):
                    d = ins[0] if ins else np.dtype(np.float32)
                else:
                    d = np.dtype(p)
                outs = [d] * n.num_outputs()
            for i, d in enumerate(outs):
                dt[(id(n), i)] = d
            done.add(id(n))
            changed = True
    return dt


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

    def get_children(self):
        node, _ = self._single("get_children")
        if node.op is None:
            return None
        return Symbol(list(node.inputs))

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
        raise TypeError("the truth value of a Symbol is not defined (== builds a graph "
                        "node); use `is` to compare symbols")

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
        """(arg_types, out_types, aux_types) as numpy scalar types."""
        dtypes = self._named_values("infer_type", "types", args, kwargs, _check_dtype)
        order = self._order()
        dt = _infer_dtype_only(order, dtypes)
        by_name = {n.name: dt.get((id(n), 0)) for n in order if n.op is None}
        arg_t = [by_name.get(a) for a in self.list_arguments()]
        aux_t = [by_name.get(a) for a in self.list_auxiliary_states()]
        out_t = [dt.get((id(node), i)) for node, i in self._outputs]
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
        from .executor import Executor
        return Executor._bind(self, ctx, args, args_grad, grad_req, aux_states)

    _bind = bind

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Allocate zero-filled arguments (and gradients) from shapes given by name."""
        from .executor import Executor
        return Executor._simple_bind(self, ctx, grad_req, type_dict, kwargs)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given arrays, run forward, return the outputs."""
        from ..context import current_context
        ex = self.bind(ctx or current_context(), kwargs, grad_req="null")
        return ex.forward()

    # -- serialization ----------------------------------------------------------------
    def tojson(self):
        order = self._order()
        index = {id(n): i for i, n in enumerate(order)}
        nodes = []
        for n in order:
            entry = {"op": "null" if n.op is None else n.op.name, "name": n.name}
            attrs = n.user_attrs()
            if attrs:
                entry["attrs"] = attrs
            entry["inputs"] = [[index[id(c)], i, 0] for c, i in n.inputs]
            if n.op is not None and n.n_args != len(n.inputs):
                entry["num_args_inputs"] = n.n_args
            nodes.append(entry)
        row_ptr = [0]
        for n in order:
            row_ptr.append(row_ptr[-1] + n.num_outputs())
        doc = {"nodes": nodes,
               "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
               "node_row_ptr": row_ptr,
               "heads": [[index[id(n)], i, 0] for n, i in self._outputs],
               "attrs": {"mxnet_version": ["int", 10900]}}
        return json.dumps(doc, indent=2)

    def save(self, fname, remove_amp_cast=True):
        with open(fname, "w") as f:
            f.write(self.tojson())

    # -- arithmetic (MXNet's operator names) ------------------------------------------
    def _binary(self, other, same, scalar):
        if isinstance(other, Symbol):
            return _compose(_registry.get(same), (self, other), {}, None, None)
        if isinstance(other, numbers.Number) and not isinstance(other, bool):
            return _compose(_registry.get(scalar), (self,), {"scalar": other}, None, None)
        return NotImplemented

    def _rscalar(self, other, scalar):
        if isinstance(other, numbers.Number) and not isinstance(other, bool):
            return _compose(_registry.get(scalar), (self,), {"scalar": other}, None, None)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "_plus_scalar")

    def __radd__(self, o):
        return self._rscalar(o, "_plus_scalar")

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus_scalar")

    def __rsub__(self, o):
        return self._rscalar(o, "_rminus_scalar")

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul_scalar")

    def __rmul__(self, o):
        return self._rscalar(o, "_mul_scalar")

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "_div_scalar")

    def __rtruediv__(self, o):
        return self._rscalar(o, "_rdiv_scalar")

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __pow__(self, o):
        return self._binary(o, "_power", "_power_scalar")

    def __rpow__(self, o):
        return self._rscalar(o, "_rpower_scalar")

    def __neg__(self):
        return self.__mul__(-1.0)   # MXNet 1.x: _mul_scalar with scalar -1.0

    def __pos__(self):
        return self

    def __abs__(self):
        return _compose(_registry.get("abs"), (self,), {}, None, None)

    def __eq__(self, o):
        return self._binary(o, "_equal", "_equal_scalar")

    def __ne__(self, o):
        return self._binary(o, "_not_equal", "_not_equal_scalar")

    def __gt__(self, o):
        return self._binary(o, "_greater", "_greater_scalar")

    def __ge__(self, o):
        return self._binary(o, "_greater_equal", "_greater_equal_scalar")

    def __lt__(self, o):
        return self._binary(o, "_lesser", "_lesser_scalar")

    def __le__(self, o):
        return self._binary(o, "_lesser_equal", "_lesser_equal_scalar")

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


def _method(opname):
    def method(self, *args, **kwargs):
        name = kwargs.pop("name", None)
        attr = kwargs.pop("attr", None)
        return _compose(_registry.get(opname), (self,) + args, kwargs, name, attr)
    method.__name__ = opname
    method.__doc__ = f"``{opname}`` applied to this symbol."
    return method


# Method forms, as on MXNet's Symbol (``x.sum(axis=1)`` is ``sum(x, axis=1)``).
for _m in ("sum", "mean", "max", "min", "argmax", "exp", "log", "sqrt", "square", "abs",
           "relu", "sigmoid", "tanh", "softmax", "log_softmax", "clip", "expand_dims",
           "zeros_like", "ones_like", "slice_axis", "broadcast_to", "sign", "reciprocal"):
    if not hasattr(Symbol, _m):
        setattr(Symbol, _m, _method(_m))


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
    attrs = {}
    if attr is not None:
        if not isinstance(attr, dict):
            raise ValueError(f"Variable {name!r}: attr={attr!r} must be a dict of strings")
        attrs.update({k: str(v) for k, v in attr.items()})
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
        attrs["__storage_type__"] = str(stype)
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
    if attr is None:
        return {}
    if not isinstance(attr, dict):
        raise ValueError(f"{opname}: attr={attr!r} must be a dict of strings")
    return {k: str(v) for k, v in attr.items()}


def _compose(op, args, kwargs, name, attr):
    """A node applying registered operator ``op``; missing inputs become variables."""
    inputs_kw, params = _split_kwargs(kwargs)
    allowed = _allowed_params(op)
    if allowed is not None:
        for k in params:
            if k not in allowed:
                raise ValueError(f"{op.name}: unknown parameter {k!r}; parameters: "
                                 + (", ".join(sorted(allowed)) or "none"))
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError(f"{op.name}: name {name!r} must be a non-empty string")
    node_name = name or _auto_name(op.name.lower())
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
        if len(args) > len(names):
            raise ValueError(f"{op.name}: {len(args)} positional inputs, but it takes "
                             f"{len(names)} ({', '.join(names) or 'none'})")
        for i, an in enumerate(names):
            s = args[i] if i < len(args) else None
            if an in inputs_kw:
                if s is not None:
                    raise ValueError(f"{op.name}: input {an!r} given twice")
                s = inputs_kw.pop(an)
            if s is None:
                s = Variable(f"{node_name}_{an}")
            entries.append(_entry(s, op.name, an))
        n_args = len(entries)
        for an in op.aux_names:
            s = inputs_kw.pop(an, None)
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
    """A custom-operator node: ``mx.sym.Custom(data=x, op_type='MyOp', **params)``."""
    from .. import operator as _operator
    if op_type is None:
        raise ValueError("Custom: op_type is required; registered: "
                         + (", ".join(_operator.get_all_registered_operators()) or "none"))
    inputs_kw, params = _split_kwargs(kwargs)
    prop = _operator.make_prop(op_type, params)
    node_name = name or _auto_name("custom")
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
    node = _Node(CUSTOM, node_name, params, entries, len(arg_names),
                 _node_attr(attr, "Custom"), prop=prop, op_type=op_type)
    return Symbol([(node, i) for i in range(node.num_outputs())])


def make_function(op):
    """The ``mx.sym.<op>`` composition function of registered operator ``op``."""

    def fn(*args, name=None, attr=None, **kwargs):
        return _compose(op, args, kwargs, name, attr)

    fn.__name__ = op.name
    fn.__qualname__ = op.name
    fn.__doc__ = op.doc or (f"Symbolic operator ``{op.name}`` (inputs: "
                            f"{', '.join(op.arg_names) or 'none'}).")
    return fn


# -- loading -----------------------------------------------------------------------------
def _parse_param(text):
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def load_json(json_str):
    """A symbol from ``tojson()`` output (or an MXNet 1.x symbol file's content)."""
    try:
        doc = json.loads(json_str)
        raw_nodes = doc["nodes"]
        heads = doc["heads"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"load_json: not a symbol JSON document: {e}") from None
    from .. import operator as _operator
    nodes = []
    for i, rn in enumerate(raw_nodes):
        opname = rn.get("op", "null")
        name = rn.get("name") or f"node{i}"
        attrs = dict(rn.get("attrs") or rn.get("attr") or rn.get("param") or {})
        inputs = []
        for ref in rn.get("inputs", []):
            if not 0 <= ref[0] < i:
                raise ValueError(f"load_json: node {name!r} has input index {ref[0]} out "
                                 "of range")
            inputs.append((nodes[ref[0]], int(ref[1])))
        user = {k: v for k, v in attrs.items() if k.startswith("__") and k.endswith("__")}
        params = {k: _parse_param(v) for k, v in attrs.items() if k not in user}
        if opname == "null":
            nodes.append(_Node(None, name, attr=user))
        elif opname == "Custom":
            op_type = params.pop("op_type", None)
            kw = {k: attrs[k] for k in params}
            prop = _operator.make_prop(op_type, kw)
            nodes.append(_Node(CUSTOM, name, kw, inputs, len(prop.list_arguments()), user,
                               prop=prop, op_type=op_type))
        else:
            op = _registry.get(opname)
            n_args = rn.get("num_args_inputs", len(inputs) - len(op.aux_names))
            nodes.append(_Node(op, name, params, inputs, n_args, user))
    return Symbol([(nodes[h[0]], int(h[1])) for h in heads])


def load(fname):
    with open(fname) as f:
        return load_json(f.read())
