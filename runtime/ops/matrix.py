"""Matrix and array-manipulation operators: dot, reshape, slicing, joining, indexing,
creation and random sampling.

Names, argument names and parameters follow MXNet 1.x (``dot``, ``batch_dot``,
``reshape``, ``Flatten``, ``transpose``, ``concat``, ``SliceChannel``, ``one_hot``,
``_zeros``, ``_random_uniform``, ``Cast``...). Each gradient sits next to its kernel.

Conventions shared by this module (read by the NDArray, symbol and autograd layers):

* Variadic operators (``concat``, ``stack``) are registered with ``variadic=True`` and
  ``arg_names=("data",)``: they take one or more inputs, all passed positionally
  (``kernel(a, b, c, dim=1)``); ``nin`` (1) is the minimum count. Their gradient returns
  one array per input actually passed. The optional ``num_args`` parameter, as in
  MXNet, is checked against the input count when given.
* Creation operators (``_zeros``, ``_ones``, ``_full``, ``_arange``, ``_random_*``) have
  ``arg_names=()``: the kernel is called with params only and the gradient returns ``[]``.
* Random operators take a ``numpy.random.Generator`` as the param ``rng``. The caller
  supplies it: the NDArray layer keeps one generator per context behind one engine
  variable that every random op writes, so random ops run one at a time in push order and
  a seed reproduces the same numbers whatever the thread timing. Without ``rng`` the
  kernel falls back to a fresh, unseeded generator.
* Slicing operators take ``key``, a normalized basic-indexing key: a tuple of ``slice``
  objects, ints, ``None`` and ``Ellipsis`` (no arrays). MXNet's ``begin``/``end``/``step``
  parameters are accepted instead of ``key`` (``begin=(0, 1), end=(2, None)``), so a
  graph saved by MXNet still loads.
* Kernels never modify their inputs: ``_slice_assign`` copies, then assigns.
* Operators without a gradient (``argmax``, ``one_hot``, integer inputs such as indices)
  return zeros, as MXNet does.
"""
import ast
import math

import numpy as np

from .elemwise import unbroadcast
from .registry import defop, input_size

__all__ = ["parse_tuple", "reshape_shape"]


# -- parameter helpers --------------------------------------------------------------
def parse_tuple(value, name="shape"):
    """A tuple of ints (or ``None``) from a param given as a tuple, list, int or string."""
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text in ("", "()", "[]", "None"):
            return ()
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ValueError(f"{name}={value!r} is not a tuple of integers") from None
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        return tuple(None if v is None else int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a tuple of integers") from None


def _bool(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _dtype(value, default="float32"):
    return np.dtype(default if value is None else value)


def _axis(axis, ndim, opname, extra=0):
    """Normalize ``axis`` against ``ndim`` (+``extra`` positions, for inserted axes)."""
    n = ndim + extra
    axis = int(axis)
    if not -n <= axis < n:
        raise ValueError(f"{opname}: axis {axis} is out of range for an array of "
                         f"{ndim} dimensions")
    return axis % n


def _size(shape):
    return math.prod(int(n) for n in shape)


def _cheap(in_shapes, **_):
    """Cost of an op whose kernel returns a view: constant."""
    return 1


def _zeros_grad(ograds, inputs, outputs, **_):
    return [np.zeros_like(x) for x in inputs]


def _og(ograds, i, outputs):
    """Output gradient ``i``, zeros when the caller passed None (an unused output)."""
    g = ograds[i] if i < len(ograds) else None
    return np.zeros_like(outputs[i]) if g is None else g


def _as(like, value):
    return value if value.dtype == like.dtype else value.astype(like.dtype)


# -- dot, batch_dot ---------------------------------------------------------------
def _dot_geometry(lshape, rshape, transpose_a, transpose_b):
    """(m, k, n, output shape) of MXNet's dot, which folds N-d operands into matrices:
    lhs is (prod(shape[:-1]), shape[-1]) (or the transpose of (shape[0], prod(rest))),
    rhs is (shape[0], prod(rest)) (or the transpose of (prod(shape[:-1]), shape[-1]))."""
    lshape, rshape = tuple(lshape), tuple(rshape)
    if not lshape or not rshape:
        raise ValueError(f"dot: operands need at least one dimension, got {lshape} "
                         f"and {rshape}")
    kl = lshape[0] if transpose_a else lshape[-1]
    kr = rshape[-1] if transpose_b else rshape[0]
    if kl != kr:
        raise ValueError(
            f"dot: lhs {lshape}{' (transposed)' if transpose_a else ''} and rhs "
            f"{rshape}{' (transposed)' if transpose_b else ''} do not agree on the "
            f"contracted dimension: {kl} != {kr}")
    lkeep = lshape[1:] if transpose_a else lshape[:-1]
    rkeep = rshape[:-1] if transpose_b else rshape[1:]
    out = lkeep + rkeep
    return _size(lkeep), kl, _size(rkeep), (out if out else (1,))


def _as_matrix(x, first):
    """x folded to (shape[0], rest) when ``first`` else (prod(shape[:-1]), shape[-1])."""
    if first:
        return x.reshape(x.shape[0], _size(x.shape[1:]))
    return x.reshape(_size(x.shape[:-1]), x.shape[-1])


def _dot_operands(lhs, rhs, transpose_a, transpose_b):
    a = _as_matrix(lhs, True).T if transpose_a else _as_matrix(lhs, False)
    b = _as_matrix(rhs, False).T if transpose_b else _as_matrix(rhs, True)
    return a, b


def _dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    *_, out_shape = _dot_geometry(lhs.shape, rhs.shape, transpose_a, transpose_b)
    a, b = _dot_operands(lhs, rhs, transpose_a, transpose_b)
    return _as(lhs, np.matmul(a, b)).reshape(out_shape)


def _dot_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False,
              forward_stype=None):
    lhs, rhs = inputs
    a, b = _dot_operands(lhs, rhs, transpose_a, transpose_b)
    og = ograds[0].reshape(a.shape[0], b.shape[1])
    ga = og @ b.T                      # d/da, a is (m, k)
    gb = a.T @ og                      # d/db, b is (k, n)
    ga = (ga.T if transpose_a else ga).reshape(lhs.shape)
    gb = (gb.T if transpose_b else gb).reshape(rhs.shape)
    return [_as(lhs, ga), _as(rhs, gb)]


def _dot_infer(in_shapes, in_dtypes, transpose_a=False, transpose_b=False, **_):
    *_, out = _dot_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return [out], [in_dtypes[0]]


def _dot_cost(in_shapes, transpose_a=False, transpose_b=False, **_):
    m, k, n, _out = _dot_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return m * n * k


defop("dot", _dot, arg_names=("lhs", "rhs"), infer=_dot_infer, grad=_dot_grad,
      cost=_dot_cost,
      params={"transpose_a": False, "transpose_b": False, "forward_stype": None})


def _batch_geometry(lshape, rshape, transpose_a, transpose_b):
    lshape, rshape = tuple(lshape), tuple(rshape)
    if len(lshape) < 3 or len(lshape) != len(rshape):
        raise ValueError(f"batch_dot: operands must both have the same number (>= 3) of "
                         f"dimensions, got {lshape} and {rshape}")
    if lshape[:-2] != rshape[:-2]:
        raise ValueError(f"batch_dot: batch dimensions differ: {lshape[:-2]} and "
                         f"{rshape[:-2]}")
    m, kl = (lshape[-1], lshape[-2]) if transpose_a else (lshape[-2], lshape[-1])
    kr, n = (rshape[-1], rshape[-2]) if transpose_b else (rshape[-2], rshape[-1])
    if kl != kr:
        raise ValueError(f"batch_dot: lhs {lshape} and rhs {rshape} do not agree on the "
                         f"contracted dimension: {kl} != {kr}")
    return _size(lshape[:-2]), m, kl, n, lshape[:-2] + (m, n)


def _batch_dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    _batch_geometry(lhs.shape, rhs.shape, transpose_a, transpose_b)
    a = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    return _as(lhs, np.matmul(a, b))


def _batch_dot_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False,
                    forward_stype=None):
    lhs, rhs = inputs
    og = ograds[0]
    a = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    ga = np.matmul(og, np.swapaxes(b, -1, -2))
    gb = np.matmul(np.swapaxes(a, -1, -2), og)
    if transpose_a:
        ga = np.swapaxes(ga, -1, -2)
    if transpose_b:
        gb = np.swapaxes(gb, -1, -2)
    return [_as(lhs, ga), _as(rhs, gb)]


def _batch_dot_infer(in_shapes, in_dtypes, transpose_a=False, transpose_b=False, **_):
    *_, out = _batch_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return [out], [in_dtypes[0]]


def _batch_dot_cost(in_shapes, transpose_a=False, transpose_b=False, **_):
    b, m, k, n, _out = _batch_geometry(in_shapes[0], in_shapes[1], transpose_a,
                                       transpose_b)
    return b * m * n * k


defop("batch_dot", _batch_dot, arg_names=("lhs", "rhs"), infer=_batch_dot_infer,
      grad=_batch_dot_grad, cost=_batch_dot_cost,
      params={"transpose_a": False, "transpose_b": False, "forward_stype": None})


# -- reshape family ----------------------------------------------------------------
def _reverse_spec(spec):
    """Reverse a reshape spec keeping each ``-4, a, b`` group as ``-4, b, a``."""
    groups, i = [], 0
    while i < len(spec):
        if spec[i] == -4:
            groups.append((-4, spec[i + 2], spec[i + 1]) if i + 2 < len(spec)
                          else tuple(spec[i:]))
            i += 3
        else:
            groups.append((spec[i],))
            i += 1
    return tuple(v for g in reversed(groups) for v in g)


def reshape_shape(src, shape, reverse=False):
    """The target shape of MXNet's reshape of ``src`` to ``shape``.

    Special values: 0 copies this input dimension, -1 infers one dimension from the
    size, -2 copies all remaining input dimensions, -3 merges two consecutive input
    dimensions, -4 splits one input dimension into the next two values (one may be -1).
    ``reverse`` matches special values from the right.
    """
    src = tuple(int(n) for n in src)
    spec = parse_tuple(shape, "shape")
    if not spec:
        raise ValueError("reshape: shape is required")
    if reverse:
        src, spec = src[::-1], _reverse_spec(spec)
    total = _size(src)
    out, i, j, infer_at = [], 0, 0, None

    def take(k):
        if i + k > len(src):
            raise ValueError(f"reshape: shape={tuple(shape)} refers to more dimensions "
                             f"than the input shape {tuple(src)} has")
        return src[i:i + k]

    while j < len(spec):
        v = spec[j]
        if v is None:
            raise ValueError(f"reshape: shape={tuple(shape)} contains None")
        if v > 0:
            out.append(v)
            i += 1
        elif v == 0:
            out.append(take(1)[0])
            i += 1
        elif v == -1:
            if infer_at is not None:
                raise ValueError(f"reshape: shape={tuple(shape)} has more than one -1")
            infer_at = len(out)
            out.append(1)
            i += 1
        elif v == -2:
            out.extend(src[i:])
            i = len(src)
        elif v == -3:
            d1, d2 = take(2)
            out.append(d1 * d2)
            i += 2
        elif v == -4:
            if j + 2 >= len(spec):
                raise ValueError(f"reshape: -4 in shape={tuple(shape)} must be followed "
                                 f"by two values")
            (d0,) = take(1)
            a, b = spec[j + 1], spec[j + 2]
            if a == -1 and b == -1:
                raise ValueError(f"reshape: -4 in shape={tuple(shape)} is followed by "
                                 f"two -1")
            if a == -1:
                a = d0 // b if b else 0
            elif b == -1:
                b = d0 // a if a else 0
            if a * b != d0:
                raise ValueError(f"reshape: -4 splits dimension {d0} into {a} x {b}")
            out.extend([a, b])
            i += 1
            j += 2
        else:
            raise ValueError(f"reshape: shape={tuple(shape)} contains {v}; only positive "
                             f"sizes and the special values 0, -1, -2, -3, -4 are allowed")
        j += 1
    if infer_at is not None:
        known = _size(out)
        if known == 0 or total % known:
            raise ValueError(f"reshape: cannot infer the -1 in shape={tuple(shape)} for "
                             f"an input of shape {tuple(src)} ({total} elements)")
        out[infer_at] = total // known
    if _size(out) != total:
        raise ValueError(f"reshape: cannot reshape an array of shape {tuple(src)} "
                         f"({total} elements) to shape={tuple(shape)} -> {tuple(out)}")
    return tuple(out[::-1]) if reverse else tuple(out)


def _reshape(data, shape=(), reverse=False):
    return data.reshape(reshape_shape(data.shape, shape, reverse))


def _reshape_grad(ograds, inputs, outputs, **_):
    return [ograds[0].reshape(inputs[0].shape)]


def _reshape_infer(in_shapes, in_dtypes, shape=(), reverse=False, **_):
    return [reshape_shape(in_shapes[0], shape, reverse)], [in_dtypes[0]]


defop("reshape", _reshape, infer=_reshape_infer, grad=_reshape_grad, cost=_cheap,
      params={"shape": (), "reverse": False})


def _flatten_shape(shape):
    shape = tuple(shape)
    if not shape:
        raise ValueError("Flatten: the input needs at least one dimension")
    return (shape[0], _size(shape[1:]))


def _flatten(data):
    return data.reshape(_flatten_shape(data.shape))


defop("Flatten", _flatten, grad=_reshape_grad, cost=_cheap,
      infer=lambda in_shapes, in_dtypes, **_: ([_flatten_shape(in_shapes[0])],
                                               [in_dtypes[0]]))


def _expand_dims_axis(ndim, axis):
    return _axis(axis, ndim, "expand_dims", extra=1)


def _expand_dims(data, axis=0):
    return np.expand_dims(data, _expand_dims_axis(data.ndim, axis))


def _expand_dims_infer(in_shapes, in_dtypes, axis=0, **_):
    shape = tuple(in_shapes[0])
    a = _expand_dims_axis(len(shape), axis)
    return [shape[:a] + (1,) + shape[a:]], [in_dtypes[0]]


defop("expand_dims", _expand_dims, infer=_expand_dims_infer, grad=_reshape_grad,
      cost=_cheap, params={"axis": 0})


def _transpose_axes(ndim, axes):
    axes = parse_tuple(axes, "axes")
    if not axes:
        return tuple(range(ndim - 1, -1, -1))
    norm = tuple(int(a) % ndim if -ndim <= int(a) < ndim else -1 for a in axes)
    if len(axes) != ndim or sorted(norm) != list(range(ndim)):
        raise ValueError(f"transpose: axes={tuple(axes)} is not a permutation of the "
                         f"{ndim} axes of the input")
    return norm


def _transpose(data, axes=()):
    return data.transpose(_transpose_axes(data.ndim, axes))


def _transpose_grad(ograds, inputs, outputs, axes=()):
    perm = _transpose_axes(inputs[0].ndim, axes)
    return [ograds[0].transpose(np.argsort(perm))]


def _transpose_infer(in_shapes, in_dtypes, axes=(), **_):
    shape = tuple(in_shapes[0])
    return [tuple(shape[a] for a in _transpose_axes(len(shape), axes))], [in_dtypes[0]]


defop("transpose", _transpose, infer=_transpose_infer, grad=_transpose_grad,
      cost=_cheap, params={"axes": ()})


def _broadcast_to_shape(src, shape):
    src = tuple(src)
    target = parse_tuple(shape, "shape")
    if len(target) < len(src):
        raise ValueError(f"broadcast_to: shape={target} has fewer dimensions than the "
                         f"input {src}")
    lead = len(target) - len(src)
    out = []
    for i, t in enumerate(target):
        s = src[i - lead] if i >= lead else 1
        if t == 0:
            if i < lead:
                raise ValueError(f"broadcast_to: 0 at position {i} of shape={target} has "
                                 f"no input dimension to keep (input {src})")
            t = s
        if s != t and s != 1:
            raise ValueError(f"broadcast_to: cannot broadcast input {src} to "
                             f"shape={target}: dimension {i} is {s}, not 1 or {t}")
        out.append(t)
    return tuple(out)


def _broadcast_to(data, shape=()):
    return np.broadcast_to(data, _broadcast_to_shape(data.shape, shape))


def _broadcast_grad(ograds, inputs, outputs, **_):
    x = inputs[0]
    return [_as(x, np.ascontiguousarray(unbroadcast(ograds[0], x.shape)))]


defop("broadcast_to", _broadcast_to, grad=_broadcast_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, shape=(), **_: (
          [_broadcast_to_shape(in_shapes[0], shape)], [in_dtypes[0]]),
      params={"shape": ()})


def _broadcast_like(lhs, rhs, lhs_axes=None, rhs_axes=None):
    return np.broadcast_to(lhs, _broadcast_to_shape(lhs.shape, rhs.shape))


def _broadcast_like_grad(ograds, inputs, outputs, **_):
    return [_broadcast_grad(ograds, inputs[:1], outputs)[0], np.zeros_like(inputs[1])]


defop("broadcast_like", _broadcast_like, arg_names=("lhs", "rhs"),
      grad=_broadcast_like_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, **_: (
          [_broadcast_to_shape(in_shapes[0], in_shapes[1])], [in_dtypes[0]]),
      params={"lhs_axes": None, "rhs_axes": None})


# -- slicing -----------------------------------------------------------------------
def _slice_key(key=None, begin=None, end=None, step=None):
    """The basic-indexing key from ``key`` or MXNet's ``begin``/``end``/``step``."""
    if key is None:
        if begin is None:
            raise ValueError("slice: give key (or MXNet's begin/end/step)")
        begin = parse_tuple(begin, "begin")
        end = parse_tuple(end, "end") or (None,) * len(begin)
        step = parse_tuple(step, "step") or (None,) * len(begin)
        if not len(begin) == len(end) == len(step):
            raise ValueError(f"slice: begin={begin}, end={end} and step={step} differ "
                             f"in length")
        return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))
    if not isinstance(key, tuple):
        key = tuple(key) if isinstance(key, list) else (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
                and not isinstance(k, bool)):
            raise ValueError(f"slice: key {key!r} is not a basic index (slices, ints, "
                             f"None, Ellipsis); element {k!r}")
        if isinstance(k, slice) and k.step == 0:
            raise ValueError(f"slice: key {key!r} has a slice step of 0")
    return key


def _region_shape(shape, key, opname="slice"):
    """The shape ``x[key]`` has for an ``x`` of ``shape``, without allocating ``x``."""
    probe = np.broadcast_to(np.empty((), dtype=np.int8), tuple(shape))
    try:
        return probe[key].shape
    except IndexError as e:
        raise ValueError(f"{opname}: key {key!r} is out of range for shape "
                         f"{tuple(shape)}: {e}") from None


def _slice(data, key=None, begin=None, end=None, step=None):
    out = data[_slice_key(key, begin, end, step)]
    return out if type(out) is np.ndarray else np.asarray(out).reshape(1)   # see infer


def _slice_grad(ograds, inputs, outputs, key=None, begin=None, end=None, step=None):
    x = inputs[0]
    g = np.zeros_like(x)
    key = _slice_key(key, begin, end, step)
    og = ograds[0]
    g[key] = og.reshape(g[key].shape)   # a (1,) result of an all-integer key
    return [g]


def _slice_infer(in_shapes, in_dtypes, key=None, begin=None, end=None, step=None, **_):
    # As in MXNet 1.x (no 0-d arrays): an all-integer key (``x[1]`` on a vector,
    # ``x[0, 1]`` on a matrix) gives shape (1,), not (); the kernel's scalar is stored
    # reshaped.
    shape = _region_shape(in_shapes[0], _slice_key(key, begin, end, step))
    return [shape or (1,)], [in_dtypes[0]]


_KEY_PARAMS = {"key": None, "begin": None, "end": None, "step": None}
defop("slice", _slice, infer=_slice_infer, grad=_slice_grad, cost=_cheap,
      params=dict(_KEY_PARAMS))


def _slice_axis_key(ndim, axis, begin, end):
    a = _axis(axis, ndim, "slice_axis")
    return (slice(None),) * a + (slice(begin, end),)


def _slice_axis(data, axis=0, begin=0, end=None):
    return data[_slice_axis_key(data.ndim, axis, begin, end)]


def _slice_axis_grad(ograds, inputs, outputs, axis=0, begin=0, end=None):
    x = inputs[0]
    g = np.zeros_like(x)
    g[_slice_axis_key(x.ndim, axis, begin, end)] = ograds[0]
    return [g]


defop("slice_axis", _slice_axis, grad=_slice_axis_grad, cost=_cheap,
      infer=lambda in_shapes, in_dtypes, axis=0, begin=0, end=None, **_: (
          [_region_shape(in_shapes[0],
                         _slice_axis_key(len(in_shapes[0]), axis, begin, end),
                         "slice_axis")], [in_dtypes[0]]),
      params={"axis": 0, "begin": 0, "end": None})


def _assign_shape_check(lshape, rshape, key, opname):
    region = _region_shape(lshape, key, opname)
    value = tuple(rshape)
    while len(value) > len(region) and value[0] == 1:   # numpy drops leading 1s
        value = value[1:]
    try:
        ok = np.broadcast_shapes(value, region) == region
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{opname}: value of shape {tuple(rshape)} cannot be assigned "
                         f"to the region {region} selected by key {key!r}")
    return region


def _slice_assign(lhs, rhs, key=None, begin=None, end=None, step=None):
    key = _slice_key(key, begin, end, step)
    out = lhs.copy()
    extra = rhs.ndim - np.ndim(out[key])
    if extra > 0:   # leading 1s (checked at inference): x[0, 1] = nd.array([5])
        rhs = rhs.reshape(rhs.shape[extra:])
    out[key] = rhs
    return out


def _slice_assign_grad(ograds, inputs, outputs, key=None, begin=None, end=None,
                       step=None):
    lhs, rhs = inputs
    key = _slice_key(key, begin, end, step)
    og = ograds[0]
    gl = og.copy()
    gl[key] = 0
    gr = og[key]
    if gr.ndim < rhs.ndim:     # the value had extra leading 1s that assignment dropped
        gr = gr.reshape((1,) * (rhs.ndim - gr.ndim) + gr.shape)
    gr = np.array(unbroadcast(gr, rhs.shape), dtype=rhs.dtype)
    return [gl, gr]


def _slice_assign_infer(in_shapes, in_dtypes, key=None, begin=None, end=None,
                        step=None, **_):
    _assign_shape_check(in_shapes[0], in_shapes[1], _slice_key(key, begin, end, step),
                        "_slice_assign")
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("_slice_assign", _slice_assign, arg_names=("lhs", "rhs"),
      infer=_slice_assign_infer, grad=_slice_assign_grad, cost=input_size,
      params=dict(_KEY_PARAMS))


def _slice_assign_scalar(data, scalar=0.0, key=None, begin=None, end=None, step=None):
    out = data.copy()
    out[_slice_key(key, begin, end, step)] = scalar
    return out


def _slice_assign_scalar_grad(ograds, inputs, outputs, scalar=0.0, key=None, begin=None,
                              end=None, step=None):
    g = ograds[0].copy()
    g[_slice_key(key, begin, end, step)] = 0
    return [g]


def _slice_assign_scalar_infer(in_shapes, in_dtypes, scalar=0.0, key=None, begin=None,
                               end=None, step=None, **_):
    _region_shape(in_shapes[0], _slice_key(key, begin, end, step), "_slice_assign_scalar")
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("_slice_assign_scalar", _slice_assign_scalar, infer=_slice_assign_scalar_infer,
      grad=_slice_assign_scalar_grad, cost=input_size,
      params=dict(_KEY_PARAMS, scalar=0.0))


# -- joining and splitting ------------------------------------------------------------
def _check_num_args(opname, n, num_args):
    if n < 1:
        raise ValueError(f"{opname}: needs at least one input")
    if num_args is not None and int(num_args) != n:
        raise ValueError(f"{opname}: num_args={num_args} but {n} inputs were given")


def _concat_infer(in_shapes, in_dtypes, dim=1, num_args=None, **_):
    _check_num_args("concat", len(in_shapes), num_args)
    first = tuple(in_shapes[0])
    d = _axis(dim, len(first), "concat")
    total = 0
    for i, s in enumerate(in_shapes):
        s = tuple(s)
        if len(s) != len(first) or s[:d] + s[d + 1:] != first[:d] + first[d + 1:]:
            raise ValueError(f"concat: input {i} has shape {s}, which does not match "
                             f"input 0 {first} outside dim={dim}")
        total += s[d]
    return [first[:d] + (total,) + first[d + 1:]], [in_dtypes[0]]


def _concat(*data, dim=1, num_args=None):
    _check_num_args("concat", len(data), num_args)
    return np.concatenate(data, axis=_axis(dim, data[0].ndim, "concat"))


def _concat_grad(ograds, inputs, outputs, dim=1, num_args=None):
    d = _axis(dim, inputs[0].ndim, "concat")
    cuts = np.cumsum([x.shape[d] for x in inputs])[:-1]
    return list(np.split(ograds[0], cuts, axis=d))


defop("concat", _concat, variadic=True, infer=_concat_infer, grad=_concat_grad,
      cost=lambda in_shapes, **_: sum(_size(s) for s in in_shapes),
      params={"dim": 1, "num_args": None})


def _stack_infer(in_shapes, in_dtypes, axis=0, num_args=None, **_):
    _check_num_args("stack", len(in_shapes), num_args)
    first = tuple(in_shapes[0])
    for i, s in enumerate(in_shapes):
        if tuple(s) != first:
            raise ValueError(f"stack: input {i} has shape {tuple(s)}, input 0 {first}")
    a = _axis(axis, len(first), "stack", extra=1)
    return [first[:a] + (len(in_shapes),) + first[a:]], [in_dtypes[0]]


def _stack(*data, axis=0, num_args=None):
    _check_num_args("stack", len(data), num_args)
    return np.stack(data, axis=_axis(axis, data[0].ndim, "stack", extra=1))


def _stack_grad(ograds, inputs, outputs, axis=0, num_args=None):
    a = _axis(axis, inputs[0].ndim, "stack", extra=1)
    og = ograds[0]
    return [og[(slice(None),) * a + (i,)] for i in range(len(inputs))]


defop("stack", _stack, variadic=True, infer=_stack_infer, grad=_stack_grad,
      cost=lambda in_shapes, **_: sum(_size(s) for s in in_shapes),
      params={"axis": 0, "num_args": None})


def _split_geometry(shape, num_outputs, axis, opname, squeeze_axis=False):
    if num_outputs is None or int(num_outputs) < 1:
        raise ValueError(f"{opname}: num_outputs={num_outputs!r} must be a positive "
                         f"integer")
    shape = tuple(shape)
    a = _axis(axis, len(shape), opname)
    if shape[a] % int(num_outputs):
        raise ValueError(f"{opname}: dimension {a} of shape {shape} ({shape[a]}) is not "
                         f"divisible by num_outputs={num_outputs}")
    if _bool(squeeze_axis) and shape[a] != int(num_outputs):
        raise ValueError(f"{opname}: squeeze_axis=True needs num_outputs equal to "
                         f"dimension {a} of shape {shape}, got {num_outputs}")
    return a, shape[a] // int(num_outputs)


def _def_split(opname):
    def kernel(data, num_outputs=None, axis=1, squeeze_axis=False):
        a, step = _split_geometry(data.shape, num_outputs, axis, opname, squeeze_axis)
        outs = []
        for i in range(int(num_outputs)):
            if _bool(squeeze_axis):
                outs.append(data[(slice(None),) * a + (i,)])
            else:
                outs.append(data[(slice(None),) * a + (slice(i * step, (i + 1) * step),)])
        return tuple(outs)

    def infer(in_shapes, in_dtypes, num_outputs=None, axis=1, squeeze_axis=False, **_):
        shape = tuple(in_shapes[0])
        a, step = _split_geometry(shape, num_outputs, axis, opname, squeeze_axis)
        if _bool(squeeze_axis):
            out = shape[:a] + shape[a + 1:]
        else:
            out = shape[:a] + (step,) + shape[a + 1:]
        n = int(num_outputs)
        return [out] * n, [in_dtypes[0]] * n

    def grad(ograds, inputs, outputs, num_outputs=None, axis=1, squeeze_axis=False):
        x = inputs[0]
        a, step = _split_geometry(x.shape, num_outputs, axis, opname, squeeze_axis)
        parts = [_og(ograds, i, outputs) for i in range(int(num_outputs))]
        if _bool(squeeze_axis):
            return [np.stack(parts, axis=a)]
        return [np.concatenate(parts, axis=a)]

    defop(opname, kernel, infer=infer, grad=grad, cost=_cheap,
          num_outputs=lambda params: int(params["num_outputs"]),
          params={"num_outputs": None, "axis": 1, "squeeze_axis": False})


# MXNet registers SliceChannel with the alias split; both names are kept here so that
# either spelling (symbol JSON uses SliceChannel, nd.split calls split) finds the op.
_def_split("SliceChannel")
_def_split("split")


# -- selection ---------------------------------------------------------------------
def _where_cond(condition, xshape):
    if condition.shape == tuple(xshape):
        return condition
    if condition.ndim == 1 and len(xshape) >= 1 and condition.shape[0] == xshape[0]:
        return condition.reshape((-1,) + (1,) * (len(xshape) - 1))
    raise ValueError(f"where: condition of shape {condition.shape} must have the shape of "
                     f"x {tuple(xshape)} or be 1-D of length {xshape[0] if xshape else 0}")


def _where(condition, x, y):
    return np.where(_where_cond(condition, x.shape) != 0, x, y).astype(x.dtype, copy=False)


def _where_grad(ograds, inputs, outputs):
    c, x, y = inputs
    mask = _where_cond(c, x.shape) != 0
    og = ograds[0]
    return [np.zeros_like(c), np.where(mask, og, 0).astype(x.dtype, copy=False),
            np.where(mask, 0, og).astype(y.dtype, copy=False)]


def _where_infer(in_shapes, in_dtypes, **_):
    cs, xs, ys = (tuple(s) for s in in_shapes)
    if xs != ys:
        raise ValueError(f"where: x {xs} and y {ys} must have the same shape")
    if cs != xs and not (len(cs) == 1 and xs and cs[0] == xs[0]):
        raise ValueError(f"where: condition of shape {cs} must have the shape of x {xs} "
                         f"or be 1-D of length {xs[0] if xs else 0}")
    return [xs], [in_dtypes[1]]


defop("where", _where, arg_names=("condition", "x", "y"), infer=_where_infer,
      grad=_where_grad, cost=lambda in_shapes, **_: _size(in_shapes[1]))


def _clip(data, a_min=None, a_max=None):
    if a_min is None or a_max is None:
        raise ValueError(f"clip: a_min and a_max are required (a_min={a_min!r}, "
                         f"a_max={a_max!r})")
    return np.clip(data, float(a_min), float(a_max)).astype(data.dtype, copy=False)


def _clip_grad(ograds, inputs, outputs, a_min=None, a_max=None):
    x = inputs[0]
    inside = (x >= float(a_min)) & (x <= float(a_max))
    return [np.where(inside, ograds[0], 0).astype(x.dtype, copy=False)]


defop("clip", _clip, grad=_clip_grad, cost=input_size, params={"a_min": None, "a_max": None})


def _one_hot(indices, depth=None, on_value=1.0, off_value=0.0, dtype="float32"):
    if depth is None or int(depth) < 0:
        raise ValueError(f"one_hot: depth={depth!r} must be a non-negative integer")
    idx = indices.astype(np.int64)
    hot = idx[..., None] == np.arange(int(depth))
    dt = _dtype(dtype)
    out = np.full(hot.shape, off_value, dtype=dt)
    out[hot] = on_value
    return out


def _one_hot_infer(in_shapes, in_dtypes, depth=None, dtype="float32", **_):
    if depth is None or int(depth) < 0:
        raise ValueError(f"one_hot: depth={depth!r} must be a non-negative integer")
    return [tuple(in_shapes[0]) + (int(depth),)], [_dtype(dtype)]


defop("one_hot", _one_hot, arg_names=("indices",), infer=_one_hot_infer, grad=_zeros_grad,
      cost=lambda in_shapes, depth=1, **_: _size(in_shapes[0]) * int(depth or 1),
      params={"depth": None, "on_value": 1.0, "off_value": 0.0, "dtype": "float32"})


def _index(indices, n, mode, opname):
    idx = indices.astype(np.int64)
    if mode == "clip":
        return np.clip(idx, 0, n - 1)
    if mode == "wrap":
        return np.mod(idx, n)
    if mode == "raise":
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"{opname}: index out of range [0, {n}) with mode='raise'")
        return idx
    raise ValueError(f"{opname}: mode={mode!r} must be 'clip', 'wrap' or 'raise'")


def _take_infer(in_shapes, in_dtypes, axis=0, mode="clip", **_):
    a_shape, i_shape = tuple(in_shapes[0]), tuple(in_shapes[1])
    ax = _axis(axis, len(a_shape), "take")
    return [a_shape[:ax] + i_shape + a_shape[ax + 1:]], [in_dtypes[0]]


def _take(a, indices, axis=0, mode="clip"):
    ax = _axis(axis, a.ndim, "take")
    return np.take(a, _index(indices, a.shape[ax], mode, "take"), axis=ax)


def _take_grad(ograds, inputs, outputs, axis=0, mode="clip"):
    a, indices = inputs
    ax = _axis(axis, a.ndim, "take")
    idx = _index(indices, a.shape[ax], mode, "take")
    og = ograds[0]
    k = idx.ndim
    # og is pre + idx.shape + post; gather the index dims in front and scatter-add.
    og_front = np.moveaxis(og, tuple(range(ax, ax + k)), tuple(range(k)))
    og_front = og_front.reshape((idx.size,) + a.shape[:ax] + a.shape[ax + 1:])
    g = np.zeros_like(a)
    np.add.at(np.moveaxis(g, ax, 0), idx.ravel(), og_front)
    return [g, np.zeros_like(indices)]


defop("take", _take, arg_names=("a", "indices"), infer=_take_infer, grad=_take_grad,
      cost=lambda in_shapes, axis=0, mode="clip", **_: _size(_take_infer(
          in_shapes, [None, None], axis)[0][0]),
      params={"axis": 0, "mode": "clip"})


def _pick_geometry(dshape, ishape, axis, keepdims):
    dshape, ishape = tuple(dshape), tuple(ishape)
    ax = _axis(-1 if axis is None else axis, len(dshape), "pick")
    reduced = dshape[:ax] + dshape[ax + 1:]
    kept = dshape[:ax] + (1,) + dshape[ax + 1:]
    if ishape not in (reduced, kept):
        raise ValueError(f"pick: index of shape {ishape} must have shape {reduced} (data "
                         f"{dshape} without axis {ax}) or {kept}")
    return ax, (kept if keepdims else reduced)


def _pick(data, index, axis=-1, keepdims=False, mode="clip"):
    ax, out_shape = _pick_geometry(data.shape, index.shape, axis, keepdims)
    idx = _index(index, data.shape[ax], mode, "pick")
    idx = idx.reshape(data.shape[:ax] + (1,) + data.shape[ax + 1:])
    return np.take_along_axis(data, idx, axis=ax).reshape(out_shape)


def _pick_grad(ograds, inputs, outputs, axis=-1, keepdims=False, mode="clip"):
    data, index = inputs
    ax, _ = _pick_geometry(data.shape, index.shape, axis, keepdims)
    kept = data.shape[:ax] + (1,) + data.shape[ax + 1:]
    idx = _index(index, data.shape[ax], mode, "pick").reshape(kept)
    g = np.zeros_like(data)
    np.put_along_axis(g, idx, ograds[0].reshape(kept), axis=ax)
    return [g, np.zeros_like(index)]


defop("pick", _pick, arg_names=("data", "index"), grad=_pick_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, axis=-1, keepdims=False, **_: (
          [_pick_geometry(in_shapes[0], in_shapes[1], axis, keepdims)[1]],
          [in_dtypes[0]]),
      params={"axis": -1, "keepdims": False, "mode": "clip"})


def _arg_shape(shape, axis, keepdims, opname):
    shape = tuple(shape)
    if axis is None:
        return (1,) * len(shape) if keepdims else (1,)
    ax = _axis(axis, len(shape), opname)
    if keepdims:
        return shape[:ax] + (1,) + shape[ax + 1:]
    return shape[:ax] + shape[ax + 1:] or (1,)


def _def_arg(opname, fn):
    def kernel(data, axis=None, keepdims=False):
        out_shape = _arg_shape(data.shape, axis, keepdims, opname)
        ax = None if axis is None else _axis(axis, data.ndim, opname)
        return fn(data, axis=ax).astype(data.dtype).reshape(out_shape)

    defop(opname, kernel, grad=_zeros_grad, cost=input_size,
          infer=lambda in_shapes, in_dtypes, axis=None, keepdims=False, **_: (
              [_arg_shape(in_shapes[0], axis, keepdims, opname)], [in_dtypes[0]]),
          params={"axis": None, "keepdims": False})


_def_arg("argmax", np.argmax)
_def_arg("argmin", np.argmin)


# -- creation ----------------------------------------------------------------------
defop("zeros_like", lambda data: np.zeros_like(data), grad=_zeros_grad, cost=input_size)
defop("ones_like", lambda data: np.ones_like(data), grad=_zeros_grad, cost=input_size)


def _no_input_grad(ograds, inputs, outputs, **_):
    return []


def _creation_infer(in_shapes, in_dtypes, shape=(), dtype="float32", **_):
    return [parse_tuple(shape)], [_dtype(dtype)]


def _creation_cost(in_shapes, shape=(), **_):
    return _size(parse_tuple(shape))


_CREATION = {"shape": (), "ctx": None, "dtype": "float32"}
defop("_zeros", lambda shape=(), ctx=None, dtype="float32":
      np.zeros(parse_tuple(shape), dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION))
defop("_ones", lambda shape=(), ctx=None, dtype="float32":
      np.ones(parse_tuple(shape), dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION))
defop("_full", lambda shape=(), ctx=None, dtype="float32", value=0.0:
      np.full(parse_tuple(shape), value, dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION, value=0.0))


def _arange_count(start, stop, step):
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise ValueError("_arange: step must not be 0")
    return start, stop, max(0, math.ceil((float(stop) - float(start)) / float(step)))


def _arange(start=0.0, stop=None, step=1.0, repeat=1, infer_range=False, ctx=None,
            dtype="float32"):
    start, stop, n = _arange_count(start, stop, step)
    values = float(start) + float(step) * np.arange(n, dtype=np.float64)
    if int(repeat) > 1:
        values = np.repeat(values, int(repeat))
    return values.astype(_dtype(dtype))


def _arange_infer(in_shapes, in_dtypes, start=0.0, stop=None, step=1.0, repeat=1,
                  dtype="float32", **_):
    if int(repeat) < 1:
        raise ValueError(f"_arange: repeat={repeat} must be at least 1")
    _, _, n = _arange_count(start, stop, step)
    return [(n * int(repeat),)], [_dtype(dtype)]


defop("_arange", _arange, arg_names=(), infer=_arange_infer, grad=_no_input_grad,
      cost=lambda in_shapes, **p: _arange_infer([], [], **p)[0][0][0],
      params={"start": 0.0, "stop": None, "step": 1.0, "repeat": 1, "infer_range": False,
              "ctx": None, "dtype": "float32"})


def _generator(rng):
    return np.random.default_rng() if rng is None else rng


def _sample_dtype(dtype):
    dt = _dtype(dtype)
    if dt not in (np.float32, np.float64):
        return dt, np.dtype(np.float32)
    return dt, dt


def _random_uniform(low=0.0, high=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    dt, gen_dt = _sample_dtype(dtype)
    u = _generator(rng).random(parse_tuple(shape), dtype=gen_dt)
    u *= (float(high) - float(low))
    u += float(low)
    return u.astype(dt, copy=False)


def _random_normal(loc=0.0, scale=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    dt, gen_dt = _sample_dtype(dtype)
    z = _generator(rng).standard_normal(parse_tuple(shape), dtype=gen_dt)
    z *= float(scale)
    z += float(loc)
    return z.astype(dt, copy=False)


def _uniform_infer(in_shapes, in_dtypes, low=0.0, high=1.0, **params):
    # MXNet checks low <= high (and scale > 0 below) when the op is called
    if not float(low) <= float(high):
        raise ValueError(f"_random_uniform: low={low} is greater than high={high}; "
                         "use low <= high")
    return _creation_infer(in_shapes, in_dtypes, **params)


def _normal_infer(in_shapes, in_dtypes, loc=0.0, scale=1.0, **params):
    if not float(scale) >= 0:
        raise ValueError(f"_random_normal: scale={scale} is not allowed; use a "
                         "non-negative standard deviation")
    return _creation_infer(in_shapes, in_dtypes, **params)


_RANDOM = dict(_CREATION, rng=None)
defop("_random_uniform", _random_uniform, arg_names=(), infer=_uniform_infer,
      grad=_no_input_grad, cost=_creation_cost,
      params=dict(_RANDOM, low=0.0, high=1.0))
defop("_random_normal", _random_normal, arg_names=(), infer=_normal_infer,
      grad=_no_input_grad, cost=_creation_cost,
      params=dict(_RANDOM, loc=0.0, scale=1.0))


# -- dtype conversion ------------------------------------------------------------------
def _cast(data, dtype="float32"):
    out = data.astype(_dtype(dtype), copy=False)
    return data.view() if out is data else out


def _cast_grad(ograds, inputs, outputs, dtype="float32"):
    return [ograds[0].astype(inputs[0].dtype, copy=False)]


defop("Cast", _cast, grad=_cast_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, dtype="float32", **_: (
          [tuple(in_shapes[0])], [_dtype(dtype)]),
      params={"dtype": "float32"})
