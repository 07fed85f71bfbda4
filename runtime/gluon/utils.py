"""``gluon.utils``: splitting batches across contexts and gradient clipping."""
import math

import numpy as np

from ..context import Context
from ..ndarray import ndarray as _nd

__all__ = ["split_data", "split_and_load", "clip_global_norm"]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis``."""
    size = data.shape[batch_axis]
    if num_slice < 1:
        raise ValueError(f"split_data: num_slice={num_slice} must be positive")
    if even_split and size % num_slice:
        raise ValueError(f"split_data: data with shape {data.shape} cannot be split evenly "
                         f"into {num_slice} slices along axis {batch_axis}; use "
                         "even_split=False or adjust the batch size")
    if size < num_slice:
        raise ValueError(f"split_data: too many slices ({num_slice}) for {size} samples")
    if num_slice == 1:
        return [data]
    # as numpy.array_split (and MXNet 1.9.1): the first size % num_slice slices get one
    # sample more
    each, extra = divmod(size, num_slice)
    out, begin = [], 0
    for i in range(num_slice):
        end = begin + each + (i < extra)
        key = (slice(None),) * batch_axis + (slice(begin, end),)
        out.append(data[key])
        begin = end
    return out


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` and load one slice on each context of ``ctx_list``."""
    if isinstance(ctx_list, Context):
        ctx_list = [ctx_list]
    if not isinstance(data, _nd.NDArray):
        data = _nd.from_numpy(np.asarray(data), ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so that their joint L2 norm is at most ``max_norm``;
    return the norm before scaling (a sync point, as in MXNet)."""
    if not arrays:
        raise ValueError("clip_global_norm: no arrays given")
    total = 0.0
    for a in arrays:
        v = a.asnumpy().astype(np.float64)
        total += float(np.dot(v.ravel(), v.ravel()))
    norm = math.sqrt(total)
    if check_isfinite and not math.isfinite(norm):
        import warnings
        warnings.warn("nan or inf is detected; clipping results will be undefined",
                      stacklevel=2)
    scale = max_norm / (norm + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a *= scale
    return norm
