"""Randomised operation graphs on NDArrays, checked against numpy (hypothesis).

Each example builds a pool of (NDArray, numpy reference) pairs and applies a random
sequence of operations to random members: unary math, array-array (same shape and
broadcasting), array-scalar and reflected scalar ops, in-place ops, reductions with
axis/keepdims, reshape, transpose, broadcast_to, basic slicing, slice assignment, dot,
copies. Some results are checked at once, everything at the end, so that under the
threaded engine long chains of pending ops are built and read back.

Values are kept well-conditioned: log/sqrt only see positive inputs, divisors are away
from zero, and results too large (> LIMIT) do not feed later ops.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import xprof.runtime as mx
import xprof.runtime.engine as engine_mod

LIMIT = 1e3
F32 = np.float32

# XPROF_TEST_EXAMPLES raises the example count for a longer bug hunt.
EXAMPLES = int(os.environ.get("XPROF_TEST_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@pytest.fixture(params=["NaiveEngine", "ThreadedEngine", "ThreadedEngine-no-inline"])
def graph_engine(request, monkeypatch, hang_guard):
    """Both engines, plus the threaded engine with inlining off (every op, however
    cheap, goes through the workers' queue: the most asynchronous schedule)."""
    kind = request.param
    if kind.endswith("no-inline"):
        monkeypatch.setenv("XPROF_ENGINE_INLINE_THRESHOLD", "0")
        kind = "ThreadedEngine"
    eng = engine_mod.set_engine_type(kind)
    monkeypatch.delenv("XPROF_ENGINE_INLINE_THRESHOLD", raising=False)
    yield eng
    engine_mod.set_engine_type("ThreadedEngine")


# -- strategies ------------------------------------------------------------------------
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
values = st.floats(-2, 2, width=32, allow_nan=False, allow_infinity=False)
# Python floats and ints (the scalar fast path) and numpy scalars (the general path).
scalars = st.sampled_from([-2.5, -1.0, -0.5, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, -2, 0, 1, 3,
                           np.float32(0.75), np.float64(-1.25), np.int64(2)])
nonzero_scalars = st.sampled_from([-2.5, -1.0, -0.5, 0.5, 1.5, 2.0, 4.0, -3, 2,
                                   np.float32(-0.5), np.float64(1.5), np.int32(4)])


def arrays(shape):
    return hnp.arrays(F32, shape, elements=values)


class Graph:
    """The pool of live (NDArray, reference) pairs, and the checks."""

    def __init__(self, data):
        self.data = data
        self.pool = []
        self.checked = 0

    def draw(self, strategy, label=None):
        return self.data.draw(strategy, label=label)

    def add(self, nd_arr, ref, check_now=None):
        ref = np.asarray(ref)
        assert nd_arr.shape == ref.shape, (nd_arr.shape, ref.shape)
        assert nd_arr.dtype == ref.dtype, (nd_arr.dtype, ref.dtype)
        if check_now is None:
            check_now = self.draw(st.booleans(), "check now")
        if check_now:
            self.check(nd_arr, ref)
        usable = (ref.ndim >= 1 and ref.size > 0 and np.all(np.isfinite(ref))
                  and np.abs(ref).max() <= LIMIT)
        if usable:
            self.pool.append([nd_arr, ref])
        return usable

    def check(self, nd_arr, ref, rtol=2e-5):
        got = nd_arr.asnumpy()
        assert got.shape == ref.shape
        assert got.dtype == ref.dtype
        scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=1e-5 * scale)
        self.checked += 1

    def discard(self, entry):
        # called before ``entry``'s array is changed in place: every alias of that array
        # (``x[:]`` is ``x`` itself, as in MXNet) goes too, its reference is stale
        self.pool = [e for e in self.pool if e is not entry and e[0] is not entry[0]]

    def pick(self, pred=lambda nd, ref: True, label="operand"):
        choices = [i for i, (a, r) in enumerate(self.pool) if pred(a, r)]
        if not choices:
            return None
        i = self.draw(st.sampled_from(choices), label)
        return self.pool[i]

    def fresh(self, shape):
        ref = self.draw(arrays(tuple(shape)), "fresh values")
        return mx.nd.array(ref), ref


# -- operations: each takes the graph and adds results to it ----------------------------
def positive(g, entry):
    """(nd, ref) with every value >= 0.5: abs(x) + 0.5 when needed."""
    a, r = entry
    if r.min() >= 0.5:
        return a, r
    return a.abs() + 0.5, np.abs(r) + F32(0.5)


UNARY = {
    "negative": (lambda a: -a, np.negative, None),
    "abs": (lambda a: a.abs(), np.abs, None),
    "abs_fn": (lambda a: mx.nd.abs(a), np.abs, None),
    "square": (lambda a: a.square(), np.square, None),
    "relu": (lambda a: mx.nd.relu(a), lambda r: np.maximum(r, 0), None),
    "sigmoid": (lambda a: a.sigmoid(), lambda r: 1 / (1 + np.exp(-r)), None),
    "tanh": (lambda a: mx.nd.tanh(a), np.tanh, None),
    "sin": (lambda a: mx.nd.sin(a), np.sin, None),
    "cos": (lambda a: mx.nd.cos(a), np.cos, None),
    "exp": (lambda a: a.exp(), np.exp, "small"),
    "sqrt": (lambda a: a.sqrt(), np.sqrt, "positive"),
    "log": (lambda a: mx.nd.log(a), np.log, "positive"),
    "rsqrt": (lambda a: mx.nd.rsqrt(a), lambda r: 1 / np.sqrt(r), "positive"),
    "reciprocal": (lambda a: mx.nd.reciprocal(a), np.reciprocal, "positive"),
}


def op_unary(g):
    name = g.draw(st.sampled_from(sorted(UNARY)), "unary")
    fn, ref_fn, cond = UNARY[name]
    entry = g.pick()
    if cond == "positive":
        entry = positive(g, entry)
    elif cond == "small":
        entry = g.pick(lambda a, r: np.abs(r).max() <= 5) or positive(g, [mx.nd.zeros((2,)),
                                                                          np.zeros(2, F32)])
    a, r = entry
    g.add(fn(a), ref_fn(r).astype(F32))


def _broadcast_partner(g, a, r):
    """A pool member (or a new reduction of ``a``) whose shape broadcasts with a's."""
    def compatible(b, rb):
        try:
            return np.broadcast_shapes(r.shape, rb.shape) is not None
        except ValueError:
            return False

    entry = g.pick(compatible, "rhs")
    if entry is None or g.draw(st.booleans(), "reduce for rhs"):
        axis = g.draw(st.integers(0, r.ndim - 1), "rhs axis")
        b = a.sum(axis=axis, keepdims=True)
        rb = r.sum(axis=axis, keepdims=True)
        if rb.ndim > 1 and rb.shape[0] == 1 and g.draw(st.booleans(), "drop leading 1"):
            b, rb = b.reshape(rb.shape[1:]), rb.reshape(rb.shape[1:])
        return b, rb
    return entry


BINARY = ["+", "-", "*", "/", "**"]


def op_binary(g):
    a, r = g.pick()
    b, rb = _broadcast_partner(g, a, r)
    op = g.draw(st.sampled_from(BINARY), "binary")
    if op == "/":
        b, rb = positive(g, (b, rb))
    if op == "**":
        a, r = positive(g, (a, r))
        b, rb = mx.nd.clip(b, -2, 2), np.clip(rb, -2, 2)
    swap = g.draw(st.booleans(), "swap")
    if swap and op in "+*":
        out = {"+": lambda: b + a, "*": lambda: b * a}[op]()
        ref = {"+": lambda: rb + r, "*": lambda: rb * r}[op]()
    else:
        out = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
               "/": lambda: a / b, "**": lambda: a ** b}[op]()
        ref = {"+": lambda: r + rb, "-": lambda: r - rb, "*": lambda: r * rb,
               "/": lambda: r / rb, "**": lambda: r ** rb}[op]()
    g.add(out, ref)


def op_binary_fn(g):
    """mx.nd.broadcast_* / elemwise_* / maximum-style functions by name."""
    a, r = g.pick()
    b, rb = _broadcast_partner(g, a, r)
    name = g.draw(st.sampled_from(["broadcast_add", "broadcast_sub", "broadcast_mul",
                                   "broadcast_maximum", "broadcast_minimum"]), "fn")
    ref = {"broadcast_add": np.add, "broadcast_sub": np.subtract,
           "broadcast_mul": np.multiply, "broadcast_maximum": np.maximum,
           "broadcast_minimum": np.minimum}[name](r, rb)
    g.add(getattr(mx.nd, name)(a, b), ref)
    if a.shape == b.shape:
        same = {"broadcast_add": "elemwise_add", "broadcast_sub": "elemwise_sub",
                "broadcast_mul": "elemwise_mul"}.get(name)
        if same:
            g.add(getattr(mx.nd, same)(a, b), ref)


def op_scalar(g):
    a, r = g.pick()
    op = g.draw(st.sampled_from(["+", "-", "*", "/", "**2", "**3", "**0.5"]), "scalar op")
    s = g.draw(nonzero_scalars if op == "/" else scalars, "scalar")
    if op == "**0.5":
        a, r = positive(g, (a, r))
    out = {"+": lambda: a + s, "-": lambda: a - s, "*": lambda: a * s, "/": lambda: a / s,
           "**2": lambda: a ** 2, "**3": lambda: a ** 3, "**0.5": lambda: a ** 0.5}[op]()
    ref = {"+": lambda: r + s, "-": lambda: r - s, "*": lambda: r * s, "/": lambda: r / s,
           "**2": lambda: r ** 2, "**3": lambda: r ** 3, "**0.5": lambda: r ** 0.5}[op]()
    g.add(out, ref.astype(F32))


def op_reflected(g):
    a, r = g.pick()
    op = g.draw(st.sampled_from(["+", "-", "*", "/", "**"]), "reflected op")
    s = g.draw(scalars, "scalar")
    if op == "/":
        a, r = positive(g, (a, r))
    if op == "**":
        s = abs(s) if s != 0 else 1.5
        a, r = mx.nd.clip(a, -3, 3), np.clip(r, -3, 3)
    out = {"+": lambda: s + a, "-": lambda: s - a, "*": lambda: s * a, "/": lambda: s / a,
           "**": lambda: s ** a}[op]()
    ref = {"+": lambda: s + r, "-": lambda: s - r, "*": lambda: s * r, "/": lambda: s / r,
           "**": lambda: F32(s) ** r}[op]()
    g.add(out, ref.astype(F32))


def op_inplace(g):
    entry = g.pick(label="in-place target")
    a, r = entry
    kind = g.draw(st.sampled_from(["+=arr", "-=arr", "*=arr", "+=s", "-=s", "*=s", "/=s"]),
                  "in-place op")
    if kind.endswith("arr"):
        b, rb = _broadcast_partner(g, a, r)
        if np.broadcast_shapes(r.shape, rb.shape) != r.shape:
            return
        if kind == "+=arr":
            a += b
            ref = r + rb
        elif kind == "-=arr":
            a -= b
            ref = r - rb
        else:
            a *= b
            ref = r * rb
    else:
        s = g.draw(nonzero_scalars, "scalar")
        if kind == "+=s":
            a += s
            ref = r + s
        elif kind == "-=s":
            a -= s
            ref = r - s
        elif kind == "*=s":
            a *= s
            ref = r * s
        else:
            a /= s
            ref = r / s
    g.discard(entry)
    g.add(a, ref.astype(F32))


def _axis_arg(g, ndim):
    kind = g.draw(st.sampled_from(["none", "int", "neg", "tuple"]), "axis kind")
    if kind == "none":
        return None
    if kind == "int":
        return g.draw(st.integers(0, ndim - 1), "axis")
    if kind == "neg":
        return g.draw(st.integers(-ndim, -1), "axis")
    axes = g.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                           unique=True), "axes")
    return tuple(axes)


def op_reduce(g):
    a, r = g.pick()
    name = g.draw(st.sampled_from(["sum", "mean", "max", "min"]), "reduction")
    axis = _axis_arg(g, r.ndim)
    keepdims = g.draw(st.booleans(), "keepdims")
    if g.draw(st.booleans(), "as method"):
        out = getattr(a, name)(axis=axis, keepdims=keepdims)
    else:
        out = getattr(mx.nd, name)(a, axis=axis, keepdims=keepdims)
    ref = np.asarray(getattr(np, name)(r, axis=axis, keepdims=keepdims), dtype=F32)
    if ref.ndim == 0:
        ref = ref.reshape(1)   # MXNet 1.x: a full reduction has shape (1,), never ()
    g.add(out, ref)


def op_reshape(g):
    a, r = g.pick()
    shape = r.shape
    options = [(r.size,), (-1,), tuple(reversed(shape)), (1,) + shape, shape + (1,)]
    if r.ndim >= 2:
        options.append((shape[0], -1))
        options.append((-1, shape[-1]))
    target = g.draw(st.sampled_from(options), "new shape")
    style = g.draw(st.sampled_from(["tuple", "args", "kw", "fn"]), "reshape style")
    if style == "tuple":
        out = a.reshape(target)
    elif style == "args":
        out = a.reshape(*target)
    elif style == "kw":
        out = a.reshape(shape=target)
    else:
        out = mx.nd.reshape(a, shape=target)
    g.add(out, r.reshape(target))


def op_transpose(g):
    a, r = g.pick()
    if g.draw(st.booleans(), "default axes"):
        out = a.T if g.draw(st.booleans(), "use .T") else a.transpose()
        g.add(out, r.T)
        return
    perm = tuple(g.draw(st.permutations(range(r.ndim)), "perm"))
    out = a.transpose(perm) if g.draw(st.booleans(), "method") else \
        mx.nd.transpose(a, axes=perm)
    g.add(out, r.transpose(perm))


def op_broadcast_to(g):
    a, r = g.pick()
    target = [g.draw(st.integers(1, 3), "size") if n == 1 else n for n in r.shape]
    if g.draw(st.booleans(), "lead dim") or target == list(r.shape):
        target = [g.draw(st.integers(2, 3), "lead")] + target
    target = tuple(target)
    g.add(a.broadcast_to(target), np.broadcast_to(r, target).copy())


def _index_key(g, shape):
    key = []
    for n in shape[:g.draw(st.integers(1, len(shape)), "key length")]:
        kind = g.draw(st.sampled_from(["int", "negint", "slice", "full"]), "key kind")
        if kind == "int":
            key.append(g.draw(st.integers(0, n - 1), "index"))
        elif kind == "negint":
            key.append(g.draw(st.integers(-n, -1), "index"))
        elif kind == "full":
            key.append(slice(None))
        else:
            start = g.draw(st.one_of(st.none(), st.integers(-n, n)), "start")
            stop = g.draw(st.one_of(st.none(), st.integers(-n, n)), "stop")
            step = g.draw(st.sampled_from([None, 1, 2, -1]), "step")
            key.append(slice(start, stop, step))
    return key[0] if len(key) == 1 and g.draw(st.booleans(), "bare key") else tuple(key)


def op_slice(g):
    a, r = g.pick()
    key = _index_key(g, r.shape)
    ref = np.asarray(r[key])
    # MXNet 1.x has no 0-d arrays: an all-integer key gives shape (1,)
    g.add(a[key], ref.reshape((1,)) if ref.ndim == 0 else ref)


def op_slice_assign(g):
    entry = g.pick(label="assign target")
    a, r = entry
    key = _index_key(g, r.shape)
    region = r[key].shape
    ref = r.copy()
    if g.draw(st.booleans(), "scalar value"):
        s = g.draw(scalars, "value")
        a[key] = s
        ref[key] = F32(s)
    else:
        value_shape = region
        if region and g.draw(st.booleans(), "broadcast value"):
            value_shape = (1,) * len(region[:-1]) + region[-1:]
        src = g.pick(lambda b, rb: rb.shape == value_shape, "value")
        b, rb = src if src is not None else g.fresh(value_shape)
        if g.draw(st.booleans(), "numpy value"):
            a[key] = rb
        else:
            a[key] = b
        ref[key] = rb
    g.discard(entry)
    g.add(a, ref)


def op_dot(g):
    a, r = g.pick()
    kind = g.draw(st.sampled_from(["self_t", "fresh", "transpose_b"]), "dot kind")
    if kind == "transpose_b" and r.ndim == 2:
        g.add(mx.nd.dot(a, a, transpose_b=True), r @ r.T)
        return
    if kind == "self_t" and r.ndim == 2:
        g.add(mx.nd.dot(a, a.T), r @ r.T)
        return
    n = g.draw(st.integers(1, 3), "n")
    b, rb = g.fresh((r.shape[-1], n))
    ref = np.tensordot(r, rb, axes=1).astype(F32)
    g.add(mx.nd.dot(a, b), ref)


def op_copy(g):
    a, r = g.pick()
    kind = g.draw(st.sampled_from(["copy", "copyto_array", "copyto_ctx", "as_in_context",
                                   "array", "zeros_like", "ones_like", "full"]), "copy")
    if kind == "copy":
        out, ref = a.copy(), r.copy()
    elif kind == "copyto_array":
        out = mx.nd.zeros(r.shape)
        a.copyto(out)
        ref = r.copy()
    elif kind == "copyto_ctx":
        out, ref = a.copyto(mx.cpu(1)), r.copy()
        assert out.context == mx.cpu(1)
    elif kind == "as_in_context":
        ctx = mx.cpu(2) if a.context != mx.cpu(2) else mx.cpu(0)
        out, ref = a.as_in_context(ctx), r.copy()
        assert out.context == ctx and out is not a
        assert a.as_in_context(a.context) is a
    elif kind == "array":
        out, ref = mx.nd.array(a), r.copy()
    elif kind == "zeros_like":
        out, ref = mx.nd.zeros_like(a), np.zeros_like(r)
    elif kind == "ones_like":
        out, ref = a.ones_like(), np.ones_like(r)
    else:
        s = g.draw(scalars, "fill")
        out, ref = mx.nd.full(r.shape, s), np.full(r.shape, s, F32)
    g.add(out, ref)


def op_compare(g):
    """Comparisons give 0/1 in the input's dtype, as in MXNet."""
    a, r = g.pick()
    op = g.draw(st.sampled_from(["==", "!=", ">", ">=", "<", "<="]), "comparison")
    fns = {"==": np.equal, "!=": np.not_equal, ">": np.greater, ">=": np.greater_equal,
           "<": np.less, "<=": np.less_equal}
    if g.draw(st.booleans(), "with scalar"):
        other, ref_other = (g.draw(scalars, "scalar"),) * 2
    else:
        other, ref_other = _broadcast_partner(g, a, r)
    out = {"==": lambda: a == other, "!=": lambda: a != other, ">": lambda: a > other,
           ">=": lambda: a >= other, "<": lambda: a < other, "<=": lambda: a <= other}[op]()
    g.add(out, fns[op](r, ref_other).astype(F32))


OPS = [op_compare, op_unary, op_binary, op_binary_fn, op_scalar, op_reflected, op_inplace, op_reduce,
       op_reshape, op_transpose, op_broadcast_to, op_slice, op_slice_assign, op_dot,
       op_copy]


@SETTINGS
@given(data=st.data())
def test_random_operation_graph(graph_engine, data):
    g = Graph(data)
    shape = data.draw(shapes, "base shape")
    for _ in range(2):
        ref = data.draw(arrays(shape), "base values")
        g.add(mx.nd.array(ref), ref, check_now=False)
    steps = data.draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=12), "ops")
    for op in steps:
        op(g)
    # read everything back, newest first (the longest pending chains)
    for nd_arr, ref in reversed(g.pool):
        g.check(nd_arr, ref)
    mx.nd.waitall()


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(a=hnp.arrays(F32, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1,
                                          max_side=16), elements=values),
       n=st.integers(1, 16), seed=st.integers(0, 2 ** 32 - 1))
def test_dot_matches_numpy(graph_engine, a, n, seed):
    b = np.random.default_rng(seed).uniform(-2, 2, (a.shape[1], n)).astype(F32)
    out = mx.nd.dot(mx.nd.array(a), mx.nd.array(b))
    np.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-4, atol=1e-4)
    out_t = mx.nd.dot(mx.nd.array(b), mx.nd.array(a), transpose_a=True, transpose_b=True)
    np.testing.assert_allclose(out_t.asnumpy(), (a @ b).T, rtol=1e-4, atol=1e-4)
