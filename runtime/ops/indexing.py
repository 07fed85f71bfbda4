"""Indexing and selection: slicing (``slice``, ``slice_axis``, the assignments behind
``x[key] = v``), ``where``, ``clip``, ``one_hot``, ``take``, ``pick``, ``argmax``/``argmin``.

Slicing operators take ``key``, a normalized numpy index: a tuple of ``slice`` objects,
ints, ``None``, ``Ellipsis`` and integer numpy arrays (advanced indexing, whose gradient
adds up repeated positions). MXNet's ``begin``/``end``/``step``
parameters are accepted instead of ``key`` (``begin=(0, 1), end=(2, None)``), so a graph
saved by MXNet still loads. Kernels never modify their inputs: ``_slice_assign`` copies,
then assigns.
"""

import numpy as np

from .elemwise import unbroadcast
from .params import _axis, _cheap, _dtype, _size, _zeros_grad, parse_tuple
from .registry import defop, input_size


# -- slicing -----------------------------------------------------------------------
def _parse_key(text):
    """A basic-indexing key from its repr (ints, None, Ellipsis, ``slice(a, b, c)``, in
    tuples): a saved graph's ``key`` parameter. Nothing else is evaluated."""
    import ast

    def value(node):
        if isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis
                                               or type(node.value) is int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Name) and node.id == "Ellipsis":
            return Ellipsis
        if isinstance(node, ast.Tuple):
            return tuple(value(e) for e in node.elts)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "slice" and not node.keywords and len(node.args) <= 3:
            return slice(*[value(a) for a in node.args])
        raise ValueError(f"slice: key {text!r} is not an index (slices, ints, None, "
                         "Ellipsis)")
    try:
        return value(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        raise ValueError(f"slice: key {text!r} is not an index") from None


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
    if isinstance(key, str):     # a key read back from a saved graph (its repr)
        key = _parse_key(key)
    if not isinstance(key, tuple):
        key = tuple(key) if isinstance(key, list) else (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
                and not isinstance(k, bool) or isinstance(k, np.ndarray)
                and k.dtype.kind in "iu"):
            raise ValueError(f"slice: key {key!r} is not an index (slices, ints, None, "
                             f"Ellipsis, integer arrays); element {k!r}")
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


def _slice(data, key=None, begin=None, end=None, step=None, np_shape=False):
    out = data[_slice_key(key, begin, end, step)]
    return out if type(out) is np.ndarray else np.asarray(out).reshape(1)   # see infer


def _slice_grad(ograds, inputs, outputs, key=None, begin=None, end=None, step=None,
                np_shape=False):
    x = inputs[0]
    g = np.zeros_like(x)
    key = _slice_key(key, begin, end, step)
    og = ograds[0]
    if _is_advanced(key):   # repeated positions add up
        np.add.at(g, key, og.reshape(g[key].shape))
    else:
        g[key] = og.reshape(g[key].shape)   # a (1,) result of an all-integer key
    return [g]


def _is_advanced(key):
    return any(type(k) is np.ndarray for k in key)


def _slice_infer(in_shapes, in_dtypes, key=None, begin=None, end=None, step=None,
                 np_shape=False, **_):
    # As in MXNet 1.x (no 0-d arrays): an all-integer key (``x[1]`` on a vector,
    # ``x[0, 1]`` on a matrix) gives shape (1,), not (); the kernel's scalar is stored
    # reshaped. ``np_shape=True`` (``mx.np`` arrays, NumPy's shapes): shape ().
    shape = _region_shape(in_shapes[0], _slice_key(key, begin, end, step))
    return [shape or (() if np_shape else (1,))], [in_dtypes[0]]


# (``key``, xprof's own: an index expression, last so that positional parameters are
# MXNet's begin, end, step)
_KEY_PARAMS = {"begin": None, "end": None, "step": None, "key": None}
defop("slice", _slice, infer=_slice_infer, grad=_slice_grad, cost=_cheap,
      params=dict(_KEY_PARAMS, np_shape=False), aliases=("crop",))


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
      params=dict(_KEY_PARAMS), aliases=("_crop_assign",))


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
      params=dict(_KEY_PARAMS, scalar=0.0), aliases=("_crop_assign_scalar",))


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


def _argmax_channel(data):
    """MXNet's ``argmax_channel``: the argmax over the last axis, as floats."""
    return np.argmax(data, axis=-1).astype(data.dtype)


defop("argmax_channel", _argmax_channel, grad=_zeros_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0][:-1]) or (1,)],
                                               [in_dtypes[0]]))
