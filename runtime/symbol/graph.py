"""Graph nodes: what a symbol is made of, node names, and walking a graph.

A node is a variable (``op is None``) or a registered operator (an
:class:`~xprof.runtime.ops.registry.OpDef`; a custom operator is the registered op
``Custom``, its ``op_type`` one of its params, as in MXNet). What a node's inputs and
outputs are called is the op's answer for the node's params. Unnamed nodes are called
``<op name lowercased><n>`` with one per-process counter per op name
(``fullyconnected0``). Shared by :mod:`.symbol` (composition), :mod:`.inference`,
:mod:`.serialization` and :mod:`.executor`.
"""
import inspect

import numpy as np

from .. import name as _names
from ..ops.params import active_args


# -- names -----------------------------------------------------------------------------
def _auto_name(hint, name=None):
    """``name`` (with the current ``mx.name.Prefix``) or ``<hint><n>`` (see :mod:`..name`)."""
    return _names.current().get(name, hint)


def reset_names():
    """Restart the automatic node-name counters (``fullyconnected0`` again)."""
    _names.reset_default()


# -- nodes -----------------------------------------------------------------------------
class _Node:
    """One graph node; ``inputs`` holds the arguments then the auxiliary states."""

    __slots__ = ("op", "name", "params", "inputs", "n_args", "attr", "__weakref__")

    def __init__(self, op, name, params=None, inputs=(), n_args=None, attr=None):
        self.op = op
        self.name = name
        self.params = dict(params or {})
        self.inputs = list(inputs)
        self.n_args = len(self.inputs) if n_args is None else n_args
        self.attr = dict(attr or {})

    @property
    def is_var(self):
        return self.op is None

    def full_params(self):
        """Params as the kernel receives them: the op's defaults updated by the node's."""
        if self.op is None:
            return dict(self.params)
        merged = dict(self.op.params)
        merged.update(self.params)
        return merged

    def num_outputs(self):
        if self.op is None:
            return 1
        return self.op.n_outputs(self.full_params())

    def num_visible(self):
        if self.op is None:
            return self.num_outputs()
        return self.op.n_visible(self.full_params())

    def output_names(self):
        """Names of the visible outputs (``fc1_output``; a variable's own name)."""
        if self.op is None:
            return [self.name]
        return [f"{self.name}_{o}" for o in self.op.list_outputs(self.full_params())]

    def arg_names(self):
        if self.op.variadic:
            return [f"arg{i}" for i in range(self.n_args)]
        return list(_active_args(self.op, self.params))

    def aux_names(self):
        return self.op.list_aux(self.full_params())

    def user_attrs(self):
        """User attributes and op params, as strings (MXNet's node ``attrs``)."""
        out = {}
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


def substitute(entries, mapping):
    """``entries`` with each variable named in ``mapping`` replaced by the entry given
    for it (MXNet's symbol composition): operator nodes on a path to a replaced variable
    are copied, the rest is shared. Returns the new entries."""
    new = {}          # id(old node) -> the node standing for it
    for node in _topo(entries):
        if node.is_var:
            continue
        inputs, changed = [], False
        for child, i in node.inputs:
            if child.is_var and child.name in mapping:
                inputs.append(mapping[child.name])
                changed = True
            elif id(child) in new:
                inputs.append((new[id(child)], i))
                changed = True
            else:
                inputs.append((child, i))
        if changed:
            new[id(node)] = _Node(node.op, node.name, node.params, inputs, node.n_args,
                                  node.attr)
    out = []
    for node, i in entries:
        if node.is_var and node.name in mapping:
            out.append(mapping[node.name])
        else:
            out.append((new.get(id(node), node), i))
    return out
