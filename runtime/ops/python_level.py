"""The operator functions MXNet writes in Python, and the fluent methods: once for both
``mx.nd`` and ``mx.sym``.

MXNet 1.x has a few functions that are not registered operators but Python code choosing
one: ``maximum(a, b)`` is ``_maximum`` for two arrays, ``_maximum_scalar`` for an array
and a number (``power``, ``hypot``, ``modulo``, the comparisons and logical operators
alike), and ``split_v2``/``histogram``/``eye``/``linspace`` turn Python arguments into an
operator's parameters. Each is written here once, against a :class:`Frontend` (what the
calling namespace applies operators with), and :func:`install` puts it into a namespace:
``mx.nd`` installs them over NDArrays, ``mx.sym`` over Symbols. The operators they call
are ordinary registered ones, so the NDArray call, the symbolic node, autograd and the
executor all run the same :class:`~.registry.OpDef`.

:data:`FLUENT` lists the operators that are also methods of both NDArray and Symbol
(``x.slice_axis(...)`` is ``mx.nd.slice_axis(x, ...)``, ``s.flatten()`` is
``mx.sym.flatten(s)``), as in MXNet 1.x.
"""
import math
import numbers
import operator

__all__ = ["Frontend", "install", "populate_prefixed", "FLUENT", "HELPERS",
           "CONTRIB_HELPERS"]

# Operators that are methods of NDArray and of Symbol (MXNet 1.x's fluent list).
FLUENT = (
    "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes",
    "split", "split_v2", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort",
    "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
    "flatten", "shape_array", "size_array", "expand_dims", "broadcast_to", "broadcast_like",
    "tile", "transpose", "flip", "depth_to_space", "space_to_depth", "diag", "sum",
    "nansum", "prod", "nanprod", "mean", "max", "min", "norm", "round", "rint", "fix",
    "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees",
    "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1",
    "log", "log10", "log2", "log1p", "log_sigmoid", "sqrt", "rsqrt", "cbrt", "rcbrt",
    "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin",
    "mish", "squeeze", "slice", "reshape")


class Frontend:
    """What a helper needs of its namespace: ``apply(opname, inputs, params)`` runs (or,
    for symbols, composes) a registered operator; ``tensor`` is the namespace's array
    type (NDArray or Symbol); ``symbolic`` says whether shapes are known yet."""

    __slots__ = ("apply", "tensor", "symbolic")

    def __init__(self, apply, tensor, symbolic):
        self.apply = apply
        self.tensor = tensor
        self.symbolic = symbolic


HELPERS = {}          # name -> helper, for mx.nd / mx.sym
CONTRIB_HELPERS = {}  # for mx.nd.contrib / mx.sym.contrib


def _helper(fn):
    HELPERS[fn.__name__] = fn
    return fn


def _contrib(fn):
    CONTRIB_HELPERS[fn.__name__] = fn
    return fn


def _binary(F, lhs, rhs, names, pyfn):
    """``same``/``bcast`` for two tensors, ``scalar``/``rscalar`` for a tensor and a
    number, the Python result for two numbers (as MXNet)."""
    same, bcast, scalar, rscalar = names
    lt, rt = isinstance(lhs, F.tensor), isinstance(rhs, F.tensor)
    if lt and rt:
        op = same if F.symbolic or lhs.shape == rhs.shape else bcast
        return F.apply(op, (lhs, rhs), {})
    if lt and isinstance(rhs, numbers.Number):
        return F.apply(scalar, (lhs,), {"scalar": rhs})
    if rt and isinstance(lhs, numbers.Number):
        if rscalar is None:     # commutative
            return F.apply(scalar, (rhs,), {"scalar": lhs})
        return F.apply(rscalar, (rhs,), {"scalar": lhs})
    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return pyfn(lhs, rhs)
    raise ValueError(f"{same.lstrip('_')}: arguments must be {F.tensor.__name__}s or "
                     f"numbers, got {type(lhs).__name__} and {type(rhs).__name__}")


def _binary_helper(name, names, pyfn):
    def fn(F, lhs, rhs):
        return _binary(F, lhs, rhs, names, pyfn)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(lhs, rhs)``: ``{names[0]}`` on two arrays (``{names[1]}`` "
                  f"when their shapes differ), ``{names[2]}`` with a number.")
    return _helper(fn)


def _bool_result(fn):
    return lambda a, b: 1.0 if fn(a, b) else 0.0


for _name, _names, _py in (
        ("add", ("elemwise_add", "broadcast_add", "_plus_scalar", None), operator.add),
        ("subtract", ("elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar"),
         operator.sub),
        ("multiply", ("elemwise_mul", "broadcast_mul", "_mul_scalar", None), operator.mul),
        ("divide", ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar"),
         operator.truediv),
        ("true_divide", ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar"),
         operator.truediv),
        ("modulo", ("_mod", "broadcast_mod", "_mod_scalar", "_rmod_scalar"), operator.mod),
        ("power", ("_power", "broadcast_power", "_power_scalar", "_rpower_scalar"),
         operator.pow),
        ("pow", ("_power", "broadcast_power", "_power_scalar", "_rpower_scalar"),
         operator.pow),
        ("maximum", ("_maximum", "broadcast_maximum", "_maximum_scalar", None), max),
        ("minimum", ("_minimum", "broadcast_minimum", "_minimum_scalar", None), min),
        ("hypot", ("_hypot", "broadcast_hypot", "_hypot_scalar", None), math.hypot),
        ("equal", ("_equal", "broadcast_equal", "_equal_scalar", None),
         _bool_result(operator.eq)),
        ("not_equal", ("_not_equal", "broadcast_not_equal", "_not_equal_scalar", None),
         _bool_result(operator.ne)),
        ("greater", ("_greater", "broadcast_greater", "_greater_scalar",
                     "_lesser_scalar"), _bool_result(operator.gt)),
        ("greater_equal", ("_greater_equal", "broadcast_greater_equal",
                           "_greater_equal_scalar", "_lesser_equal_scalar"),
         _bool_result(operator.ge)),
        ("lesser", ("_lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
         _bool_result(operator.lt)),
        ("lesser_equal", ("_lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar",
                          "_greater_equal_scalar"), _bool_result(operator.le)),
        ("logical_and", ("_logical_and", "broadcast_logical_and", "_logical_and_scalar",
                         None), _bool_result(lambda a, b: a and b)),
        ("logical_or", ("_logical_or", "broadcast_logical_or", "_logical_or_scalar", None),
         _bool_result(lambda a, b: a or b)),
        ("logical_xor", ("_logical_xor", "broadcast_logical_xor", "_logical_xor_scalar",
                         None), _bool_result(lambda a, b: bool(a) != bool(b)))):
    _binary_helper(_name, _names, _py)


@_helper
def split_v2(F, ary, indices_or_sections, axis=0, squeeze_axis=False):
    """MXNet's ``split_v2``: ``indices_or_sections`` an int (equal sections) or a tuple
    of split points, as ``numpy.split``; the ``_split_v2`` operator."""
    if isinstance(indices_or_sections, numbers.Integral):
        params = {"indices": (), "sections": int(indices_or_sections)}
    elif isinstance(indices_or_sections, (tuple, list)):
        params = {"indices": (0,) + tuple(int(i) for i in indices_or_sections),
                  "sections": 0}
    else:
        raise ValueError(f"split_v2: indices_or_sections={indices_or_sections!r} must be "
                         "an int or a tuple of ints")
    params.update(axis=axis, squeeze_axis=squeeze_axis)
    return F.apply("_split_v2", (ary,), params)


@_helper
def histogram(F, a, bins=10, range=None):
    """``(counts, bin_edges)`` as ``numpy.histogram``: ``bins`` an int (with ``range``,
    else the data's min and max) or an array of edges; the ``_histogram`` operator."""
    if isinstance(bins, F.tensor):
        return F.apply("_histogram", (a, bins), {})
    if not isinstance(bins, numbers.Integral):
        raise ValueError(f"histogram: bins={bins!r} must be an int or an array of edges")
    return F.apply("_histogram", (a,), {"bin_cnt": int(bins), "range": range})


# -- contrib --------------------------------------------------------------------------------
@_contrib
def isinf(F, data):
    """1 where ``data`` is +inf or -inf, else 0 (``abs(data) == inf``)."""
    return F.apply("_equal_scalar", (F.apply("abs", (data,), {}),), {"scalar": math.inf})


@_contrib
def isnan(F, data):
    """1 where ``data`` is NaN, else 0 (``data != data``)."""
    return F.apply("_not_equal", (data, data), {})


@_contrib
def isfinite(F, data):
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    not_inf = F.apply("_not_equal_scalar", (F.apply("abs", (data,), {}),),
                      {"scalar": math.inf})
    return F.apply("elemwise_mul", (F.apply("_equal", (data, data), {}), not_inf), {})


@_contrib
def boolean_mask(F, data, index, axis=0):
    """The slices of ``data`` along ``axis`` where ``index`` is nonzero. The output's
    size depends on the index's values: on arrays the index is read first (a sync
    point, as in MXNet); a symbol cannot infer it."""
    params = {"axis": axis}
    if not F.symbolic:
        import numpy as np
        params["num_selected"] = int(np.count_nonzero(index.asnumpy()))
    return F.apply("_contrib_boolean_mask", (data, index), params)


def install(namespace, frontend, helpers=None):
    """Put every helper (default :data:`HELPERS`), bound to ``frontend``, into
    ``namespace`` (a module's globals) where the namespace has no such name yet."""
    for name, helper in (HELPERS if helpers is None else helpers).items():
        if name in namespace:
            continue

        def bound(*args, _h=helper, **kwargs):
            return _h(frontend, *args, **kwargs)
        bound.__name__ = bound.__qualname__ = name
        bound.__doc__ = helper.__doc__
        namespace[name] = bound


def populate_prefixed(namespace, prefix, make_function):
    """MXNet's sub-namespaces (``contrib``, ``linalg``): each registered operator named
    ``<prefix><name>`` (``_linalg_gemm``) as ``namespace[<name>]``, made by
    ``make_function(op, <name>)``."""
    from . import registry
    for name, op in registry.registry.items():
        if name.startswith(prefix) and name[len(prefix):] not in namespace:
            namespace[name[len(prefix):]] = make_function(op, name[len(prefix):])


def fluent_method(functions, opname):
    """The method ``x.<opname>(...)``: ``functions[opname](x, ...)`` (the namespace's
    function, looked up at call time)."""
    def method(self, *args, **kwargs):
        return functions[opname](self, *args, **kwargs)
    method.__name__ = method.__qualname__ = opname
    method.__doc__ = f"``{opname}(self, ...)``."
    return method


def attach_fluent(cls, functions, names=FLUENT):
    """Give ``cls`` a method per name of ``names`` that ``functions`` has, keeping the
    methods ``cls`` defines itself."""
    for opname in names:
        if opname in functions and not hasattr(cls, opname):
            setattr(cls, opname, fluent_method(functions, opname))


# -- the arithmetic and comparison operators of NDArray and Symbol ---------------------------
# Python operator -> (op on two same-shape arrays, broadcasting op, op with a scalar on the
# right, op with a scalar on the left: None when Python's reflection is the comparison's).
# MXNet 1.x's names: the profile shows ``x + 1`` as ``_plus_scalar``, ``1 - x`` as
# ``_rminus_scalar``.
OPERATORS = {
    "add": ("elemwise_add", "broadcast_add", "_plus_scalar", "_plus_scalar"),
    "sub": ("elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "mul": ("elemwise_mul", "broadcast_mul", "_mul_scalar", "_mul_scalar"),
    "truediv": ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "pow": ("_power", "broadcast_power", "_power_scalar", "_rpower_scalar"),
    "mod": ("_mod", "broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    "eq": ("_equal", "broadcast_equal", "_equal_scalar", None),
    "ne": ("_not_equal", "broadcast_not_equal", "_not_equal_scalar", None),
    "gt": ("_greater", "broadcast_greater", "_greater_scalar", None),
    "ge": ("_greater_equal", "broadcast_greater_equal", "_greater_equal_scalar", None),
    "lt": ("_lesser", "broadcast_lesser", "_lesser_scalar", None),
    "le": ("_lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar", None),
}
# ops whose reflected form with an array on the left is the plain op with sides swapped
# (``array - x`` for a numpy ``array``): same-shape, broadcasting and scalar forms
SWAPPED = {names[3]: names[:3] for names in OPERATORS.values() if names[3] is not None}


def attach_operators(cls, binary, reflected, inplace=False, fast=None):
    """Give ``cls`` the Python operators of :data:`OPERATORS`. ``binary(self, other,
    names, out=None)`` applies a row with ``self`` on the left, ``reflected(self, other,
    names)`` with ``other`` on the left; ``inplace`` adds ``x += y`` forms (``out=self``).
    ``fast``: ``(types, fn, scalar op names)``: for those ops, an ``other`` whose type is
    one of ``types`` goes straight to ``fn(scalar op, self, other)`` (the NDArray's
    ``x + 1``, the hottest path, one call fewer)."""
    for op, names in OPERATORS.items():
        setattr(cls, f"__{op}__", _left(binary, names, fast))
        if names[3] is not None:
            setattr(cls, f"__r{op}__", _right(reflected, names))
            if inplace:
                setattr(cls, f"__i{op}__", _inplace(binary, names))
    cls.__div__, cls.__rdiv__ = cls.__truediv__, cls.__rtruediv__   # MXNet's Python 2 names
    if inplace:
        cls.__idiv__ = cls.__itruediv__


def _left(binary, names, fast):
    if fast is not None and names[2] in fast[2]:
        def method(self, other, types=fast[0], fn=fast[1], scalar=names[2]):
            if type(other) in types:
                return fn(scalar, self, other)
            return binary(self, other, names)
    else:
        def method(self, other):
            return binary(self, other, names)
    return method


def _right(reflected, names):
    def method(self, other):
        return reflected(self, other, names)
    return method


def _inplace(binary, names):
    def method(self, other):
        return binary(self, other, names, out=self)
    return method
