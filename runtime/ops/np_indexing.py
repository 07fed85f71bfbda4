"""MXNet 2's NumPy shape and indexing operators: ``_npx_reshape`` (NumPy's reshape and
``npx.reshape``'s special codes), ``_npi_transpose``, and the operators behind
``x[key]``/``x[key] = v`` that MXNet 1.x's ``slice`` (basic indexing, with
``np_shape=True``) does not cover: ``_npi_advanced_indexing`` (integer arrays, read as
op inputs, so ``x[idx]`` waits for nothing), ``_npi_boolean_mask`` (a mask: the output's
size is the mask's count, given by the caller), ``_npi_boolean_mask_assign_scalar``/
``_tensor`` and ``_scatter_set_nd`` (assignments).

An index key is a *template*: a tuple of ints, slices, ``None``, ``Ellipsis`` and
:data:`SLOT`, which stands for the next index-array input.
"""
import numpy as np

from .elemwise import unbroadcast
from .np_elemwise import result_type
from .params import _cheap, parse_tuple
from .rearrange import _squeeze_axes
from .registry import defop, derive, input_size
from .params import _size

__all__ = ["SLOT", "npx_reshape_shape", "fill_key"]


class _Slot:
    """The place of an index array in a key template."""

    __slots__ = ()

    def __repr__(self):
        return "<array>"


SLOT = _Slot()


def fill_key(template, arrays):
    """The numpy key: ``template`` with each :data:`SLOT` replaced by the next array."""
    it = iter(arrays)
    return tuple(next(it) if k is SLOT else k for k in template)


def _probe_key(template, shapes):
    return fill_key(template, [np.zeros(s, dtype=np.intp) for s in shapes])


def _region(shape, key, opname):
    probe = np.broadcast_to(np.empty((), dtype=np.int8), tuple(shape))
    try:
        return probe[key].shape
    except IndexError as e:
        raise IndexError(f"{opname}: index {key!r} is out of range for shape "
                         f"{tuple(shape)}: {e}") from None


# -- reshape -------------------------------------------------------------------------------
def npx_reshape_shape(src, spec, reverse=False):
    """The shape ``npx.reshape(x, spec)`` gives an ``x`` of shape ``src``.

    Special values (MXNet 2's): -1 infers one dimension; -2 copies this input
    dimension; -3 drops this input dimension (of size 1); -4 copies every remaining
    input dimension; -5 merges two consecutive input dimensions; -6 splits one input
    dimension into the next two values (one may be -1). ``reverse`` matches them from
    the right. NumPy's reshape is the case with only sizes and one -1."""
    src = tuple(int(n) for n in src)
    spec = parse_tuple(spec, "newshape")
    if reverse:
        src = src[::-1]
        spec = _reverse(spec)
    out, i, j, infer_at = [], 0, 0, None
    while j < len(spec):
        v = spec[j]
        if v >= 0:
            out.append(v)
            i += 1
        elif v == -1:
            if infer_at is not None:
                raise ValueError(f"reshape: newshape={spec} has more than one -1")
            infer_at = len(out)
            out.append(1)
            i += 1
        elif v == -2:
            out.append(src[i])
            i += 1
        elif v == -3:
            if i >= len(src) or src[i] != 1:
                raise ValueError(f"reshape: -3 drops a dimension of size 1, input dimension "
                                 f"{i} of {src} is not 1")
            i += 1
        elif v == -4:
            out.extend(src[i:])
            i = len(src)
        elif v == -5:
            out.append(src[i] * src[i + 1])
            i += 2
        elif v == -6:
            d1, d2 = spec[j + 1], spec[j + 2]
            if d1 == -1:
                d1 = src[i] // d2
            if d2 == -1:
                d2 = src[i] // d1
            if d1 * d2 != src[i]:
                raise ValueError(f"reshape: -6 splits dimension {src[i]} into {d1} x {d2}")
            out.extend((d1, d2))
            i += 1
            j += 2
        else:
            raise ValueError(f"reshape: {v} in newshape={spec} is not allowed")
        j += 1
    total = _size(src)
    if infer_at is not None:
        known = _size(out[:infer_at] + out[infer_at + 1:])
        if known == 0 or total % known:
            raise ValueError(f"cannot reshape array of size {total} into shape "
                             f"{tuple(spec)}")
        out[infer_at] = total // known
    if _size(out) != total:
        raise ValueError(f"cannot reshape array of size {total} into shape {tuple(spec)}")
    return tuple(out[::-1]) if reverse else tuple(out)


def _reverse(spec):
    """MXNet 2's ``reverse``: the spec read backwards (a -6 comes after its two values)."""
    return tuple(spec)[::-1]


def _reshape(data, newshape=(), reverse=False, order="C"):
    return data.reshape(npx_reshape_shape(data.shape, newshape, reverse))


derive("_npx_reshape", "reshape", "_backward_reshape", kernel=_reshape,
       infer=lambda in_shapes, in_dtypes, newshape=(), reverse=False, **_: (
           [npx_reshape_shape(in_shapes[0], newshape, reverse)], [in_dtypes[0]]),
       grad=lambda ograds, inputs, outputs, **_: [ograds[0].reshape(inputs[0].shape)],
       arg_names=("a",), params={"newshape": (), "reverse": False, "order": "C"})
derive("_npi_transpose", "transpose", "_npi_transpose")


# -- advanced indexing: integer arrays as inputs -------------------------------------------
def _adv(data, *indices, key=()):
    return data[fill_key(key, indices)]


def _adv_infer(in_shapes, in_dtypes, key=(), **_):
    return [_region(in_shapes[0], _probe_key(key, in_shapes[1:]), "index")], [in_dtypes[0]]


def _adv_grad(ograds, inputs, outputs, key=()):
    data = inputs[0]
    g = np.zeros_like(data)
    k = fill_key(key, inputs[1:])
    np.add.at(g, k, ograds[0].reshape(g[k].shape))
    return [g] + [None] * (len(inputs) - 1)


for _name, _gname in (("_npi_advanced_indexing", "_backward_np_advanced_indexing"),
                      ("_npi_advanced_indexing_multiple",
                       "_backward_np_advanced_indexing_multiple")):
    defop(_name, _adv, arg_names=("data", "indices"), variadic=True, infer=_adv_infer,
          grad=_adv_grad, grad_name=_gname, cost=_cheap, params={"key": ()})


def _scatter_set(data, value, *indices, key=()):
    out = data.copy()
    out[fill_key(key, indices)] = value
    return out


def _scatter_set_grad(ograds, inputs, outputs, key=()):
    data, value = inputs[0], inputs[1]
    k = fill_key(key, inputs[2:])
    gd = ograds[0].copy()
    gd[k] = 0
    gv = np.zeros(gd[k].shape, dtype=ograds[0].dtype) + ograds[0][k]
    while gv.ndim > value.ndim and gv.shape[0] == 1:
        gv = gv[0]
    return [gd, np.asarray(unbroadcast(gv, value.shape), dtype=value.dtype)] + \
        [None] * (len(inputs) - 2)


defop("_scatter_set_nd", _scatter_set, arg_names=("data", "value", "indices"), variadic=True,
      infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0])], [in_dtypes[0]]),
      grad=_scatter_set_grad, cost=input_size, params={"key": ()})


# -- boolean masks -------------------------------------------------------------------------------
def _mask_infer(in_shapes, in_dtypes, num_selected=0, **_):
    data, mask = tuple(in_shapes[0]), tuple(in_shapes[1])
    if data[:len(mask)] != mask:
        raise IndexError(f"boolean index of shape {mask} does not match the indexed "
                         f"array's shape {data}")
    return [(int(num_selected),) + data[len(mask):]], [in_dtypes[0]]


def _mask_grad(ograds, inputs, outputs, num_selected=0):
    data, mask = inputs
    g = np.zeros_like(data)
    g[mask.astype(bool)] = ograds[0]
    return [g, None]


defop("_npi_boolean_mask", lambda data, mask, num_selected=0: data[mask.astype(bool)],
      arg_names=("data", "index"), infer=_mask_infer, grad=_mask_grad,
      grad_name="_backward_np_boolean_mask", cost=input_size, params={"num_selected": 0})


def _mask_assign(data, mask, value=0.0, start_axis=0):
    out = data.copy()
    out[_mask_index(mask, start_axis)] = value
    return out


def _mask_assign_tensor(data, mask, value, start_axis=0):
    out = data.copy()
    m = _mask_index(mask, start_axis)
    region = out[m].shape
    v = value
    while v.ndim > len(region) and v.shape[0] == 1:
        v = v[0]
    out[m] = np.broadcast_to(v, region) if v.shape != region else v
    return out


def _mask_index(mask, start_axis):
    return (slice(None),) * int(start_axis) + (mask.astype(bool),)


def _mask_assign_grad(ograds, inputs, outputs, value=0.0, start_axis=0):
    g = ograds[0].copy()
    g[_mask_index(inputs[1], start_axis)] = 0
    return [g, None]


def _mask_assign_tensor_grad(ograds, inputs, outputs, start_axis=0):
    data, mask, value = inputs
    m = _mask_index(mask, start_axis)
    g = ograds[0].copy()
    gv = g[m]
    g[m] = 0
    while gv.ndim > value.ndim:
        gv = gv.sum(axis=0)
    return [g, None, np.asarray(unbroadcast(gv, value.shape), dtype=value.dtype)]


_same_as_data = lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0])], [in_dtypes[0]])  # noqa: E731
defop("_npi_boolean_mask_assign_scalar", _mask_assign, arg_names=("data", "mask"),
      infer=_same_as_data, grad=_mask_assign_grad, cost=input_size,
      params={"value": 0.0, "start_axis": 0})
defop("_npi_boolean_mask_assign_tensor", _mask_assign_tensor,
      arg_names=("data", "mask", "value"), infer=_same_as_data,
      grad=_mask_assign_tensor_grad, cost=input_size, params={"start_axis": 0})


# -- where: broadcasting, NumPy's result dtype -----------------------------------------------
def _np_where(condition, x, y):
    return np.where(condition.astype(bool), x, y)


def _np_where_infer(in_shapes, in_dtypes, **_):
    shape = np.broadcast_shapes(*[tuple(s) for s in in_shapes])
    return [shape], [result_type(in_dtypes[1], in_dtypes[2])]


def _np_where_grad(ograds, inputs, outputs):
    c, x, y = inputs
    mask = np.broadcast_to(c.astype(bool), ograds[0].shape)
    og = ograds[0]
    return [None, np.asarray(unbroadcast(np.where(mask, og, 0), x.shape), dtype=x.dtype),
            np.asarray(unbroadcast(np.where(mask, 0, og), y.shape), dtype=y.dtype)]


defop("_npi_where", _np_where, arg_names=("condition", "x", "y"), infer=_np_where_infer,
      grad=_np_where_grad, cost=input_size)

# MXNet 2's names for 1.x's shape operators (same kernels and gradients)
derive("_npi_flip", "reverse", "_backward_npi_flip")
def _np_squeeze_shape(shape, axis):
    axes = _squeeze_axes(tuple(shape), axis)
    return tuple(n for i, n in enumerate(shape) if i not in axes)     # () allowed


derive("_npi_squeeze", "squeeze", "_backward_squeeze",
       kernel=lambda data, axis=None: data.reshape(_np_squeeze_shape(data.shape, axis)),
       infer=lambda in_shapes, in_dtypes, axis=None, **_: (
           [_np_squeeze_shape(in_shapes[0], axis)], [in_dtypes[0]]))
derive("_npi_broadcast_to", "broadcast_to", "_backward_np_broadcast_to",
       kernel=lambda data, shape=(): np.broadcast_to(data, parse_tuple(shape)),
       infer=lambda in_shapes, in_dtypes, shape=(), **_: (
           [np.broadcast_shapes(tuple(in_shapes[0]), parse_tuple(shape))], [in_dtypes[0]]),
       grad=lambda ograds, inputs, outputs, **_: [
           np.asarray(unbroadcast(ograds[0], inputs[0].shape), dtype=inputs[0].dtype)])


# -- roll ---------------------------------------------------------------------------------
def _roll_args(shift, axis):
    if axis is None:
        return (shift if isinstance(shift, int) else tuple(shift)), None
    return tuple(shift) if not isinstance(shift, int) else shift, \
        (axis if isinstance(axis, int) else tuple(axis))


def _roll(data, shift=None, axis=None):
    return np.roll(data, *_roll_args(shift, axis))


def _roll_grad(ograds, inputs, outputs, shift=None, axis=None):
    shift, axis = _roll_args(shift, axis)
    back = -shift if isinstance(shift, int) else tuple(-s for s in shift)
    return [np.roll(ograds[0], back, axis)]


defop("_npi_roll", _roll, arg_names=("data",), grad=_roll_grad, cost=input_size,
      params={"shift": None, "axis": None})
