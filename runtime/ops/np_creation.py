"""MXNet 2's NumPy creation, random and matrix-product operators: ``_npi_zeros``,
``_npi_ones``, ``_npi_full``, ``_npi_full_like``, ``_npi_arange``, ``_npi_eye``,
``_npi_identity``, ``_npi_linspace`` (1.x's ``_zeros``... under MXNet 2's names),
``_npi_uniform``/``_npi_normal`` (1.x's samplers, scalar parameters or arrays
broadcast against ``size``), ``_npi_dot`` (NumPy's ``dot``: the last axis of ``a``
with the second-to-last of ``b``, which 1.x's ``dot`` does not do for N-d ``b``),
``_npi_tensordot``/``_npi_tensordot_int_axes`` and ``_npi_matmul``, each with its
gradient.
"""
import math

import numpy as np

from .elemwise import unbroadcast
from .np_elemwise import _promoted, result_type
from .params import _dtype, parse_tuple
from .registry import broadcast_shape, defop, derive, input_size
from .sampling import _generator

# -- creation ----------------------------------------------------------------------------------
derive("_npi_zeros", "_zeros")
derive("_npi_ones", "_ones")
derive("_npi_full", "_full")
derive("_npi_arange", "_arange")


def _np_eye_shape(N, M):
    """NumPy's: ``M=None`` is ``N`` columns, ``M=0`` none (1.x's ``_eye``: 0 is N)."""
    if int(N) != N or N < 0 or M is not None and (int(M) != M or M < 0):
        raise ValueError(f"eye: N={N!r} and M={M!r} must be non-negative integers")
    return (int(N), int(N) if M is None else int(M))


for _name in ("_npi_eye", "_npi_identity"):
    derive(_name, "_eye",
           kernel=lambda N=0, M=None, k=0, ctx=None, dtype="float32": np.eye(
               *_np_eye_shape(N, M), k=int(k), dtype=_dtype(dtype)),
           infer=lambda in_shapes, in_dtypes, N=0, M=None, dtype="float32", **_: (
               [_np_eye_shape(N, M)], [_dtype(dtype)]),
           cost=lambda in_shapes, N=0, M=None, **_: max(1, math.prod(_np_eye_shape(N, M))),
           params={"N": 0, "M": None, "k": 0, "ctx": None, "dtype": "float32"})
derive("_npi_linspace", "_linspace",
       kernel=lambda start=0.0, stop=1.0, num=50, endpoint=True, ctx=None, dtype="float32":
       np.linspace(float(start), float(stop), int(num), endpoint=bool(endpoint),
                   dtype=_dtype(dtype)))


def _full_like(a, fill_value=0.0, dtype=None):
    return np.full(a.shape, fill_value, dtype=_dtype(dtype, a.dtype))


defop("_npi_full_like", _full_like, arg_names=("a",), grad_name="zeros_like",
      infer=lambda in_shapes, in_dtypes, dtype=None, **_: (
          [tuple(in_shapes[0])], [_dtype(dtype, in_dtypes[0])]),
      grad=lambda ograds, inputs, outputs, **_: [None], cost=input_size,
      params={"fill_value": 0.0, "dtype": None})


# -- random: scalar parameters, or arrays broadcast against the size -------------------------------
def _params(arrays, a, b, arrays_for):
    vals = [a, b]
    for slot, arr in zip(arrays_for, arrays):
        vals[slot] = arr.astype(np.float64)
    return vals


def _sampler(draw, check=None):
    """``draw(gen, p1, p2, shape)``; the parameters are the two params (scalars) or the
    op's array inputs (``arrays_for``: which of the two each input is); ``check(p1, p2)``
    raises ValueError for values the distribution does not take (the op's error, at the
    next sync point, as MXNet's)."""
    def kernel(*arrays, a=0.0, b=1.0, size=(), dtype="float32", rng=None, arrays_for=(),
               ctx=None):
        vals = _params(arrays, a, b, arrays_for)
        if check is not None:
            check(*vals)
        shape = parse_tuple(size)
        if not shape:
            shape = np.broadcast_shapes(*[np.shape(v) for v in vals])
        out = draw(_generator(rng), vals[0], vals[1], shape)
        return np.asarray(out).astype(_dtype(dtype), copy=False)
    return kernel


def _sampler_grad(family):
    """Pathwise gradients of a draw w.r.t. its array parameters: ``loc_scale`` families
    (out = loc + scale * z), ``scale`` ones (out = scale * z), ``uniform``."""
    def grad(ograds, inputs, outputs, a=0.0, b=1.0, arrays_for=(), **_):
        og, out = ograds[0], outputs[0].astype(np.float64)
        vals = _params(inputs, a, b, arrays_for)
        res = []
        for slot, arr in zip(arrays_for, inputs):
            if family == "uniform":
                lo, hi = vals
                t = (out - lo) / np.where(hi - lo == 0, 1, hi - lo)
                d = 1 - t if slot == 0 else t
            elif family == "loc_scale":
                loc, scale = vals
                d = np.ones_like(out) if slot == 0 else (out - loc) / np.where(
                    scale == 0, 1, scale)
            elif family == "scale":
                d = out / np.where(vals[0] == 0, 1, vals[0])
            elif family == "weibull":        # out = E ** (1 / a): d/da = -out ln(out) / a
                with np.errstate(divide="ignore", invalid="ignore"):
                    d = np.nan_to_num(-out * np.log(out) / vals[0])
            elif family == "pareto":         # out = exp(E / a) - 1
                d = -(out + 1) * np.log1p(out) / vals[0]
            else:
                d = np.zeros_like(out)
            res.append(np.asarray(unbroadcast(og * d, arr.shape), dtype=arr.dtype))
        return res
    return grad


def _sampler_infer(in_shapes, in_dtypes, size=(), dtype="float32", **_):
    shape = parse_tuple(size)
    if not shape and in_shapes:
        shape = broadcast_shape(in_shapes, in_dtypes)[0][0]
    return [tuple(shape)], [_dtype(dtype)]


_RANDOM_PARAMS = {"a": 0.0, "b": 1.0, "size": (), "dtype": "float32", "rng": None,
                  "ctx": None, "arrays_for": ()}
# op -> (draw(gen, p1, p2, shape), gradient family, MXNet 2's gradient name)
SAMPLERS = {
    "_npi_uniform": (lambda g, lo, hi, s: lo + (hi - lo) * g.random(s), "uniform",
                     "_backward_broadcast_uniform"),
    "_npi_normal": (lambda g, loc, scale, s: loc + scale * g.standard_normal(s),
                    "loc_scale", "_backward_broadcast_normal"),
    "_npi_gumbel": (lambda g, loc, scale, s: loc + scale * g.gumbel(size=s), "loc_scale",
                    "_backward_broadcast_gumbel"),
    "_npi_logistic": (lambda g, loc, scale, s: loc + scale * g.logistic(size=s),
                      "loc_scale", "_backward_broadcast_logistic"),
    "_npi_laplace": (lambda g, loc, scale, s: loc + scale * g.laplace(size=s), "loc_scale",
                     "_backward_broadcast_laplace"),
    "_npi_exponential": (lambda g, scale, _, s: scale * g.standard_exponential(s), "scale",
                         "_backward_broadcast_exponential"),
    "_npi_rayleigh": (lambda g, scale, _, s: scale * g.rayleigh(size=s), "scale",
                      "_backward_broadcast_rayleigh"),
    "_npi_weibull": (lambda g, a, _, s: g.weibull(np.broadcast_to(a, s)), "weibull",
                     "_backward_broadcast_weibull"),
    "_npi_pareto": (lambda g, a, _, s: g.pareto(np.broadcast_to(a, s)), "pareto",
                    "_backward_broadcast_pareto"),
    "_npi_powerd": (lambda g, a, _, s: g.power(np.broadcast_to(a, s)), None, "zeros_like"),
    "_npi_gamma": (lambda g, shape, scale, s: g.gamma(np.broadcast_to(shape, s),
                                                      np.broadcast_to(scale, s)), None,
                   "_backward_gamma_sample"),
    "_npi_bernoulli": (lambda g, p, _, s: (g.random(s) < p), None, "zeros_like"),
}


def _require(name, test, what):
    def check(p1, p2):
        if not np.all(test(p1, p2)):
            raise ValueError(f"{name}: {what}")
    return check


_CHECKS = {
    "_npi_uniform": None, "_npi_normal": _require("normal", lambda m, s: s >= 0,
                                                 "scale must be non-negative"),
    "_npi_exponential": _require("exponential", lambda s, _: s >= 0,
                                 "scale must be non-negative"),
    "_npi_rayleigh": _require("rayleigh", lambda s, _: s >= 0, "scale must be non-negative"),
    "_npi_weibull": _require("weibull", lambda a, _: a > 0, "a must be positive"),
    "_npi_pareto": _require("pareto", lambda a, _: a > 0, "a must be positive"),
    "_npi_powerd": _require("power", lambda a, _: a > 0, "a must be positive"),
    "_npi_gamma": _require("gamma", lambda k, t: (k > 0) & (t > 0),
                           "shape and scale must be positive"),
    "_npi_bernoulli": _require("bernoulli", lambda p, _: (p >= 0) & (p <= 1),
                               "prob must be in [0, 1]"),
}
for _name, (_draw, _family, _gname) in SAMPLERS.items():
    defop(_name, _sampler(_draw, _CHECKS.get(_name)), arg_names=("params",), variadic=True,
          infer=_sampler_infer, grad=_sampler_grad(_family), grad_name=_gname,
          params=dict(_RANDOM_PARAMS))


# -- dot, tensordot, matmul ------------------------------------------------------------------------
def _tensordot_grads(og, a, b, ax_a, ax_b):
    """The gradients of ``tensordot(a, b, (ax_a, ax_b))`` given the output's ``og``."""
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    na = len(free_a)
    ga = np.tensordot(og, b, axes=(list(range(na, og.ndim)), free_b))
    order_a = free_a + [ax_a[j] for j in np.argsort(ax_b)]
    ga = np.transpose(ga, np.argsort(order_a)) if ga.ndim else ga
    gb = np.tensordot(a, og, axes=(free_a, list(range(na))))
    order_b = [ax_b[j] for j in np.argsort(ax_a)] + free_b
    gb = np.transpose(gb, np.argsort(order_b)) if gb.ndim else gb
    return ga.astype(a.dtype, copy=False), gb.astype(b.dtype, copy=False)


def _dot_axes(a_ndim, b_ndim):
    if a_ndim == 0 or b_ndim == 0:
        return None
    return [a_ndim - 1], [max(b_ndim - 2, 0)]


def _dot(a, b):
    a, b = _promoted(a, b, False)
    return np.dot(a, b)


def _dot_grad(ograds, inputs, outputs):
    a, b = inputs
    og = ograds[0]
    axes = _dot_axes(a.ndim, b.ndim)
    if axes is None:    # a scalar operand: a product
        return [np.asarray(unbroadcast(og * b, a.shape), dtype=a.dtype),
                np.asarray(unbroadcast(og * a, b.shape), dtype=b.dtype)]
    return list(_tensordot_grads(og, a, b, *axes))


def _dot_infer(in_shapes, in_dtypes, **_):
    sa, sb = tuple(in_shapes[0]), tuple(in_shapes[1])
    t = result_type(in_dtypes[0], in_dtypes[1])
    if not sa or not sb:
        return [sb if not sa else sa], [t]
    k = sb[-2] if len(sb) >= 2 else sb[0]
    if sa[-1] != k:
        raise ValueError(f"shapes {sa} and {sb} not aligned: {sa[-1]} (dim {len(sa) - 1}) "
                         f"!= {k} (dim {max(len(sb) - 2, 0)})")
    return [sa[:-1] + sb[:-2] + sb[-1:] if len(sb) >= 2 else sa[:-1]], [t]


def _dot_cost(in_shapes, **_):
    sa, sb = in_shapes
    return max(1, int(np.prod(sa, dtype=np.int64)) * (sb[-1] if len(sb) >= 2 else 1))


defop("_npi_dot", _dot, arg_names=("a", "b"), infer=_dot_infer, grad=_dot_grad,
      cost=_dot_cost)


def _td_axes(a_ndim, b_ndim, axes):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        return list(range(a_ndim - n, a_ndim)), list(range(n))
    ax_a, ax_b = axes
    ax_a = [int(ax_a)] if isinstance(ax_a, (int, np.integer)) else [int(x) for x in ax_a]
    ax_b = [int(ax_b)] if isinstance(ax_b, (int, np.integer)) else [int(x) for x in ax_b]
    return [x % a_ndim for x in ax_a], [x % b_ndim for x in ax_b]


def _tensordot(a, b, axes=2):
    a, b = _promoted(a, b, False)
    return np.tensordot(a, b, axes=_td_axes(a.ndim, b.ndim, axes))


def _tensordot_infer(in_shapes, in_dtypes, axes=2, **_):
    sa, sb = tuple(in_shapes[0]), tuple(in_shapes[1])
    ax_a, ax_b = _td_axes(len(sa), len(sb), axes)
    if len(ax_a) != len(ax_b) or any(sa[i] != sb[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"tensordot: shape-mismatch for sum: {sa} axes {ax_a} and {sb} "
                         f"axes {ax_b}")
    out = tuple(n for i, n in enumerate(sa) if i not in ax_a) + \
        tuple(n for i, n in enumerate(sb) if i not in ax_b)
    return [out], [result_type(in_dtypes[0], in_dtypes[1])]


def _tensordot_grad(ograds, inputs, outputs, axes=2):
    a, b = inputs
    return list(_tensordot_grads(ograds[0], a, b, *_td_axes(a.ndim, b.ndim, axes)))


for _name in ("_npi_tensordot", "_npi_tensordot_int_axes"):
    defop(_name, _tensordot, arg_names=("a", "b"), infer=_tensordot_infer,
          grad=_tensordot_grad, params={"axes": 2})


def _matmul(a, b):
    a, b = _promoted(a, b, False)
    return np.matmul(a, b)


def _matmul_infer(in_shapes, in_dtypes, **_):
    sa, sb = tuple(in_shapes[0]), tuple(in_shapes[1])
    if not sa or not sb:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = sa if len(sa) >= 2 else (1,) + sa
    b2 = sb if len(sb) >= 2 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
                         f"({sa} and {sb})")
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + (a2[-2],) * (len(sa) >= 2) + (b2[-1],) * (len(sb) >= 2)
    return [tuple(out)], [result_type(in_dtypes[0], in_dtypes[1])]


def _matmul_grad(ograds, inputs, outputs):
    a, b = inputs
    a2 = a if a.ndim >= 2 else a[None, :]
    b2 = b if b.ndim >= 2 else b[:, None]
    og = ograds[0]
    if a.ndim < 2 and b.ndim < 2:       # a 0-d result of two vectors
        og = np.reshape(og, (1, 1))
    elif a.ndim < 2:
        og = np.expand_dims(og, -2)
    elif b.ndim < 2:
        og = np.expand_dims(og, -1)
    ga = np.matmul(og, np.swapaxes(b2, -1, -2))
    gb = np.matmul(np.swapaxes(a2, -1, -2), og)
    ga = unbroadcast(ga, a2.shape).reshape(a.shape)
    gb = unbroadcast(gb, b2.shape).reshape(b.shape)
    return [ga.astype(a.dtype, copy=False), gb.astype(b.dtype, copy=False)]


defop("_npi_matmul", _matmul, arg_names=("a", "b"), infer=_matmul_infer, grad=_matmul_grad,
      grad_name="_backward_np_matmul",
      cost=lambda in_shapes, **_: max(1, int(np.prod(_matmul_infer(in_shapes, [
          np.dtype("f4")] * 2)[0][0] or (1,))) * (in_shapes[0][-1] if in_shapes[0] else 1)))


def _choice(*p, a=0, size=(), replace=True, rng=None):
    probs = None
    if p:
        probs = p[0].astype(np.float64)
        probs = probs / probs.sum()
    return np.asarray(_generator(rng).choice(int(a), size=parse_tuple(size),
                                             replace=bool(replace), p=probs), dtype=np.int64)


defop("_npi_choice", _choice, arg_names=("p",), variadic=True,
      infer=lambda in_shapes, in_dtypes, size=(), **_: ([parse_tuple(size)],
                                                         [np.dtype(np.int64)]),
      grad=lambda ograds, inputs, outputs, **_: [None] * len(inputs),
      params={"a": 0, "size": (), "replace": True, "rng": None})


def _multinomial(pvals, n=1, size=(), rng=None):
    shape = tuple(parse_tuple(size)) + pvals.shape
    if not math.prod(shape):     # no draws (an empty pvals or size): nothing to sample
        return np.zeros(shape, np.int64)
    p = pvals.astype(np.float64)
    return _generator(rng).multinomial(int(n), p / p.sum(), size=parse_tuple(size) or None)


defop("_npi_multinomial", _multinomial, arg_names=("pvals",),
      infer=lambda in_shapes, in_dtypes, size=(), **_: (
          [tuple(parse_tuple(size)) + tuple(in_shapes[0])], [np.dtype(np.int64)]),
      grad=lambda ograds, inputs, outputs, **_: [None],
      params={"n": 1, "size": (), "rng": None})


def _mvn_shape(mean_shape, cov_shape, size):
    if len(cov_shape) < 2 or cov_shape[-1] != cov_shape[-2] or not mean_shape or \
            mean_shape[-1] != cov_shape[-1]:
        raise ValueError(f"multivariate_normal: mean of shape {tuple(mean_shape)} and cov of "
                         f"shape {tuple(cov_shape)}: cov must be (..., k, k) for mean (..., k)")
    batch = np.broadcast_shapes(tuple(mean_shape), tuple(cov_shape[:-1]))
    return tuple(parse_tuple(size)) + batch


def _mvn(mean, cov, size=(), rng=None):
    """Batched as MXNet's: mean (..., k) and cov (..., k, k) broadcast, ``size`` first;
    drawn as mean + A z with cov = A A^T (from its eigendecomposition: semi-definite
    covariances too)."""
    shape = _mvn_shape(mean.shape, cov.shape, size)
    w, v = np.linalg.eigh(cov.astype(np.float64))
    a = v * np.sqrt(np.clip(w, 0, None))[..., None, :]
    z = _generator(rng).standard_normal(shape)
    return mean + np.matmul(a, z[..., None])[..., 0]


defop("_npi_mvn", _mvn, arg_names=("mean", "cov"),
      infer=lambda in_shapes, in_dtypes, size=(), **_: (
          [_mvn_shape(in_shapes[0], in_shapes[1], size)], [in_dtypes[0]]),
      grad=lambda ograds, inputs, outputs, **_: [None, None], params={"size": (), "rng": None})
