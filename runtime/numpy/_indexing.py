"""NumPy indexing of ``mx.np.ndarray``: ``x[key]`` and ``x[key] = value``.

- Basic keys (ints, slices, ``None``, ``...``): MXNet's ``slice`` operator with
  ``np_shape=True`` (``x[1, 2]`` is 0-d); assignments ``_slice_assign`` and
  ``_slice_assign_scalar`` (MXNet's names).
- Integer arrays (np arrays, lists, numpy arrays), alone or mixed with basic entries:
  ``_npi_advanced_indexing`` (``_multiple`` with several arrays), the index arrays being
  op inputs, so nothing waits; assignments ``_scatter_set_nd``.
- A boolean mask alone (``x[x > 0]``): ``_npi_boolean_mask``. Its output's size is the
  mask's count, so the mask is read first (a sync point, as in MXNet); a mask
  assignment keeps the shape and waits for nothing (``_npi_boolean_mask_assign_*``).
  A boolean array mixed with other entries is read and turned into integer arrays.
"""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, from_numpy, invoke
from ..ops.np_indexing import SLOT
from .multiarray import ndarray, to_np

__all__ = ["getitem", "setitem", "split_key"]

_FULL = slice(None)


def _int_index(k, dim, axis):
    k = int(k)
    if not -dim <= k < dim:
        raise IndexError(f"index {k} is out of bounds for axis {axis} with size {dim}")
    return k % dim


def split_key(x, key):
    """``(template, arrays, mask)``: the key with every index array replaced by
    :data:`SLOT` and those arrays (np arrays, in order); or, for a lone boolean mask,
    ``(None, None, mask)``."""
    if not isinstance(key, tuple):
        if isinstance(key, NDArray) and key._dtype.kind == "b":
            return None, None, to_np(key)
        if isinstance(key, (_np.ndarray, list)) and _np.asarray(key).dtype == bool:
            return None, None, to_np(_np.asarray(key))
        key = (key,)
    shape = x.shape
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis and not (
        isinstance(k, (NDArray, _np.ndarray)) and k.dtype == bool))
    n_axes += sum(k.ndim for k in key if isinstance(k, (NDArray, _np.ndarray))
                  and k.dtype == bool)
    if n_axes > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {n_axes} were indexed")
    template, arrays, axis = [], [], 0
    for k in key:
        if k is None:
            template.append(None)
            continue
        if k is Ellipsis:
            template.append(Ellipsis)
            axis = len(shape) - (n_axes - axis)
            continue
        if isinstance(k, slice):
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            template.append(k)
        elif isinstance(k, (bool, _np.bool_)):
            raise IndexError("xprof: a boolean scalar in an index is not supported")
        elif isinstance(k, numbers.Integral) or (isinstance(k, NDArray) and not k.shape
                                                 and k._dtype.kind in "iu"):
            template.append(_int_index(k, shape[axis], axis))
        else:
            if not isinstance(k, NDArray):
                k = _np.asarray(k)
                if k.dtype.kind == "f" and k.size == 0:
                    k = k.astype(_np.int64)
            if k.dtype == bool:       # read now: its positions are integer arrays
                values = k.asnumpy() if isinstance(k, NDArray) else k
                for part in _np.nonzero(values):
                    template.append(SLOT)
                    arrays.append(from_numpy(part.astype(_np.int64), x.context, "index",
                                             ndarray))
                axis += values.ndim
                continue
            if k.dtype.kind == "f" and isinstance(k, NDArray):   # MXNet casts them
                k = to_np(k).astype("int64")
            if k.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) "
                                 f"type, not {k.dtype}")
            template.append(SLOT)
            arrays.append(to_np(k) if isinstance(k, NDArray) else
                          from_numpy(k, x.context, "index", ndarray))
        axis += 1
    return tuple(template), arrays, None


def getitem(x, key):
    if type(key) is int:
        n = x.shape[0] if x.shape else 0
        if not x.shape:
            raise IndexError("too many indices for array: array is 0-dimensional")
        if not -n <= key < n:
            raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
        return invoke("slice", (x,), {"key": (key % n,), "np_shape": True})
    if type(key) is tuple and not key:
        return x
    template, arrays, mask = split_key(x, key)
    if mask is not None:
        count = int(_np.count_nonzero(mask.asnumpy()))    # the output's size: a sync
        return invoke("_npi_boolean_mask", (x, mask), {"num_selected": count})
    if not arrays:
        return invoke("slice", (x,), {"key": template, "np_shape": True})
    name = "_npi_advanced_indexing" if len(arrays) == 1 else "_npi_advanced_indexing_multiple"
    return invoke(name, (x, *arrays), {"key": template})


def setitem(x, key, value):
    template, arrays, mask = split_key(x, key)
    if mask is not None:
        if isinstance(value, numbers.Number) and not isinstance(value, NDArray):
            invoke("_npi_boolean_mask_assign_scalar", (x, mask), {"value": value}, out=x)
        else:
            invoke("_npi_boolean_mask_assign_tensor", (x, mask, to_np(value, x, x._dtype)),
                   {}, out=x)
        return
    if arrays:
        value = to_np(value, x, x._dtype)
        invoke("_scatter_set_nd", (x, value, *arrays), {"key": template}, out=x)
        return
    full = all(k is Ellipsis or type(k) is slice and k == _FULL for k in template)
    if isinstance(value, numbers.Number) and not isinstance(value, NDArray):
        if full:
            invoke("_npi_full", (), {"shape": x.shape, "dtype": x._dtype.name,
                                     "value": value}, out=x)
        else:
            invoke("_slice_assign_scalar", (x,), {"scalar": value, "key": template}, out=x)
        return
    value = to_np(value, x, None if isinstance(value, NDArray) else x._dtype)
    if full and value.shape == x.shape:
        if value is not x:
            invoke("CopyCPU2CPU", (value,), {}, out=x)
        return
    invoke("_slice_assign", (x, value), {"key": template}, out=x)


ndarray.__getitem__ = getitem
ndarray.__setitem__ = setitem
