"""Shape operators: ``reshape`` (MXNet's special codes 0, -1, -2, -3, -4), ``Flatten``,
``expand_dims``, ``transpose``, ``broadcast_to`` and ``broadcast_like``.

Most kernels return views, so their cost is constant (``_cheap``).
"""

import numpy as np

from .elemwise import unbroadcast
from .params import _as, _axis, _cheap, _size, parse_tuple
from .registry import defop, input_size, reads_no_out_grads

__all__ = ["reshape_shape"]


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


defop("Reshape", _reshape, infer=_reshape_infer, grad=_reshape_grad, cost=_cheap,
      grad_reads=lambda p: ((), False),
      params={"shape": (), "reverse": False}, aliases=("reshape",))   # MXNet's name, alias


def _flatten_shape(shape):
    shape = tuple(shape)
    if not shape:
        raise ValueError("Flatten: the input needs at least one dimension")
    return (shape[0], _size(shape[1:]))


def _flatten(data):
    return data.reshape(_flatten_shape(data.shape))


defop("Flatten", _flatten, grad=_reshape_grad, cost=_cheap, aliases=("flatten",),
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
      grad_reads=lambda p: ((), False),
      grad_name="_backward_reshape",
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


def _broadcast_axis_shape(shape, axis, size):
    shape = list(shape)
    axes = parse_tuple(axis, "axis") if axis not in (None, ()) else ()
    sizes = parse_tuple(size, "size") if size not in (None, ()) else ()
    if len(axes) != len(sizes):
        raise ValueError(f"broadcast_axis: axis={tuple(axes)} and size={tuple(sizes)} must "
                         "have the same length")
    for a, n in zip(axes, sizes):
        i = _axis(a, len(shape), "broadcast_axis")
        if shape[i] != 1 and shape[i] != n:
            raise ValueError(f"broadcast_axis: axis {a} has size {shape[i]}, not 1; cannot "
                             f"broadcast it to {n}")
        shape[i] = int(n)
    return tuple(shape)


def _broadcast_axis(data, axis=(), size=()):
    return np.broadcast_to(data, _broadcast_axis_shape(data.shape, axis, size))


defop("broadcast_axis", _broadcast_axis, grad=_broadcast_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, axis=(), size=(), **_: (
          [_broadcast_axis_shape(in_shapes[0], axis, size)], [in_dtypes[0]]),
      params={"axis": (), "size": ()}, aliases=("broadcast_axes",))


def _broadcast_like_shape(lshape, rshape, lhs_axes=None, rhs_axes=None):
    """``rhs``'s shape, or with ``lhs_axes``/``rhs_axes`` the lhs shape whose axes
    ``lhs_axes`` take the sizes of ``rhs``'s axes ``rhs_axes``."""
    lshape, rshape = tuple(lshape), tuple(rshape)
    if lhs_axes is None and rhs_axes is None:
        return _broadcast_to_shape(lshape, rshape)
    la = parse_tuple(lhs_axes, "lhs_axes") if lhs_axes is not None else ()
    ra = parse_tuple(rhs_axes, "rhs_axes") if rhs_axes is not None else ()
    if not la or not ra:   # as MXNet: an axes tuple, when given, names at least one axis
        raise ValueError(f"broadcast_like: lhs_axes={lhs_axes!r} and rhs_axes={rhs_axes!r}: "
                         "an empty axes tuple is not allowed; name the axes in both, or "
                         "leave both out to take rhs's whole shape")
    if len(la) != len(ra):
        raise ValueError(f"broadcast_like: lhs_axes={tuple(la)} and rhs_axes={tuple(ra)} "
                         "must have the same length")
    target = list(lshape)
    for a, b in zip(la, ra):
        i = _axis(a, len(lshape), "broadcast_like")
        target[i] = rshape[_axis(b, len(rshape), "broadcast_like")]
    return _broadcast_to_shape(lshape, tuple(target))


def _broadcast_like(lhs, rhs, lhs_axes=None, rhs_axes=None):
    return np.broadcast_to(lhs, _broadcast_like_shape(lhs.shape, rhs.shape, lhs_axes,
                                                      rhs_axes))


def _broadcast_like_grad(ograds, inputs, outputs, **_):
    return [_broadcast_grad(ograds, inputs[:1], outputs)[0], np.zeros_like(inputs[1])]


defop("broadcast_like", _broadcast_like, arg_names=("lhs", "rhs"),
      grad=_broadcast_like_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, lhs_axes=None, rhs_axes=None, **_: (
          [_broadcast_like_shape(in_shapes[0], in_shapes[1], lhs_axes, rhs_axes)],
          [in_dtypes[0]]),
      params={"lhs_axes": None, "rhs_axes": None})


# -- shape_array, size_array: the shape as data (int64, no gradient) ------------------------
@reads_no_out_grads
def _no_grad(ograds, inputs, outputs, **_):
    return [np.zeros_like(inputs[0])]


defop("shape_array", lambda data: np.asarray(data.shape, dtype=np.int64), grad=_no_grad,
      cost=_cheap, infer=lambda in_shapes, in_dtypes, **_: (
          [(len(in_shapes[0]),)], [np.dtype(np.int64)]))
defop("size_array", lambda data: np.asarray([data.size], dtype=np.int64), grad=_no_grad,
      cost=_cheap, infer=lambda in_shapes, in_dtypes, **_: ([(1,)], [np.dtype(np.int64)]))
