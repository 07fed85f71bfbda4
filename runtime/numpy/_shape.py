"""``mx.np``'s shape functions: ``reshape``, ``transpose``, ``swapaxes``, ``moveaxis``,
``expand_dims``, ``squeeze``, ``ravel``, ``broadcast_to``, ``concatenate``, ``stack``,
``split``, ``tile``, ``repeat``, ``flip``, ``clip``, ``where``, ``take``... Thin front
doors over the operators MXNet 2 runs for them (1.x's ``Concat``, ``stack``, ``tile``,
``_split_v2``, ``SwapAxis``... keep their 1.x names in MXNet 2's profiles too).
"""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, invoke
from .multiarray import to_np

__all__ = ["reshape", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze",
           "ravel", "broadcast_to", "concatenate", "concat", "stack", "split",
           "array_split", "tile", "repeat", "flip", "clip", "where", "take", "shape",
           "ndim", "size", "atleast_1d", "atleast_2d", "atleast_3d", "vstack", "hstack",
           "row_stack", "column_stack", "dstack", "append", "roll", "rot90", "fliplr",
           "flipud", "vsplit", "hsplit", "dsplit", "permute_dims", "broadcast_arrays",
           "sort", "argsort", "around", "round", "round_", "tril", "triu", "diagonal",
           "trace", "diag"]


def reshape(a, newshape=None, order="C", shape=None):
    return to_np(a).reshape(newshape if newshape is not None else shape, order=order)


def transpose(a, axes=None):
    return to_np(a).transpose(axes)


permute_dims = transpose


def swapaxes(a, axis1, axis2):
    return invoke("SwapAxis", (to_np(a),), {"dim1": int(axis1), "dim2": int(axis2)})


def moveaxis(a, source, destination):
    a = to_np(a)
    src = [source] if isinstance(source, numbers.Integral) else list(source)
    dst = [destination] if isinstance(destination, numbers.Integral) else list(destination)
    src = [s % a.ndim for s in src]
    dst = [d % a.ndim for d in dst]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def expand_dims(a, axis):
    a = to_np(a)
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = a
    nd = a.ndim + len(axes)
    for ax in sorted(x % nd for x in axes):
        out = invoke("expand_dims", (out,), {"axis": ax})
    return out


def squeeze(a, axis=None):
    a = to_np(a)
    if axis is not None:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        if not a.ndim and all(ax in (0, -1) for ax in axes):
            axis = None       # a 0-d array's only axis, as numpy allows
        for ax in axes if a.ndim else ():
            if a.shape[ax] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
    return invoke("_npi_squeeze", (a,), {"axis": axis})


def ravel(x, order="C"):
    return to_np(x).reshape(-1, order=order)


def broadcast_to(array, shape):
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    a = to_np(array)
    if -2 in shape:      # MXNet's: -2 keeps the input's size there (aligned on the right)
        lead = len(shape) - a.ndim
        shape = tuple(a.shape[i - lead] if s == -2 and i >= lead else s
                      for i, s in enumerate(shape))
    try:
        _np.broadcast_shapes(a.shape, shape)
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {a.shape} and requested shape {shape}") \
            from None
    return invoke("_npi_broadcast_to", (a,), {"shape": shape})


def broadcast_arrays(*arrays):
    arrays = [to_np(a) for a in arrays]
    shape = _np.broadcast_shapes(*[a.shape for a in arrays])
    return [broadcast_to(a, shape) for a in arrays]


def concatenate(seq, axis=0, out=None):
    arrays = [to_np(a) for a in seq]
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    return invoke("concat", tuple(arrays), {"dim": int(axis), "num_args": len(arrays)},
                  out=out)


concat = concatenate


def stack(arrays, axis=0, out=None):
    arrays = [to_np(a) for a in arrays]
    return invoke("stack", tuple(arrays), {"axis": int(axis), "num_args": len(arrays)},
                  out=out)


def _split(ary, indices_or_sections, axis, name, equal):
    """One ``_split_v2`` op (MXNet 2's): equal sections, or the split points."""
    ary = to_np(ary)
    axis = int(axis) % max(ary.ndim, 1)
    dim = ary.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and dim % n:
            raise ValueError("array split does not result in an equal division")
        if dim % n == 0:
            params = {"indices": (), "sections": n}
        else:
            sizes = [dim // n + (1 if i < dim % n else 0) for i in range(n)]
            params = {"indices": (0,) + tuple(int(p) for p in _np.cumsum(sizes)[:-1]),
                      "sections": 0}
    else:
        params = {"indices": (0,) + tuple(min(max(int(i), 0), dim)
                                          for i in indices_or_sections), "sections": 0}
    out = invoke("_split_v2", (ary,), dict(params, axis=axis, squeeze_axis=False))
    return list(out) if isinstance(out, list) else [out]


def split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, "split", True)


def array_split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, "array_split", False)


def vsplit(ary, indices_or_sections):
    if to_np(ary).ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 1 if to_np(ary).ndim > 1 else 0)


def dsplit(ary, indices_or_sections):
    if to_np(ary).ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def tile(A, reps):
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    return invoke("tile", (to_np(A),), {"reps": reps})


def repeat(a, repeats, axis=None):
    a = to_np(a)
    if isinstance(repeats, NDArray):
        repeats = repeats.item() if repeats.size == 1 else repeats.asnumpy().tolist()
    if not isinstance(repeats, numbers.Integral):
        raise NotImplementedError("repeat: repeats must be one integer")
    if axis is None:
        a, axis = a.reshape(-1), 0
    return invoke("repeat", (a,), {"repeats": int(repeats), "axis": int(axis)})


def flip(m, axis=None):
    m = to_np(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        (axis,) if isinstance(axis, numbers.Integral) else tuple(axis))
    return invoke("_npi_flip", (m,), {"axis": axes})


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Op ``_npi_roll`` (MXNet 2's)."""
    shift = int(shift) if isinstance(shift, numbers.Integral) else tuple(int(s) for s in shift)
    if axis is not None:
        axis = int(axis) if isinstance(axis, numbers.Integral) else tuple(int(x) for x in axis)
    return invoke("_npi_roll", (to_np(a),), {"shift": shift, "axis": axis})


def rot90(m, k=1, axes=(0, 1)):
    m = to_np(m)
    k %= 4
    a0, a1 = axes
    for _ in range(k):
        m = swapaxes(flip(m, a1), a0, a1)
    return m


def clip(a, a_min, a_max, out=None):
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    a = to_np(a)
    if a_min is None or a_max is None:     # one bound: maximum / minimum with a scalar
        name, bound = ("_npi_minimum_scalar", a_max) if a_min is None else \
            ("_npi_maximum_scalar", a_min)
        return invoke(name, (a,), {"scalar": bound}, out=out)
    return invoke("clip", (a,), {"a_min": a_min, "a_max": a_max}, out=out)


def where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    c = to_np(condition)
    like = x if isinstance(x, NDArray) else y if isinstance(y, NDArray) else None
    return invoke("_npi_where", (c, to_np(x, like), to_np(y, like)), {})


def nonzero(a):
    """The indices of the nonzero elements: their count sets the output shapes, so
    ``a`` is read (a sync point, as in MXNet)."""
    a = to_np(a)
    values = _np.nonzero(a.asnumpy())
    return tuple(to_np(v.astype(_np.int64)) for v in values)


def take(a, indices, axis=None, mode="raise", out=None):
    a = to_np(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    idx = to_np(indices, dtype=_np.int64) if not isinstance(indices, NDArray) else indices
    if mode == "raise":
        mode = "clip"
    return invoke("take", (a, to_np(idx)), {"axis": int(axis), "mode": mode}, out=out)


def shape(a):
    return to_np(a).shape


def ndim(a):
    return to_np(a).ndim


def size(a, axis=None):
    a = to_np(a)
    return a.size if axis is None else a.shape[axis]


def atleast_1d(*arys):
    res = [to_np(a) if to_np(a).ndim >= 1 else to_np(a).reshape(1) for a in arys]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = to_np(a)
        res.append(a if a.ndim >= 2 else a.reshape((1,) * (2 - a.ndim) + a.shape))
    return res[0] if len(res) == 1 else res


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = to_np(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, -1, 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        res.append(a)
    return res[0] if len(res) == 1 else res


def vstack(arrays, out=None):
    return concatenate([atleast_2d(a) for a in arrays], axis=0, out=out)


row_stack = vstack


def hstack(arrays):
    arrays = [atleast_1d(a) for a in arrays]
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def dstack(arrays):
    return concatenate([atleast_3d(a) for a in arrays], axis=2)


def column_stack(tup):
    arrays = []
    for a in tup:
        a = to_np(a)
        arrays.append(a.reshape(-1, 1) if a.ndim < 2 else a)
    return concatenate(arrays, axis=1)


def append(arr, values, axis=None):
    arr, values = to_np(arr), to_np(values)
    if axis is None:
        return concatenate([arr.reshape(-1), values.reshape(-1)], axis=0)
    return concatenate([arr, values], axis=axis)



def sort(a, axis=-1, kind=None, order=None):
    """Sorted along ``axis`` (None: flattened): 1.x's ``sort`` (MXNet 2 runs it too)."""
    a = to_np(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    return invoke("sort", (a,), {"axis": int(axis), "is_ascend": True})


def argsort(a, axis=-1, kind=None, order=None):
    a = to_np(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    return invoke("argsort", (a,), {"axis": int(axis), "is_ascend": True,
                                    "dtype": "int64"})


def around(a, decimals=0, out=None):
    return invoke("_npi_around", (to_np(a),), {"decimals": int(decimals)}, out=out)


round = round_ = around   # noqa: A001 - NumPy's names


def tril(m, k=0):
    return invoke("_npi_tril", (to_np(m),), {"k": int(k)})


def triu(m, k=0):
    return invoke("_npi_triu", (to_np(m),), {"k": int(k)})


def diagonal(a, offset=0, axis1=0, axis2=1):
    return invoke("_npi_diagonal", (to_np(a),), {"offset": int(offset), "axis1": int(axis1),
                                                 "axis2": int(axis2)})


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    return invoke("_npi_trace", (to_np(a),), {"offset": int(offset), "axis1": int(axis1),
                                              "axis2": int(axis2)}, out=out)


def diag(v, k=0):
    v = to_np(v)
    if v.ndim not in (1, 2):
        raise ValueError("Input must be 1- or 2-d.")
    return invoke("_npi_diag", (v,), {"k": int(k)})
