"""NDArray indexing keys: a key normalized for numpy (ints, slices, ``None``, ``...``,
integer arrays), with MXNet 1.x's rules. An NDArray in a key is recognized by its
``asnumpy`` (this module sits below the NDArray class and never imports it)."""
import numbers

import numpy as np


def index_key(key, shape):
    """Normalize an index to a tuple valid for ``shape``: ints (made non-negative),
    slices, ``None`` (a new axis), ``Ellipsis``, and integer arrays for numpy's advanced
    indexing (lists and NDArrays become numpy arrays; an NDArray index waits for its
    values)."""
    if not isinstance(key, tuple):
        key = (key,)
    if len([k for k in key if k is not Ellipsis and k is not None]) > len(shape):
        raise ValueError(f"index {key!r} has too many dimensions for shape {shape}")
    out = []
    axis = 0
    for k in key:
        if isinstance(k, numbers.Integral) and not isinstance(k, bool):
            k = int(k)
            dim = shape[axis]
            if not -dim <= k < dim:
                raise ValueError(f"index {k} is out of bounds for axis {axis} "
                                 f"with size {dim}")
            out.append(k % dim)
        elif isinstance(k, slice) or k is Ellipsis or k is None:
            out.append(k)
            if k is None:
                continue
            if k is Ellipsis:
                axis += len(shape) - len([j for j in key if j is not Ellipsis
                                          and j is not None])
                continue
        elif isinstance(k, (list, tuple, np.ndarray)) or hasattr(k, "asnumpy"):
            out.append(_array_index(k, key, shape[axis], axis))
        else:
            raise ValueError(f"index {k!r} is not supported; use ints, slices, None, ..., "
                             "or integer lists/arrays")
        axis += 1
    return tuple(out)


def _array_index(k, key, dim, axis):
    """An advanced-indexing element as an integer numpy array within ``dim``."""
    values = k.asnumpy() if hasattr(k, "asnumpy") else np.asarray(k)
    if values.dtype.kind == "f" and np.all(values == np.round(values)):
        values = values.astype(np.int64)     # MXNet's float32 index arrays
    if values.dtype.kind not in "iu":
        raise ValueError(f"index {key!r}: element {k!r} is not an integer array")
    if values.size and not (-dim <= values.min() and values.max() < dim):
        raise ValueError(f"index {key!r}: {values.tolist()} is out of bounds for axis "
                         f"{axis} with size {dim}")
    return values.astype(np.intp)
