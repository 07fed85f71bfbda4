"""The operator registry: each operator is defined once, in one place.

An :class:`OpDef` holds everything about an operator: its profile name (MXNet's name
where MXNet has one), its inputs, how to infer output shapes and dtypes without running
it, its numpy kernel, its gradient, and a cost estimate the engine uses to decide whether
the op is cheap enough to run inline. NDArray functions, the symbolic executor and
autograd all read the same entry, so adding an operator is adding one ``defop`` call.

Kernel contract: ``kernel(*inputs, **params)`` takes numpy arrays and returns a numpy
array (or a tuple when ``num_outputs > 1``) of the inferred shapes and dtypes. It must not
modify its inputs; it may return views of them (nothing mutates array memory in place).

Optional fields: ``infer_args(in_shapes, **params)`` fills in argument shapes that the
data shape and params determine (a FullyConnected weight from ``num_hidden``), for
``Symbol.infer_shape``/``simple_bind``; ``train_kernel`` replaces ``kernel`` when
``is_train`` (Dropout); ``visible_outputs`` < ``num_outputs`` hides trailing outputs
(a Dropout mask) that only the gradient reads (a callable of the params when that
depends on them: BatchNorm's ``output_mean_var``); ``mutate_aux=True`` says the
``train_kernel`` returns, after the outputs, new values of the auxiliary states (the
trailing ``aux_names`` inputs: BatchNorm's moving mean and variance), which replace
those arrays' data (MXNet's mutable inputs; see :meth:`OpDef.written`); ``cost(in_shapes, **params)`` estimates
floating-point work (default: output elements) for the engine's inline decision.

Gradient contract (``grad_reads``: which forward values it reads, see ``OpDef``):
``grad(out_grads, inputs, outputs, **params)`` returns one numpy array
(or None for "no gradient") per input. It runs as the engine op ``grad_name``
(:func:`backward_name` unless given: MXNet 2's NumPy operators name theirs otherwise). With ``grad_needs=True`` the gradient also
receives ``_needs`` (one bool per input): it may return None for inputs whose gradient
nobody needs (a network's data input) and skip computing it. A gradient that reads no
output gradient (MXNet's ``MakeZeroGradNodes``: ``shape_array``, ``argmax``, ``topk`` of
indices) says so with :func:`reads_no_out_grads`: an executor's ``backward`` then leaves
that output's given gradient unread, unchecked, as MXNet's does.
"""
import math

import numpy as np

__all__ = ["OpDef", "defop", "derive", "alias", "get", "registry", "canonical", "same_shape",
           "broadcast_shape", "input_size", "reads_no_out_grads"]

registry = {}    # every name an operator answers to (aliases included) -> its OpDef


class OpDef:
    __slots__ = ("name", "kernel", "infer", "grad", "arg_names", "num_outputs",
                 "cost", "params", "out_dtype", "nin", "variadic", "doc", "grad_name",
                 "aux_names", "train_kernel", "output_names", "infer_args",
                 "visible_outputs", "grad_needs", "mutate_aux", "grad_reads")

    def __init__(self, name, kernel, arg_names=("data",), infer=None, grad=None,
                 num_outputs=1, cost=None, params=None, out_dtype=None, variadic=False,
                 doc=None, aux_names=(), train_kernel=None, output_names=None,
                 infer_args=None, visible_outputs=None, grad_needs=False, mutate_aux=False,
                 grad_name=None, grad_reads=None):
        self.name = name
        self.kernel = kernel
        self.arg_names = tuple(arg_names)
        self.nin = len(self.arg_names)
        self.infer = infer or same_shape
        self.grad = grad
        self.grad_name = grad_name or backward_name(name)
        self.num_outputs = num_outputs
        self.cost = cost
        self.params = dict(params or {})
        self.out_dtype = out_dtype
        self.variadic = variadic
        self.doc = doc
        self.aux_names = tuple(aux_names)
        self.train_kernel = train_kernel
        self.output_names = output_names
        self.infer_args = infer_args
        self.visible_outputs = visible_outputs
        self.grad_needs = grad_needs
        self.mutate_aux = mutate_aux
        # which forward values the gradient reads: ``grad_reads(params)`` -> (indices of
        # the inputs whose values it reads, whether it reads the outputs); None: all.
        # The others it may be given as shape-only placeholders (MXNet's FGradient
        # dependencies: an executor releases them once the forward pass is done)
        self.grad_reads = grad_reads

    # -- what the engine needs to run it: the one answer for every path ----------------
    # (the NDArray layer, autograd, the symbolic executor, Gluon's hybrid path)
    def kernel_for(self, is_train):
        """The kernel to run: ``train_kernel`` in training when there is one."""
        if is_train and self.train_kernel is not None:
            return self.train_kernel
        return self.kernel

    def estimate_cost(self, inputs, params, out_shapes):
        """Estimated work of one call on ``inputs`` (arrays: anything with a ``shape``),
        for the engine's inline decision: ``cost`` if given, else the elements of the
        first output. (The input shapes are gathered only for a ``cost`` function: this
        runs on every operator call.)"""
        if self.cost is not None:
            return self.cost([x.shape for x in inputs], **params)
        return math.prod(out_shapes[0]) if out_shapes else 0

    def grad_cost(self, inputs, params):
        """Estimated work of ``_backward_<name>`` on the forward's ``inputs``: twice the
        forward's, or every input element once when the forward has no estimate."""
        if self.cost is not None:
            return 2 * self.cost([x.shape for x in inputs], **params)
        return sum(math.prod(x.shape) for x in inputs)

    def grad_kernel(self, n_out, n_in, params, needs):
        """Kernel of ``_backward_<name>``: ``(*out_grads, *inputs, *outputs)`` -> the
        gradients of the inputs whose ``needs`` entry is true (one array, or a tuple of
        them); an input the gradient returns None for gets zeros. ``grad_needs`` ops
        also receive ``_needs`` and may skip the others."""
        grad_fn = self.grad
        if grad_fn is None:
            raise ValueError(f"operator {self.name!r} has no gradient")
        wanted = [i for i, need in enumerate(needs) if need]
        if self.grad_needs:
            params = dict(params, _needs=tuple(needs))

        def kernel(*arrays):
            ins = arrays[n_out:n_out + n_in]
            res = grad_fn(list(arrays[:n_out]), list(ins), list(arrays[n_out + n_in:]),
                          **params)
            if len(res) != n_in:
                raise ValueError(f"gradient of {self.name!r} returned {len(res)} arrays "
                                 f"for {n_in} inputs")
            out = tuple(np.zeros_like(ins[i]) if res[i] is None else res[i] for i in wanted)
            # one gradient: the array itself (a 1-tuple would be copied whole)
            return out[0] if len(out) == 1 else out
        return kernel

    def reads_out_grads(self, params):
        """Whether the gradient reads the output gradients (see :func:`reads_no_out_grads`)."""
        rule = getattr(self.grad, "reads_out_grads", True)
        return bool(rule(params)) if callable(rule) else rule

    def written(self, inputs, outs, is_train):
        """The arrays the kernel's results go to: the outputs, then, in training for a
        ``mutate_aux`` op, its auxiliary-state inputs (updated in place, as in MXNet)."""
        if is_train and self.mutate_aux:
            return list(outs) + list(inputs[len(inputs) - len(self.aux_names):])
        return outs

    def n_outputs(self, params):
        n = self.num_outputs
        return n(params) if callable(n) else n

    # -- what a graph node of this op is made of (MXNet's FListOutputNames,
    # FListAuxiliaryStates, FInferType...): asked with the node's params, so an op whose
    # inputs and outputs depend on them (``Custom``) answers like any other -----------
    stateful = False   # runs through a state made once per node (see ``Custom``), no kernel

    def list_arguments(self, params):
        """The argument names (the op's ``arg_names``; see ``params.active_args`` for
        the ops that drop some under their params)."""
        return self.arg_names

    def list_outputs(self, params):
        """The visible outputs' name suffixes (``output``; ``output0``... or the op's
        ``output_names`` when it has several)."""
        n = self.n_visible(params)
        if n == 1:
            return ["output"]
        names = self.output_names
        if names and len(names) >= n:
            return list(names[:n])
        return [f"output{i}" for i in range(n)]

    def list_aux(self, params):
        """The auxiliary-state inputs' names, after the arguments."""
        return list(self.aux_names)

    def dtype_param(self, params):
        """The dtype the op's ``dtype`` parameter gives its outputs, or None."""
        p = params.get("dtype")
        if p is None or (isinstance(p, str) and p == "None"):
            return None
        return np.dtype(p)

    def infer_types(self, in_dtypes, params):
        """Output dtypes from input dtypes alone (``infer_type`` without shapes): the
        ``dtype`` parameter's, else the first input's."""
        d = self.dtype_param(params)
        if d is None:
            d = in_dtypes[0] if in_dtypes else np.dtype(np.float32)
        return [d] * self.n_outputs(params)

    def params_from_text(self, attrs, parse):
        """Parameters from a symbol file's string attributes (``parse``: the file's
        literal reading of one value)."""
        return {k: parse(v) for k, v in attrs.items()}

    def display_name(self, params):
        """The op as ``Executor.debug_str`` names it."""
        return self.name

    def n_visible(self, params):
        """How many outputs the caller sees (the rest only the gradient reads)."""
        n = self.visible_outputs
        if callable(n):
            return n(params)
        return n or self.n_outputs(params)

    def __repr__(self):
        return f"<OpDef {self.name}>"


def reads_no_out_grads(grad, when=None):
    """Mark the gradient function ``grad`` as reading no output gradient (its inputs'
    gradients are zeros), always or, with ``when(params)``, for those params."""
    grad.reads_out_grads = False if when is None else (lambda params: not when(params))
    return grad


def backward_name(name):
    """MXNet's name of an operator's gradient op: ``_backward_<name>`` without doubling
    an underscore (``_mul_scalar`` -> ``_backward_mul_scalar``, ``_npi_dot`` ->
    ``_backward_npi_dot``)."""
    return "_backward" + name if name.startswith("_") else "_backward_" + name


def defop(name, kernel, aliases=(), **kwargs):
    """Register operator ``name`` (see :class:`OpDef` for the fields) and return it;
    ``aliases`` are other names of the same operator (see :func:`alias`)."""
    if name in registry:
        raise ValueError(f"operator {name!r} is already registered")
    op = OpDef(name, kernel, **kwargs)
    registry[name] = op
    for other in aliases:
        alias(other, name)
    return op


def derive(name, base, grad_name=None, **changes):
    """Register operator ``name`` made from registered ``base``'s definition: its kernel,
    inference, gradient and cost unless ``changes`` replaces them (``OpDef`` fields).

    MXNet 2's NumPy operators are this: ``_npi_add`` is ``broadcast_add``'s computation
    with NumPy's dtype rules, profiled and differentiated under its own name
    (``grad_name``: MXNet 2's name of its gradient op, ``_backward_<name>`` if not
    given). An :func:`alias` would be profiled under ``base``'s name."""
    if name in registry:
        raise ValueError(f"operator {name!r} is already registered")
    source = get(base)
    op = OpDef.__new__(type(source))
    for slot in OpDef.__slots__:
        setattr(op, slot, getattr(source, slot))
    op.name = name
    op.grad_name = grad_name or backward_name(name)
    op.params = dict(source.params)
    for field, value in changes.items():
        if field not in OpDef.__slots__:
            raise ValueError(f"derive({name!r}): {field!r} is not an operator field")
        setattr(op, field, value)
    op.nin = len(op.arg_names)
    registry[name] = op
    return op


def alias(name, target):
    """Make ``name`` another name of registered operator ``target`` (MXNet's
    ``add_alias``: ``flatten`` for ``Flatten``, ``broadcast_plus`` for ``broadcast_add``).

    ``mx.nd.<name>`` and ``mx.sym.<name>`` then exist and call the same definition;
    the op is profiled, serialized and differentiated under its own name ``target``,
    as in MXNet, and an unnamed symbol node is named after ``name``."""
    op = get(target)
    if name in registry and registry[name] is not op:
        raise ValueError(f"operator {name!r} is already registered")
    registry[name] = op
    return op


def canonical():
    """Each registered operator once: {name: OpDef} without the aliases."""
    return {name: op for name, op in registry.items() if op.name == name}


def get(name):
    try:
        return registry[name]
    except KeyError:
        raise ValueError(f"operator {name!r} is not registered") from None


# -- common cost estimate ----------------------------------------------------------------
def input_size(in_shapes, **_):
    """Cost of an op that touches every element of its first input once (elementwise
    ops, data movement, reductions): its size, whatever the output's."""
    return math.prod(in_shapes[0]) if in_shapes else 1


# -- common shape inference ---------------------------------------------------------
def same_shape(in_shapes, in_dtypes, **params):
    """One output shaped and typed like the first input."""
    return [in_shapes[0]], [in_dtypes[0]]


def broadcast_shape(in_shapes, in_dtypes, **params):
    """One output with the numpy broadcast of all input shapes."""
    try:
        shape = np.broadcast_shapes(*in_shapes)
    except ValueError:
        raise ValueError(
            "shapes " + " and ".join(str(tuple(s)) for s in in_shapes)
            + " cannot be broadcast together") from None
    return [shape], [in_dtypes[0]]
