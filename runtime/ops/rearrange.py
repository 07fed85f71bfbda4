"""Rearranging elements: ``squeeze``, ``tile``, ``repeat``, ``flip``/``reverse``,
``swapaxes``/``SwapAxis``, ``reshape_like``, ``slice_like``, ``depth_to_space``,
``space_to_depth``, ``diag``, ``Pad``/``pad``. MXNet 1.x names and parameters; each
gradient next to its kernel (the gradient of a rearrangement puts every element's
gradient back where the element came from)."""
import numpy as np

from .params import _cheap, _size, parse_tuple
from .. import util as _util
from .registry import defop, input_size


def _norm_axes(axes, ndim, opname):
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{opname}: axis {a} is out of range for {ndim} dimensions")
        out.append(a % ndim)
    return tuple(out)


# -- squeeze -----------------------------------------------------------------------------
def _squeeze_axes(shape, axis):
    if axis is None or axis == ():
        return tuple(i for i, n in enumerate(shape) if n == 1)
    axes = _norm_axes(parse_tuple(axis, "axis"), len(shape), "squeeze")
    for a in axes:
        if shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {shape[a]}, not 1")
    return axes


def _squeeze_shape(shape, axis):
    axes = _squeeze_axes(shape, axis)
    out = tuple(n for i, n in enumerate(shape) if i not in axes)
    return out or (1,)


def _squeeze(data, axis=None):
    return data.reshape(_squeeze_shape(data.shape, axis))


defop("squeeze", _squeeze, grad=lambda og, i, o, **_: [og[0].reshape(i[0].shape)],
      infer=lambda s, d, axis=None, **_: ([_squeeze_shape(tuple(s[0]), axis)], [d[0]]),
      cost=_cheap, params={"axis": None})


# -- tile, repeat --------------------------------------------------------------------------
def _tile_reps(ndim, reps):
    reps = parse_tuple(reps, "reps")
    if not reps:                       # as numpy.tile: a copy
        return (1,) * ndim
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps={reps} must not be negative")
    if 0 in reps and not _util.is_np_shape():
        raise ValueError(f"tile: reps={reps} has a 0, an empty result; MXNet 1.x allows it "
                         "only under mx.np_shape(True)")
    return reps if len(reps) >= ndim else (1,) * (ndim - len(reps)) + reps


def _tile(data, reps=()):
    return np.tile(data, _tile_reps(data.ndim, reps))


def _tile_grad(ograds, inputs, outputs, reps=()):
    x = inputs[0]
    r = _tile_reps(x.ndim, reps)
    shape = (1,) * (len(r) - x.ndim) + x.shape
    og = ograds[0].reshape(tuple(v for pair in zip(r, shape) for v in pair))
    return [og.sum(axis=tuple(range(0, 2 * len(r), 2))).reshape(x.shape)]


def _tile_infer(in_shapes, in_dtypes, reps=(), **_):
    shape = tuple(in_shapes[0])
    r = _tile_reps(len(shape), reps)
    shape = (1,) * (len(r) - len(shape)) + shape
    return [tuple(a * b for a, b in zip(shape, r))], [in_dtypes[0]]


defop("tile", _tile, infer=_tile_infer, grad=_tile_grad, cost=input_size, params={"reps": ()})


def _repeat(data, repeats=1, axis=None):
    if int(repeats) < 0:
        raise ValueError(f"repeat: repeats={repeats} must not be negative")
    return np.repeat(data, int(repeats), axis=axis)


def _repeat_grad(ograds, inputs, outputs, repeats=1, axis=None):
    x = inputs[0]
    r = int(repeats)
    if axis is None:
        return [ograds[0].reshape(-1, r).sum(axis=1).reshape(x.shape)]
    a = axis % x.ndim
    shape = x.shape[:a] + (x.shape[a], r) + x.shape[a + 1:]
    return [ograds[0].reshape(shape).sum(axis=a + 1)]


def _repeat_infer(in_shapes, in_dtypes, repeats=1, axis=None, **_):
    shape = tuple(in_shapes[0])
    if axis is None:
        return [(_size(shape) * int(repeats),)], [in_dtypes[0]]
    a = _norm_axes((axis,), len(shape), "repeat")[0]
    return [shape[:a] + (shape[a] * int(repeats),) + shape[a + 1:]], [in_dtypes[0]]


defop("repeat", _repeat, infer=_repeat_infer, grad=_repeat_grad, cost=input_size,
      params={"repeats": 1, "axis": None})


# -- flip, swapaxes ----------------------------------------------------------------------
def _flip(data, axis=()):
    axes = _norm_axes(parse_tuple(axis, "axis"), data.ndim, "flip")
    return np.flip(data, axes).copy() if axes else data.copy()


defop("reverse", _flip, grad=lambda og, i, o, axis=(): [_flip(og[0], axis)], cost=input_size,
      params={"axis": ()}, aliases=("flip",))


def _swap(data, dim1=0, dim2=0):
    return np.swapaxes(data, dim1, dim2).copy()


def _swap_infer(in_shapes, in_dtypes, dim1=0, dim2=0, **_):
    shape = list(in_shapes[0])
    a, b = _norm_axes((dim1, dim2), len(shape), "swapaxes")
    shape[a], shape[b] = shape[b], shape[a]
    return [tuple(shape)], [in_dtypes[0]]


defop("SwapAxis", _swap, infer=_swap_infer, cost=input_size, params={"dim1": 0, "dim2": 0},
      grad=lambda og, i, o, dim1=0, dim2=0: [_swap(og[0], dim1, dim2)], aliases=("swapaxes",))


# -- reshape_like, slice_like --------------------------------------------------------------
def _reshape_like_shape(lshape, rshape, lhs_begin=None, lhs_end=None, rhs_begin=None,
                        rhs_end=None):
    lb, le = slice(lhs_begin, lhs_end).indices(len(lshape))[:2]
    rb, re_ = slice(rhs_begin, rhs_end).indices(len(rshape))[:2]
    out = tuple(lshape[:lb]) + tuple(rshape[rb:re_]) + tuple(lshape[le:])
    if _size(out) != _size(lshape):
        raise ValueError(f"reshape_like: cannot reshape {tuple(lshape)} to {out}")
    return out


def _reshape_like(lhs, rhs, **params):
    return lhs.reshape(_reshape_like_shape(lhs.shape, rhs.shape, **params))


_LIKE = {"lhs_begin": None, "lhs_end": None, "rhs_begin": None, "rhs_end": None}
defop("reshape_like", _reshape_like, arg_names=("lhs", "rhs"), cost=_cheap, params=_LIKE,
      infer=lambda s, d, **p: ([_reshape_like_shape(tuple(s[0]), tuple(s[1]), **{
          k: p.get(k) for k in _LIKE})], [d[0]]),
      grad=lambda og, i, o, **_: [og[0].reshape(i[0].shape), np.zeros_like(i[1])])


def _slice_like_key(dshape, sshape, axes):
    axes = _norm_axes(parse_tuple(axes, "axes"), len(dshape), "slice_like") if axes else \
        tuple(range(min(len(dshape), len(sshape))))
    key = [slice(None)] * len(dshape)
    for a in axes:
        if a >= len(sshape):
            raise ValueError(f"slice_like: axis {a} is out of range for shape_like "
                             f"{tuple(sshape)}")
        if sshape[a] > dshape[a]:
            raise ValueError(f"slice_like: shape_like {tuple(sshape)} is larger than data "
                             f"{tuple(dshape)} on axis {a}")
        key[a] = slice(0, sshape[a])
    return tuple(key)


def _slice_like(data, shape_like, axes=()):
    return data[_slice_like_key(data.shape, shape_like.shape, axes)].copy()


def _slice_like_grad(ograds, inputs, outputs, axes=()):
    x, like = inputs
    g = np.zeros_like(x)
    g[_slice_like_key(x.shape, like.shape, axes)] = ograds[0]
    return [g, np.zeros_like(like)]


def _slice_like_infer(in_shapes, in_dtypes, axes=(), **_):
    d, s = tuple(in_shapes[0]), tuple(in_shapes[1])
    key = _slice_like_key(d, s, axes)
    return [tuple(len(range(*k.indices(n))) for k, n in zip(key, d))], [in_dtypes[0]]


defop("slice_like", _slice_like, arg_names=("data", "shape_like"), infer=_slice_like_infer,
      grad=_slice_like_grad, cost=input_size, params={"axes": ()})


# -- depth_to_space, space_to_depth -------------------------------------------------------
def _d2s(data, block_size=1):
    n, c, h, w = data.shape
    b = int(block_size)
    if c % (b * b):
        raise ValueError(f"depth_to_space: channels {c} are not a multiple of "
                         f"block_size^2={b * b}")
    x = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return x.reshape(n, c // (b * b), h * b, w * b)


def _s2d(data, block_size=1):
    n, c, h, w = data.shape
    b = int(block_size)
    if h % b or w % b:
        raise ValueError(f"space_to_depth: height {h} and width {w} must be multiples of "
                         f"block_size={b}")
    x = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


def _check4(opname, shape, block_size=1):
    if len(shape) != 4:
        raise ValueError(f"{opname}: data must be 4-D (NCHW), got shape {tuple(shape)}")
    if int(block_size) < 1:
        raise ValueError(f"{opname}: block_size={block_size} must be a positive int")
    if 0 in tuple(shape):
        raise ValueError(f"{opname}: data of shape {tuple(shape)} has an empty dimension")


def _d2s_infer(s, d, block_size=1, **_):
    _check4("depth_to_space", s[0], block_size)
    n, c, h, w = s[0]
    b = int(block_size)
    if c % (b * b):
        raise ValueError(f"depth_to_space: channels {c} are not a multiple of {b * b}")
    return [(n, c // (b * b), h * b, w * b)], [d[0]]


def _s2d_infer(s, d, block_size=1, **_):
    _check4("space_to_depth", s[0], block_size)
    n, c, h, w = s[0]
    b = int(block_size)
    if h % b or w % b:
        raise ValueError(f"space_to_depth: height {h} and width {w} must be multiples of {b}")
    return [(n, c * b * b, h // b, w // b)], [d[0]]


defop("depth_to_space", _d2s, infer=_d2s_infer, cost=input_size, params={"block_size": 1},
      grad=lambda og, i, o, block_size=1: [_s2d(og[0], block_size)])
defop("space_to_depth", _s2d, infer=_s2d_infer, cost=input_size, params={"block_size": 1},
      grad=lambda og, i, o, block_size=1: [_d2s(og[0], block_size)])


# -- diag ----------------------------------------------------------------------------------
def _diag(data, k=0, axis1=0, axis2=1):
    if data.ndim == 1:
        return np.diag(data, k)
    return np.diagonal(data, k, axis1, axis2).copy()


def _diag_grad(ograds, inputs, outputs, k=0, axis1=0, axis2=1):
    x = inputs[0]
    if x.ndim == 1:
        return [np.diagonal(ograds[0], k).copy()]
    g = np.zeros_like(x)
    view = np.diagonal(g, k, axis1, axis2)
    view.setflags(write=True)
    view[...] = ograds[0]
    return [g]


def _diag_infer(in_shapes, in_dtypes, k=0, axis1=0, axis2=1, **_):
    shape = tuple(in_shapes[0])
    if len(shape) >= 2:
        n1, n2 = shape[axis1], shape[axis2]
        if not -n1 < int(k) < n2:
            raise ValueError(f"diag: k={k} is out of range for a {n1}x{n2} matrix "
                             f"(allowed: {-n1 + 1} to {n2 - 1})")
    probe = np.empty(shape, dtype=np.bool_)
    return [_diag(probe, k, axis1, axis2).shape], [in_dtypes[0]]


defop("diag", _diag, infer=_diag_infer, grad=_diag_grad, cost=input_size,
      params={"k": 0, "axis1": 0, "axis2": 1})


# -- Pad -----------------------------------------------------------------------------------
_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect"}


def _pad_width(ndim, pad_width):
    pw = parse_tuple(pad_width, "pad_width")
    if len(pw) != 2 * ndim:
        raise ValueError(f"Pad: pad_width has {len(pw)} values, expected 2 per dimension "
                         f"({2 * ndim})")
    return [(pw[2 * i], pw[2 * i + 1]) for i in range(ndim)]


def _pad(data, mode="constant", pad_width=(), constant_value=0.0):
    if mode not in _PAD_MODES:
        raise ValueError(f"Pad: mode={mode!r} is not one of {', '.join(_PAD_MODES)}")
    width = _pad_width(data.ndim, pad_width)
    if mode == "constant":
        return np.pad(data, width, mode="constant", constant_values=constant_value)
    return np.pad(data, width, mode=_PAD_MODES[mode])


def _pad_grad(ograds, inputs, outputs, mode="constant", pad_width=(), constant_value=0.0):
    x = inputs[0]
    width = _pad_width(x.ndim, pad_width)
    if mode == "constant":
        key = tuple(slice(b, b + n) for (b, _), n in zip(width, x.shape))
        return [ograds[0][key].copy()]
    # edge/reflect: each output element's gradient goes to the input element it copies
    idx = np.pad(np.arange(x.size).reshape(x.shape), width, mode=_PAD_MODES[mode])
    g = np.zeros(x.size, dtype=ograds[0].dtype)
    np.add.at(g, idx.reshape(-1), ograds[0].reshape(-1))
    return [g.reshape(x.shape).astype(x.dtype)]


def _pad_infer(in_shapes, in_dtypes, mode="constant", pad_width=(), **_):
    width = _pad_width(len(in_shapes[0]), pad_width)
    return [tuple(n + a + b for n, (a, b) in zip(in_shapes[0], width))], [in_dtypes[0]]


defop("Pad", _pad, infer=_pad_infer, grad=_pad_grad, cost=input_size,
      params={"mode": "constant", "pad_width": (), "constant_value": 0.0}, aliases=("pad",))
