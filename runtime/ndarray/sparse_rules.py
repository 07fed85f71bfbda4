"""The storage type of an operator's result when a sparse array is among its inputs:
MXNet 1.9.1's ``FInferStorageType`` rules, as far as xprof's operators have them.

Values are computed densely whatever the storage type (see :mod:`.sparse`); this only
decides whether the result is reported as ``csr``, ``row_sparse`` or dense. Nothing here
runs until the first sparse array exists (:func:`activate`): ``invoke`` reads one flag.

- zero-preserving unary operators (MXNet's ``..._WITH_RSP_CSR`` list: ``abs``,
  ``sqrt``, ``square``, ``relu``, ``sin``...) and ``Cast``/``copy``/``zeros_like``
  keep the input's type; other unary operators give dense results;
- scalar operators keep it when they map 0 to 0 (``x * 2``, ``x == 1``), else dense;
- ``elemwise_add``/``_sub``, ``_maximum``/``_minimum``/``_hypot``: two arrays of one
  sparse type keep it (``elemwise_div``'s
  result is always dense: MXNet's ``SparseSparseWithDenseResult``); ``elemwise_mul``,
  ``broadcast_mul``/``_div``: a sparse left side (or either side of ``elemwise_mul``)
  keeps it; ``add_n`` of one sparse type keeps it;
- ``dot``: ``dot(csr.T, dns|rsp)`` row_sparse, ``dot(dns, csr)`` csr, otherwise dense
  (``forward_stype`` overrides);
- ``slice`` of csr rows, ``concat`` of csr along axis 0, ``_sparse_retain`` and
  ``cast_storage`` as MXNet's; everything else falls back to dense;
- ``BatchNorm`` with ``fix_gamma=True`` refuses sparse inputs (an MXNetError), as MXNet's.
"""
import numpy as np

from ..base import mxnet_error_type

__all__ = ["activate", "result_class", "stype_of", "class_of", "CLASSES"]

# stype -> array class, filled by ``sparse`` (which imports this module, never the
# reverse); ``live``: True once a sparse array exists (``ndarray.invoke`` reads it)
CLASSES = {}
live = False
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

ZERO_PRESERVING = frozenset((
    "abs", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "ceil", "degrees", "expm1",
    "fix", "floor", "log1p", "negative", "radians", "relu", "rint", "round", "sign", "sin",
    "sinh", "sqrt", "square", "tan", "tanh", "trunc", "Cast", "CopyCPU2CPU", "_copy",
    "identity", "BlockGrad", "zeros_like", "_sparse_retain"))
_SAME_SPARSE = frozenset(("elemwise_add", "elemwise_sub", "_grad_add", "_maximum", "_minimum",
                          "_hypot"))
_LEFT_SPARSE = frozenset(("broadcast_mul", "broadcast_div"))


def activate():
    """Switch the rules on: called when the first sparse array is made."""
    global live
    live = True


def class_of(stype):
    """The array class of storage type ``stype`` (``'default'``: the dense NDArray)."""
    try:
        return CLASSES[stype]
    except KeyError:
        raise ValueError(f"storage type {stype!r} is not allowed; use 'default', 'csr' or "
                         "'row_sparse'") from None


def stype_of(x):
    return getattr(x, "_STYPE", None) or "default"


def _scalar_keeps_zero(op, x, params):
    """Whether ``op`` (a ``*_scalar`` operator) maps 0 to 0 with these parameters."""
    try:
        with np.errstate(all="ignore"):
            zero = np.asarray(op.kernel(np.zeros(1, x._dtype), **params))
    except Exception:  # noqa: BLE001 - a kernel that cannot say keeps the dense rule
        return False
    return bool(np.all(zero == 0))


def _row_slice(params):
    """A slice of rows with step 1 (MXNet's csr slice; a column range too)."""
    step = params.get("step")
    steps = () if step is None else (step if isinstance(step, (tuple, list)) else (step,))
    return all(s in (None, 1) for s in steps)


def _dot(stypes, params):
    lhs, rhs = stypes[0], stypes[1]
    ta, tb = bool(params.get("transpose_a")), bool(params.get("transpose_b"))
    hint = params.get("forward_stype")
    if lhs == "default" and rhs == "default":
        return hint or "default"
    if lhs == "csr" and ta and not tb and rhs in ("row_sparse", "default"):
        return hint or "row_sparse"
    if lhs == "csr" and rhs in ("row_sparse", "default") and not ta and not tb:
        return hint or "default"
    if lhs == "default" and rhs == "csr" and not ta:
        return hint or "csr"
    return hint or "default"


def result_stype(op, inputs, params):
    stypes = [stype_of(x) for x in inputs]
    sparse = [s for s in stypes if s != "default"]
    if not sparse:
        return None
    name = op.name
    if name == "BatchNorm" and \
            str(params.get("fix_gamma", op.params.get("fix_gamma"))).lower() in ("true", "1"):
        # MXNet's BatchNormStorageType refuses it (apache/mxnet#11647)
        raise mxnet_error_type(ValueError)(
            "BatchNorm: fix_gamma=True is not supported for sparse arrays (inputs "
            f"{stypes}); use fix_gamma=False or dense arrays")
    if name == "cast_storage":
        return params.get("stype", "default")
    if name == "dot":
        return _dot(stypes, params)
    if name == "_sparse_retain" or name.startswith("_scatter_"):
        return stypes[0]
    if len(inputs) == 1:
        if name in ZERO_PRESERVING:
            return stypes[0]
        if name.endswith("_scalar") and _scalar_keeps_zero(op, inputs[0], params):
            return stypes[0]
        if name == "slice" and stypes[0] == "csr" and _row_slice(params):
            return "csr"
        if name == "_contrib_quadratic" and not float(params.get("c", 0.0)):
            return stypes[0]
        if name == "_square_sum" and stypes[0] == "row_sparse" and \
                params.get("axis") in (1, (1,), -1, (-1,)) and params.get("keepdims"):
            return "row_sparse"
        if name == "clip" and stypes[0] != "default" and \
                float(params.get("a_min", 0)) <= 0 <= float(params.get("a_max", 0)):
            return stypes[0]
        return "default"
    if name in _SAME_SPARSE and len(set(stypes)) == 1:
        return stypes[0]
    if name == "elemwise_mul":
        if len(set(stypes)) == 1:
            return stypes[0]
        return sparse[0] if len(sparse) == 1 else "default"
    if name in _LEFT_SPARSE and stypes[0] != "default" and stypes[1] == "default":
        return stypes[0]
    if name == "take" and stypes[0] == "csr" and int(params.get("axis", 0)) == 0:
        return "csr"
    if name in ("add_n", "ElementWiseSum") and len(set(stypes)) == 1:
        return stypes[0]
    if name in ("concat", "Concat") and set(stypes) == {"csr"} and \
            int(params.get("dim", 1)) == 0:
        return "csr"
    return "default"


def node_class(node, entry):
    """The class of a graph node's results from its inputs' arrays (``entry``: (node id,
    output) -> array, filled in graph order): an executor's storage type inference."""
    if node.op.stateful:
        return None
    return result_class(node.op, [entry[(id(c), i)] for c, i in node.inputs],
                        node.full_params())


def result_class(op, inputs, params):
    """The class of ``op``'s results on ``inputs`` (None: no sparse input, the usual
    rule)."""
    stype = result_stype(op, inputs, params)
    return None if stype is None else class_of(stype)


def bind_stypes(order, stype_dict=None):
    """MXNet's storage types of a graph's variables at bind, the non-default ones:
    ``(name -> the argument's, name -> its gradient's)``. An argument's is its Variable's
    ``stype`` (or ``stype_dict``'s); a gradient is row_sparse where MXNet's backward
    storage inference makes it so: the weight of an ``Embedding`` with ``sparse_grad``
    (and of contrib's ``SparseEmbedding``)."""
    args, grads = {}, {}
    for n in order:
        if n.op is None:
            st = (stype_dict or {}).get(n.name) or n.attr.get("__storage_type__")
            st = _STORAGE_TYPE_ID_TO_STR.get(int(st), st) if str(st).lstrip("-").isdigit() \
                else st
            if st and st != "default":
                class_of(st)
                args[n.name] = st
        elif n.op.name in ("Embedding", "_contrib_SparseEmbedding") and len(n.inputs) > 1:
            sparse = n.op.name != "Embedding" or \
                str(n.full_params().get("sparse_grad", False)).lower() in ("true", "1")
            weight = n.inputs[1][0]
            if sparse and weight.op is None:
                grads[weight.name] = "row_sparse"
    if args or grads:
        activate()
    return args, grads
