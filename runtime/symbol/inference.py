"""Shape and dtype inference over a graph (``infer_shape``, ``infer_type``, binding).

The walk goes in topological order with each OpDef's ``infer``; an op whose inputs are
not all known yet first asks its ``infer_args`` (weights from the data shape), and the
walk repeats until nothing changes. Shapes and dtypes given as variable attributes
(``__shape__``, ``__dtype__``) seed the walk.

A ``__shape__`` with 0 dimensions (MXNet's "unknown": a recurrent cell's begin state is
``(0, num_hidden)``) is a partial shape: the variable stays unknown until its node's
output shape is known (a consumer such as ``elemwise_add`` gave it), and then each 0
takes the output's size on the same axis (the batch axis, for the ops such states feed).
"""
import ast
import numbers

import numpy as np

from ..base import mxnet_error_type

# a shape or dtype that does not fit: a ValueError that is also MXNet's MXNetError
InferenceError = mxnet_error_type(ValueError)


# -- shape parsing -------------------------------------------------------------------
def _check_shape(shape, what):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise InferenceError(f"{what}: shape {shape!r} is not a tuple of integers") from None
    if any(s < 0 for s in shape):
        raise InferenceError(f"{what}: shape {shape!r} has a negative dimension")
    return shape


def _check_dtype(dtype, what):
    try:
        return np.dtype(dtype)
    except TypeError:
        raise InferenceError(f"{what}: dtype {dtype!r} is not a numpy dtype") from None


def _attr_shape(node):
    text = node.attr.get("__shape__")
    if text is None:
        return None
    try:
        return _check_shape(ast.literal_eval(text), f"variable {node.name!r}")
    except (ValueError, SyntaxError):
        raise InferenceError(f"variable {node.name!r}: attribute __shape__={text!r} is not a "
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
        raise InferenceError(f"variable {node.name!r}: attribute __dtype__={text!r} is not a "
                         "dtype") from None


# -- inference -----------------------------------------------------------------------
class _Inference:
    """Shapes and dtypes of every entry ``(id(node), index)`` of a graph."""

    def __init__(self, order):
        self.order = order
        self.shape = {}
        self.dtype = {}
        self.partial = {}    # variable entry -> its shape with 0 for unknown dimensions

    def set_shape(self, key, shape, who):
        shape = tuple(int(s) for s in shape)
        old = self.shape.get(key)
        if old is None:
            self.shape[key] = shape
            return True
        if old != shape:
            raise InferenceError(f"infer_shape: {who} gives shape {shape} to an entry already "
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
                if s is not None and 0 in s:
                    inf.partial[key] = tuple(s)
                    s = None
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
                if inf.partial and _fill_partial(n, keys, in_shapes, inf):
                    changed = True
                    in_shapes = [inf.shape.get(k) for k in keys]
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
    try:
        out_shapes, out_dtypes = n.op.infer([tuple(s) for s in in_shapes], list(in_dtypes),
                                            **n.full_params())
    except (ValueError, TypeError, IndexError, KeyError) as e:
        raise InferenceError(f"infer_shape: {_node_desc(n)} with input shapes "
                         f"{[tuple(s) for s in in_shapes]}: {e}") from None
    n_out = n.num_outputs()
    if len(out_shapes) != n_out:
        raise InferenceError(f"infer_shape: {_node_desc(n)} inferred {len(out_shapes)} outputs, "
                         f"expected {n_out}")
    return out_shapes, out_dtypes


def _fill_partial(n, keys, in_shapes, inf):
    """Resolve partial input shapes of ``n`` from its known first output (same rank:
    each 0 takes the output's size on that axis); True if any was set."""
    out = inf.shape.get((id(n), 0))
    if out is None:
        return False
    changed = False
    for k, given in zip(keys, in_shapes):
        hint = inf.partial.get(k)
        if given is not None or hint is None or len(hint) != len(out):
            continue
        changed |= inf.set_shape(k, tuple(o if h == 0 else h for h, o in zip(hint, out)),
                                 _node_desc(n))
        del inf.partial[k]
    return changed


_SAME_SHAPE_OPS = ("elemwise_", "_backward_")


def _fill_inputs(n, keys, in_shapes, inf):
    """Fill unknown input shapes of ``n`` from the known ones; True if any was set."""
    changed = False
    op = n.op
    if op.infer_args is not None:
        if in_shapes[0] is None:
            return False
        try:
            filled = op.infer_args([None if s is None else tuple(s) for s in in_shapes],
                                   **n.full_params())
        except (ValueError, TypeError, IndexError, KeyError) as e:
            raise InferenceError(f"infer_shape: {_node_desc(n)} with input shapes "
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
                p = n.op.dtype_param(n.full_params())
                if p is None:
                    continue
                # the op's dtype parameter gives its outputs (Cast): inputs stay unknown
                for i in range(n.num_outputs()):
                    dt[(id(n), i)] = p
                done.add(id(n))
                changed = True
                continue
            default = known[0] if known else np.dtype(np.float32)
            for k in keys:
                dt.setdefault(k, default)
            outs = n.op.infer_types([dt[k] for k in keys], n.full_params())
            for i, d in enumerate(outs):
                dt[(id(n), i)] = d
            done.add(id(n))
            changed = True
    return dt
