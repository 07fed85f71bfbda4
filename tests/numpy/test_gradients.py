"""The gradient walk: every public function of ``mx.np``, ``mx.np.linalg``,
``mx.np.random`` and ``mx.npx`` is either checked against central differences here
(:data:`CASES`) or listed as not differentiable, with the reason (:data:`NOT_DIFFERENTIABLE`;
the functions official NumPy computes, ``_np_fallback_*``, have no gradient, as in
MXNet). A new function in none of them fails :func:`test_every_function_is_classified`;
a table-made ufunc listed as not differentiable while its operator has a gradient fails
:func:`test_no_differentiable_ufunc_is_skipped`.
"""
import types

import numpy as onp
import pytest

from tests.gradcheck import numeric_grad
from xprof.runtime import autograd, np, npx
from xprof.runtime.numpy import _ufuncs
from xprof.runtime.ops import registry

NAMESPACES = {"np": np, "np.linalg": np.linalg, "np.random": np.random, "npx": npx,
              "npx.random": npx.random}


def u(shape=(2, 3), lo=-1.0, hi=1.0):
    return (shape, lo, hi)


POS = u((2, 3), 0.5, 2.0)


def _seeded(draw):
    def fn(*params):
        np.random.seed(7)
        return draw(*params, dtype="float64")
    fn.__name__ = draw.__name__
    return fn

UNIT = u((2, 3), -0.8, 0.8)
SQ = u((3, 3), -1.0, 1.0)
IDX = onp.array([1, 0, 1])

# name -> (function of the input arrays, input specs (shape, low, high))
CASES = {
    **{f"np.{n}": (getattr(np, n), [u()]) for n in (
        "abs", "absolute", "fabs", "negative", "positive", "square", "sin", "cos", "tan",
        "tanh", "sinh", "cosh", "arctan", "arcsinh", "atan", "asinh", "exp", "expm1",
        "cbrt", "degrees", "rad2deg", "radians", "deg2rad", "copy", "ravel")},
    **{f"np.{n}": (getattr(np, n), [POS]) for n in (
        "sqrt", "log", "log2", "log10", "log1p", "reciprocal")},
    **{f"np.{n}": (getattr(np, n), [UNIT]) for n in (
        "arcsin", "arccos", "arctanh", "asin", "acos", "atanh")},
    "np.arccosh": (np.arccosh, [u((2, 3), 1.5, 3.0)]),
    "np.acosh": (np.acosh, [u((2, 3), 1.5, 3.0)]),
    **{f"np.{n}": (getattr(np, n), [u(), u((3,))]) for n in (
        "add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin", "logaddexp",
        "copysign")},
    **{f"np.{n}": (getattr(np, n), [u(), u((3,), 0.5, 2.0)]) for n in (
        "divide", "true_divide", "hypot", "arctan2", "atan2")},
    "np.power": (np.power, [POS, u((3,), -1, 1)]),
    "np.pow": (np.pow, [POS, u((3,), -1, 1)]),
    "np.mod": (np.mod, [u((2, 3), 2.1, 2.9), u((3,), 0.6, 0.9)]),
    "np.remainder": (np.remainder, [u((2, 3), 2.1, 2.9), u((3,), 0.6, 0.9)]),
    "np.fmod": (np.fmod, [u((2, 3), 2.1, 2.9), u((3,), 0.6, 0.9)]),
    "np.ldexp": (np.ldexp, [u(), u((3,), -1, 1)]),
    **{f"np.{n}": (getattr(np, n), [u()]) for n in (
        "sum", "mean", "max", "min", "amax", "amin", "std", "var", "cumsum", "transpose",
        "permute_dims", "squeeze", "atleast_1d", "atleast_2d", "atleast_3d", "flip",
        "fliplr", "flipud", "sort", "tril", "triu", "trace", "diagonal", "diag",
        "average")},
    "np.prod": (np.prod, [POS]),
    "np.dot": (np.dot, [u((2, 3)), u((3, 2))]),
    "np.matmul": (np.matmul, [u((2, 2, 3)), u((3, 2))]),
    "np.tensordot": (lambda a, b: np.tensordot(a, b, ((1,), (0,))), [u((2, 3)), u((3, 2))]),
    "np.inner": (np.inner, [u((2, 3)), u((2, 3))]),
    "np.outer": (np.outer, [u((3,)), u((2,))]),
    "np.vdot": (np.vdot, [u((2, 3)), u((2, 3))]),
    "np.reshape": (lambda a: np.reshape(a, (3, 2)), [u()]),
    "np.swapaxes": (lambda a: np.swapaxes(a, 0, 1), [u()]),
    "np.moveaxis": (lambda a: np.moveaxis(a, 0, -1), [u((2, 3, 2))]),
    "np.expand_dims": (lambda a: np.expand_dims(a, 1), [u()]),
    "np.broadcast_to": (lambda a: np.broadcast_to(a, (2, 2, 3)), [u()]),
    "np.broadcast_arrays": (lambda a, b: np.broadcast_arrays(a, b)[1], [u(), u((3,))]),
    "np.concatenate": (lambda a, b: np.concatenate([a, b], axis=1), [u(), u((2, 2))]),
    "np.concat": (lambda a, b: np.concat([a, b]), [u(), u((1, 3))]),
    "np.append": (lambda a, b: np.append(a, b, axis=0), [u(), u((1, 3))]),
    "np.stack": (lambda a, b: np.stack([a, b], axis=1), [u(), u()]),
    "np.vstack": (lambda a, b: np.vstack([a, b]), [u(), u((3,))]),
    "np.row_stack": (lambda a, b: np.row_stack([a, b]), [u(), u((3,))]),
    "np.hstack": (lambda a, b: np.hstack([a, b]), [u(), u((2, 1))]),
    "np.dstack": (lambda a, b: np.dstack([a, b]), [u(), u()]),
    "np.column_stack": (lambda a, b: np.column_stack([a, b]), [u(), u((2,))]),
    "np.split": (lambda a: np.split(a, 3, axis=1)[1], [u()]),
    "np.array_split": (lambda a: np.array_split(a, 2, axis=1)[0], [u()]),
    "np.hsplit": (lambda a: np.hsplit(a, 3)[2], [u()]),
    "np.vsplit": (lambda a: np.vsplit(a, 2)[1], [u()]),
    "np.dsplit": (lambda a: np.dsplit(a, 2)[0], [u((2, 3, 2))]),
    "np.tile": (lambda a: np.tile(a, (2, 1)), [u()]),
    "np.repeat": (lambda a: np.repeat(a, 2, axis=0), [u()]),
    "np.roll": (lambda a: np.roll(a, 1, axis=1), [u()]),
    "np.rot90": (np.rot90, [u()]),
    "np.clip": (lambda a: np.clip(a, -0.5, 0.5), [u((2, 3), -1, 1)]),
    "np.where": (lambda a, b: np.where(a > 0, a, b), [u(), u((3,))]),
    "np.take": (lambda a: np.take(a, IDX, axis=1), [u()]),
    "np.linalg.norm": (np.linalg.norm, [u()]),
    "np.linalg.det": (np.linalg.det, [u((3, 3), -1, 1)]),
    "np.linalg.inv": (lambda a: np.linalg.inv(a + 3 * np.eye(3, dtype="float64")), [SQ]),
    "np.linalg.slogdet": (lambda a: np.linalg.slogdet(a + 3 * np.eye(3, dtype="float64"))[1],
                          [SQ]),
    "npx.relu": (npx.relu, [u()]),
    "npx.sigmoid": (npx.sigmoid, [u()]),
    "npx.softmax": (npx.softmax, [u()]),
    "npx.log_softmax": (npx.log_softmax, [u()]),
    "npx.masked_softmax": (lambda a: npx.masked_softmax(a, np.array([[1, 0, 1], [1, 1, 0]],
                                                                    dtype=bool)), [u()]),
    "npx.masked_log_softmax": (lambda a: npx.masked_log_softmax(
        a, np.array([[1, 1, 1], [1, 1, 1]], dtype=bool)), [u()]),
    "npx.activation": (lambda a: npx.activation(a, act_type="tanh"), [u()]),
    "npx.leaky_relu": (lambda a: npx.leaky_relu(a, slope=0.1), [u()]),
    "npx.softsign": (npx.softsign, [u()]),
    "npx.smooth_l1": (npx.smooth_l1, [u()]),
    "npx.erf": (npx.erf, [u()]),
    "npx.erfinv": (npx.erfinv, [UNIT]),
    "npx.gamma": (npx.gamma, [POS]),
    "npx.gammaln": (npx.gammaln, [POS]),
    "npx.reshape": (lambda a: npx.reshape(a, (-1,)), [u()]),
    "npx.batch_flatten": (npx.batch_flatten, [u((2, 3, 2))]),
    "npx.reshape_like": (lambda a, b: npx.reshape_like(a, b), [u(), u((3, 2))]),
    "npx.broadcast_like": (lambda a, b: npx.broadcast_like(a, b), [u((1, 3)), u()]),
    "npx.slice_like": (lambda a, b: npx.slice_like(a, b), [u((3, 4)), u()]),
    "npx.pick": (lambda a: npx.pick(a, np.array([0, 2])), [u()]),
    "npx.batch_dot": (npx.batch_dot, [u((2, 2, 3)), u((2, 3, 2))]),
    "npx.add_n": (lambda a, b: npx.add_n(a, b), [u(), u()]),
    "npx.cast": (lambda a: npx.cast(a, dtype="float64"), [u()]),
    "npx.norm": (npx.norm, [u()]),
    "npx.l2_normalization": (npx.l2_normalization, [u()]),
    "npx.layer_norm": (lambda a, g, b: npx.layer_norm(a, g, b), [u(), u((3,)), u((3,))]),
    "npx.group_norm": (lambda a, g, b: npx.group_norm(a, g, b, num_groups=1),
                       [u((2, 2, 3)), u((1,)), u((1,))]),
    "npx.instance_norm": (lambda a, g, b: npx.instance_norm(a, g, b),
                          [u((2, 2, 3)), u((2,)), u((2,))]),
    "npx.batch_norm": (lambda a, g, b: npx.batch_norm(
        a, g, b, np.zeros(2, dtype="float64"), np.ones(2, dtype="float64"), fix_gamma=False,
        use_global_stats=True), [u((2, 2, 3)), u((2,)), u((2,))]),
    "npx.fully_connected": (lambda x, w, b: npx.fully_connected(x, w, b, num_hidden=2),
                            [u(), u((2, 3)), u((2,))]),
    "npx.convolution": (lambda x, w: npx.convolution(x, w, kernel=(2,), num_filter=2),
                        [u((1, 2, 4)), u((2, 2, 2))]),
    "npx.deconvolution": (lambda x, w: npx.deconvolution(x, w, kernel=(2,), num_filter=2),
                          [u((1, 2, 3)), u((2, 2, 2))]),
    "npx.pooling": (lambda x: npx.pooling(x, kernel=(2,), pool_type="avg"), [u((1, 2, 4))]),
    "npx.embedding": (lambda w: npx.embedding(np.array([0, 2]), w, input_dim=3,
                                              output_dim=2), [u((3, 2))]),
    "npx.sequence_mask": (lambda a: npx.sequence_mask(
        a, np.array([1, 2], dtype="float64"), use_sequence_length=True), [u((2, 2, 3))]),
    "npx.sequence_last": (lambda a: npx.sequence_last(a), [u((2, 2, 3))]),
    "npx.sequence_reverse": (lambda a: npx.sequence_reverse(a), [u((2, 2, 3))]),
    "npx.slice_channel": (lambda a: npx.slice_channel(a, num_outputs=3)[1], [u()]),
    "npx.upsampling": (lambda a: npx.upsampling(a, scale=2, sample_type="nearest"),
                       [u((1, 1, 2, 2))]),
    "npx.gather_nd": (lambda a: npx.gather_nd(a, np.array([[1, 0], [2, 1]])), [u()]),
    "npx.scatter_nd": (lambda a: npx.scatter_nd(a, np.array([[1, 0]]), shape=(3,)),
                       [u((2,))]),
    "npx.index_copy": (lambda a, b: npx.index_copy(a, np.array([1]), b), [u(), u((1, 3))]),
    "npx.roi_pooling": (lambda a: npx.roi_pooling(a, np.array([[0, 0, 0, 2, 2]],
                                                              dtype="float64"),
                                                  pooled_size=(1, 1), spatial_scale=1.0),
                        [u((1, 1, 3, 3))]),
    "npx.rnn": (lambda x, p, s: npx.rnn(x, p, s, mode="rnn_tanh", state_size=2, num_layers=1),
                [u((2, 1, 2)), u((12,)), u((1, 1, 2))]),
    # pathwise gradients of draws w.r.t. array parameters: checked with the generator
    # reseeded before each evaluation (the same draw every time)
    **{f"np.random.{n}": (_seeded(getattr(np.random, n)), specs) for n, specs in (
        ("normal", [u((3,)), u((3,), 0.5, 2.0)]), ("uniform", [u((3,), -2, -1), u((3,))]),
        ("gumbel", [u((3,)), u((3,), 0.5, 2.0)]), ("logistic", [u((3,)), u((3,), 0.5, 2.0)]),
        ("laplace", [u((3,)), u((3,), 0.5, 2.0)]))},
    **{f"np.random.{n}": (_seeded(getattr(np.random, n)), [u((3,), 0.5, 2.0)])
       for n in ("exponential", "rayleigh")},
    "npx.ctc_loss": (lambda d: npx.ctc_loss(d, np.array([[1, 2]], dtype="float64")),
                     [u((3, 1, 4))]),
    # MXNet 2's operators for what official NumPy computes in 1.x (ops/np_numeric.py,
    # ops/np_linalg.py)
    "np.einsum": (lambda a, b: np.einsum("ij,jk->ik", a, b), [u((2, 3)), u((3, 2))]),
    "np.einsum diagonal": (lambda a: np.einsum("ii->i", a), [SQ]),
    "np.einsum broadcast": (lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
                            [u((1, 2, 3)), u((2, 3, 2))]),
    "np.pad": (lambda a: np.pad(a, ((1, 0), (2, 1))), [u()]),
    "np.pad reflect": (lambda a: np.pad(a, 2, mode="reflect"), [u()]),
    "np.pad edge": (lambda a: np.pad(a, 1, mode="edge"), [u()]),
    "np.diff": (lambda a: np.diff(a, n=2, axis=1), [u((2, 4))]),
    "np.ediff1d": (lambda a, b: np.ediff1d(a, to_begin=b, to_end=[5.0]), [u(), u((2,))]),
    "np.nan_to_num": (np.nan_to_num, [u()]),
    "np.diagflat": (lambda a: np.diagflat(a, k=1), [u((2, 2))]),
    "np.polyval": (np.polyval, [u((3,)), u()]),
    "np.linalg.svd": (lambda a: sum(x.sum() for x in np.linalg.svd(a)[1:2]), [u((2, 3))]),
    "np.linalg.svd ut v": (lambda a: (lambda r: (r[0] * r[0][:, :1]).sum() +
                                      (r[2] * r[2][:1]).sum())(np.linalg.svd(a)),
                           [u((2, 3))]),
    "np.linalg.cholesky": (lambda a: np.linalg.cholesky(np.matmul(a, a.T) +
                                                        3 * np.eye(3, dtype="float64")),
                           [SQ]),
    "np.linalg.solve": (lambda a, b: np.linalg.solve(a + 3 * np.eye(3, dtype="float64"), b),
                        [SQ, u((3, 2))]),
    "np.linalg.tensorinv": (lambda a: np.linalg.tensorinv(
        a.reshape(2, 2, 4) + 3 * np.eye(4, dtype="float64").reshape(2, 2, 4), ind=2),
                            [u((4, 4), -0.5, 0.5)]),
    "np.linalg.tensorsolve": (lambda a, b: np.linalg.tensorsolve(
        a + 3 * np.eye(4, dtype="float64"), b), [u((4, 4), -0.5, 0.5), u((4,))]),
    "np.linalg.norm 2": (lambda a: np.linalg.norm(a, 2), [u((3, 2))]),
    "np.linalg.norm nuc": (lambda a: np.linalg.norm(a, "nuc"), [u((3, 2))]),
    "np.linalg.norm 1": (lambda a: np.linalg.norm(a, 1, axis=(0, 1)), [u((3, 2))]),
    "np.linalg.norm inf vector": (lambda a: np.linalg.norm(a, "inf", axis=1), [u((3, 4))]),
    "np.linalg.norm 3": (lambda a: np.linalg.norm(a, 3, axis=0), [u((3, 4))]),
    "np.full": (lambda a: np.full((2, 3), a), [u((3,))]),
    "npx.index_update": (lambda a, v: npx.index_update(a, np.array([[0, 1], [2, 0]]), v),
                         [u(), u((2,))]),
    "npx.index_add": (lambda a, v: npx.index_add(a, np.array([[0, 1, 0], [2, 0, 2]]), v),
                      [u(), u((3,))]),
    "npx.slice": (lambda a: npx.slice(a, begin=(0, 1), end=(2, None), step=(1, 1)), [u()]),
    "npx.interleaved_matmul_selfatt_qk": (
        lambda a: npx.interleaved_matmul_selfatt_qk(a, heads=1), [u((2, 1, 6))]),
    "npx.interleaved_matmul_selfatt_valatt": (
        lambda a, att: npx.interleaved_matmul_selfatt_valatt(a, att, heads=1),
        [u((2, 1, 6)), u((1, 2, 2))]),
    "npx.interleaved_matmul_encdec_qk": (
        lambda q, kv: npx.interleaved_matmul_encdec_qk(q, kv, heads=1),
        [u((2, 1, 2)), u((3, 1, 4))]),
    "npx.interleaved_matmul_encdec_valatt": (
        lambda kv, att: npx.interleaved_matmul_encdec_valatt(kv, att, heads=1),
        [u((3, 1, 4)), u((1, 2, 3))]),
    **{f"np.random.{n}": (_seeded(getattr(np.random, n)), [u((3,), 0.5, 2.0)])
       for n in ("weibull", "pareto")},
}

# name -> why it has no gradient
_REASONS = {
    "creation": "creates an array from shapes and values, no array input",
    "integer": "integer, boolean or index valued (zero gradient almost everywhere)",
    "random": "a random draw",
    "utility": "not an array function (dtypes, switches, devices, files)",
    "stop": "stops the gradient by definition",
}
NOT_DIFFERENTIABLE = {
    **{f"np.{n}": "creation" for n in (
        "arange", "array", "asarray", "ascontiguousarray", "empty", "empty_like", "eye",
        "full_like", "identity", "linspace", "ones", "ones_like", "zeros",
        "zeros_like")},
    **{f"np.{n}": "integer" for n in (
        "all", "any", "argmax", "argmin", "argsort", "nonzero", "equal", "not_equal",
        "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
        "logical_xor", "logical_not", "isfinite", "isinf", "isnan", "isneginf",
        "isposinf", "signbit", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
        "bitwise_invert", "invert", "left_shift", "right_shift", "bitwise_left_shift",
        "bitwise_right_shift", "gcd", "lcm", "sign", "floor", "ceil", "trunc", "rint",
        "fix", "around", "round", "round_", "floor_divide")},
    **{f"np.{n}": "utility" for n in (
        "can_cast", "issubdtype", "min_scalar_type", "promote_types", "result_type",
        "set_printoptions", "shape", "ndim", "size")},
    **{f"np.random.{n}": "random" for n in (
        "choice", "rand", "randint", "randn", "random", "random_sample", "shuffle",
        "bernoulli", "multinomial", "multivariate_normal", "beta", "chisquare", "f", "gamma",
        "power", "lognormal")},
    **{f"np.{n}": "creation" for n in ("hanning", "hamming", "blackman")},
    "np.random.seed": "utility",
    **{f"np.{n}": "utility" for n in ("shares_memory", "may_share_memory")},
    **{f"npx.{n}": "integer" for n in ("constraint_check", "round_ste", "sign_ste")},
    **{f"npx.random.{n}": "random" for n in ("uniform_n", "normal_n", "bernoulli")},
    "npx.random.seed": "utility",
    **{f"npx.{n}": "utility" for n in (
        "cpu", "cpu_pinned", "current_context", "current_device", "from_numpy", "gpu",
        "is_np_array", "is_np_default_dtype", "is_np_shape", "load", "num_gpus", "reset_np",
        "save", "savez", "seed", "set_np", "set_np_default_dtype", "set_np_float64", "use_np",
        "to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack",
        "use_np_array", "use_np_default_dtype", "use_np_shape", "waitall")},
    **{f"npx.{n}": "integer" for n in (
        "arange_like", "nonzero", "one_hot", "shape_array", "topk")},
    "npx.stop_gradient": "stop",
    "npx.dropout": "random",
}


def _public(ns):
    for name in dir(ns):
        obj = getattr(ns, name)
        if not name.startswith("_") and callable(obj) and not isinstance(
                obj, (type, types.ModuleType)):
            yield name, obj


def _is_fallback(fn):
    return (fn.__doc__ or "").startswith("Official NumPy's")


def test_every_function_is_classified():
    missing = []
    for prefix, ns in NAMESPACES.items():
        for name, fn in _public(ns):
            key = f"{prefix}.{name}"
            if key not in CASES and key not in NOT_DIFFERENTIABLE and not _is_fallback(fn):
                missing.append(key)
    assert not missing, ("functions with neither a finite-difference case (CASES) nor a "
                         f"reason to have no gradient (NOT_DIFFERENTIABLE): {missing}")
    assert set(NOT_DIFFERENTIABLE.values()) <= set(_REASONS)


def test_no_differentiable_ufunc_is_skipped():
    """A ufunc made from a table whose operator has a real gradient must be checked."""
    for name, op in _ufuncs.UNARY_FUNCTIONS.items():
        o = registry.get(op)
        if o.grad is not None and o.grad_name != "zeros_like" and \
                not o.grad.__name__ == "_no_grad":
            assert f"np.{name}" in CASES, f"np.{name} ({op}) has a gradient: add a case"


def _inputs(specs, rng):
    return [rng.uniform(lo, hi, size=shape) for shape, lo, hi in specs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_central_differences(name):
    fn, specs = CASES[name]
    rng = onp.random.default_rng(abs(hash(name)) % (1 << 32))
    values = _inputs(specs, rng)
    arrays = [np.array(v, dtype="float64") for v in values]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        out = fn(*arrays)
    weights = rng.uniform(0.5, 1.5, size=out.shape)
    with autograd.record():
        out = fn(*arrays)
        loss = (out * np.array(weights, dtype=out.dtype)).sum()
    loss.backward()
    for i, v in enumerate(values):
        def f():
            args = [np.array(x, dtype="float64") for x in values]
            with autograd.pause(train_mode=False):
                return float((fn(*args).asnumpy() * weights).sum())
        want = numeric_grad(f, v, eps=1e-6)
        got = arrays[i].grad.asnumpy()
        onp.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                    err_msg=f"{name}: input {i}")
