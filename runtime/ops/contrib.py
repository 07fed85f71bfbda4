"""Dense CPU operators of MXNet 1.x's contrib namespace, registered as ``_contrib_<name>``
(``mx.nd.contrib.<name>`` and ``mx.sym.contrib.<name>`` strip the prefix, as MXNet's
front ends do; the profile shows ``_contrib_<name>``, MXNet's operator name).

``index_copy``, ``boolean_mask`` (its output size comes from the mask's values: the NDArray
function reads the mask first, as MXNet's does), ``div_sqrt_dim``, ``quadratic``,
``allclose``, ``index_array``, ``arange_like``, ``AdaptiveAvgPooling2D``,
``BilinearResize2D``, ``quantize``/``dequantize`` (int8, uint8). (``isinf``,
``isfinite``, ``isnan`` are Python in MXNet: :mod:`.python_level`.)
"""
import math

import numpy as np

from .params import _ACTIVE, _axis, _bool, _cheap, _zeros_grad, parse_tuple
from .registry import defop, input_size


# -- index_copy: rows of new_tensor written into old_tensor at index_vector ----------------
def _index_rows(index, n, opname):
    idx = np.asarray(index).reshape(-1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{opname}: index {int(idx.min() if idx.min() < 0 else idx.max())} "
                         f"is out of range for {n} rows")
    return idx


def _index_copy(old_tensor, index_vector, new_tensor):
    out = old_tensor.copy()
    out[_index_rows(index_vector, old_tensor.shape[0], "index_copy")] = new_tensor
    return out


def _index_copy_grad(ograds, inputs, outputs):
    old, index, new = inputs
    idx = _index_rows(index, old.shape[0], "index_copy")
    g_old = ograds[0].copy()
    g_old[idx] = 0
    return [g_old, np.zeros_like(index), ograds[0][idx].astype(new.dtype, copy=False)]


def _index_copy_infer(in_shapes, in_dtypes, **_):
    old, index, new = (tuple(s) for s in in_shapes)
    if len(index) != 1 or new != (index[0],) + old[1:]:
        raise ValueError(f"index_copy: new_tensor has shape {new}, expected "
                         f"({index[0] if index else '?'},) + {old[1:]} for index of shape "
                         f"{index} and old_tensor {old}")
    return [old], [in_dtypes[0]]


defop("_contrib_index_copy", _index_copy, arg_names=("old_tensor", "index_vector", "new_tensor"),
      infer=_index_copy_infer, grad=_index_copy_grad, cost=input_size)


# -- boolean_mask: the rows (along axis) where index is nonzero -----------------------------
def _selected(index):
    return np.flatnonzero(np.asarray(index).reshape(-1))


def _boolean_mask(data, index, axis=0, num_selected=None):
    return np.take(data, _selected(index), axis=_axis(axis, data.ndim, "boolean_mask"))


def _boolean_mask_grad(ograds, inputs, outputs, axis=0, num_selected=None):
    data, index = inputs
    ax = _axis(axis, data.ndim, "boolean_mask")
    g = np.zeros_like(data)
    key = [slice(None)] * data.ndim
    key[ax] = _selected(index)
    g[tuple(key)] = ograds[0]
    return [g, np.zeros_like(index)]


def _boolean_mask_infer(in_shapes, in_dtypes, axis=0, num_selected=None, **_):
    data, index = tuple(in_shapes[0]), tuple(in_shapes[1])
    ax = _axis(axis, len(data), "boolean_mask")
    if index != (data[ax],):
        raise ValueError(f"boolean_mask: index has shape {index}, expected ({data[ax]},) "
                         f"for data {data} and axis={axis}")
    if num_selected is None:
        raise ValueError("boolean_mask: the output size depends on the index's values; "
                         "call mx.nd.contrib.boolean_mask (symbols cannot infer it)")
    return [data[:ax] + (int(num_selected),) + data[ax + 1:]], [in_dtypes[0]]


defop("_contrib_boolean_mask", _boolean_mask, arg_names=("data", "index"),
      infer=_boolean_mask_infer, grad=_boolean_mask_grad, cost=input_size,
      params={"axis": 0, "num_selected": None})


# -- elementwise ----------------------------------------------------------------------------
def _div_sqrt_dim(data):
    return (data / np.sqrt(data.shape[-1])).astype(data.dtype, copy=False)


defop("_contrib_div_sqrt_dim", _div_sqrt_dim, cost=input_size,
      grad=lambda og, i, o: [(og[0] / np.sqrt(i[0].shape[-1])).astype(i[0].dtype)])


def _quadratic(data, a=0.0, b=0.0, c=0.0):
    a, b, c = float(a), float(b), float(c)
    return (a * data * data + b * data + c).astype(data.dtype, copy=False)


defop("_contrib_quadratic", _quadratic, cost=input_size,
      params={"a": 0.0, "b": 0.0, "c": 0.0},
      grad=lambda og, i, o, a=0.0, b=0.0, c=0.0: [
          (og[0] * (2 * float(a) * i[0] + float(b))).astype(i[0].dtype)])


def _allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True):
    close = np.abs(a - b) <= float(atol) + float(rtol) * np.abs(b)
    if _bool(equal_nan):
        close |= np.isnan(a) & np.isnan(b)
    return np.asarray(1 if bool(np.all(close)) else 0, dtype=np.int32)


# a 0-d result, as MXNet's (its shape inference assigns a shape of no dimensions)
defop("_contrib_allclose", _allclose, arg_names=("a", "b"), grad=_zeros_grad,
      cost=input_size, params={"rtol": 1e-5, "atol": 1e-8, "equal_nan": True},
      infer=lambda in_shapes, in_dtypes, **_: ([()], [np.dtype(np.int32)]))


# -- index_array, arange_like -----------------------------------------------------------------
def _index_axes(ndim, axes):
    if axes is None:
        return tuple(range(ndim))
    return tuple(_axis(a, ndim, "index_array") for a in parse_tuple(axes, "axes"))


def _index_array(data, axes=None):
    axes = _index_axes(data.ndim, axes)
    grids = np.indices(data.shape, dtype=np.int64) if data.ndim else np.zeros((0,), np.int64)
    if not data.ndim:
        return grids
    return np.stack([grids[a] for a in axes], axis=-1)


defop("_contrib_index_array", _index_array, grad=_zeros_grad, cost=input_size,
      params={"axes": None},
      infer=lambda in_shapes, in_dtypes, axes=None, **_: (
          [tuple(in_shapes[0]) + (len(_index_axes(len(in_shapes[0]), axes)),)
           if in_shapes[0] else (0,)], [np.dtype(np.int64)]))


def _arange_like_shape(shape, axis):
    if axis is None:
        return tuple(shape)
    return (shape[_axis(axis, len(shape), "arange_like")],)


def _arange_like(data, start=0.0, step=1.0, repeat=1, axis=None, ctx=None):
    shape = _arange_like_shape(data.shape, axis)
    n = math.prod(shape)
    values = float(start) + float(step) * (np.arange(n) // int(repeat))
    return values.reshape(shape).astype(data.dtype)


defop("_contrib_arange_like", _arange_like, grad=_zeros_grad, cost=_cheap,
      params={"start": 0.0, "step": 1.0, "repeat": 1, "axis": None, "ctx": None},
      infer=lambda in_shapes, in_dtypes, axis=None, **_: (
          [_arange_like_shape(in_shapes[0], axis)], [in_dtypes[0]]))


# -- AdaptiveAvgPooling2D ---------------------------------------------------------------------
def _out_hw(output_size, in_hw):
    if output_size in (None, ()):
        return tuple(in_hw)
    size = parse_tuple(output_size, "output_size")
    if len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2 or min(size) < 1:
        raise ValueError(f"AdaptiveAvgPooling2D: output_size={output_size!r} must be one or "
                         "two positive ints")
    return tuple(int(s) for s in size)


def _bins(n_in, n_out):
    """Each output cell's [start, end) window: floor(o*n/m) to ceil((o+1)*n/m)."""
    o = np.arange(n_out)
    return (o * n_in) // n_out, -((-(o + 1) * n_in) // n_out)


def _pool_matrix(n_in, n_out, dtype):
    """(n_out, n_in) averaging weights: adaptive pooling along one axis is a matmul."""
    starts, ends = _bins(n_in, n_out)
    w = np.zeros((n_out, n_in), dtype=dtype)
    for i, (s, e) in enumerate(zip(starts, ends)):
        w[i, s:e] = 1.0 / (e - s)
    return w


def _adaptive_avg_pool(data, output_size=None):
    oh, ow = _out_hw(output_size, data.shape[2:])
    wh = _pool_matrix(data.shape[2], oh, data.dtype)
    ww = _pool_matrix(data.shape[3], ow, data.dtype)
    return np.einsum("ph,nchw,qw->ncpq", wh, data, ww, optimize=True).astype(data.dtype)


def _adaptive_avg_pool_grad(ograds, inputs, outputs, output_size=None):
    data = inputs[0]
    oh, ow = ograds[0].shape[2:]
    wh = _pool_matrix(data.shape[2], oh, data.dtype)
    ww = _pool_matrix(data.shape[3], ow, data.dtype)
    return [np.einsum("ph,ncpq,qw->nchw", wh, ograds[0], ww, optimize=True).astype(data.dtype)]


def _adaptive_avg_pool_infer(in_shapes, in_dtypes, output_size=None, **_):
    shape = tuple(in_shapes[0])
    if len(shape) != 4:
        raise ValueError(f"AdaptiveAvgPooling2D: data must be 4-D (NCHW), got shape {shape}")
    return [shape[:2] + _out_hw(output_size, shape[2:])], [in_dtypes[0]]


defop("_contrib_AdaptiveAvgPooling2D", _adaptive_avg_pool, infer=_adaptive_avg_pool_infer,
      grad=_adaptive_avg_pool_grad, cost=input_size, params={"output_size": None})


# -- BilinearResize2D --------------------------------------------------------------------------
_RESIZE_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down",
                 "to_odd_up")


def _resize_hw(in_h, in_w, like_hw, height, width, scale_height, scale_width, mode):
    if mode not in _RESIZE_MODES:
        raise ValueError(f"BilinearResize2D: mode={mode!r} must be one of "
                         + ", ".join(_RESIZE_MODES))
    if mode == "like":
        if like_hw is None:
            raise ValueError("BilinearResize2D: mode='like' needs the second input 'like'")
        return like_hw
    if mode == "size":
        if scale_height is not None and scale_width is not None:
            return int(in_h * float(scale_height)), int(in_w * float(scale_width))
        return int(height), int(width)
    if mode == "odd_scale":
        def odd(n, s):
            return int(n * float(s)) if n % 2 == 0 else int((n - 1) * float(s)) + 1
        return odd(in_h, scale_height), odd(in_w, scale_width)
    step = 1 if mode.endswith("_up") else -1
    want_even = "even" in mode

    def fix(n):
        return n if (n % 2 == 0) == want_even else n + step
    return fix(in_h), fix(in_w)


def _interp_matrix(n_in, n_out, align_corners):
    """(n_out, n_in) weights of linear interpolation along one axis."""
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        src = np.maximum((dst + 0.5) * (n_in / n_out) - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    w = np.zeros((n_out, n_in))
    np.add.at(w, (np.arange(n_out), i0), 1.0 - lam)
    np.add.at(w, (np.arange(n_out), i1), lam)
    return w


def _resize_params(data, like, height, width, scale_height, scale_width, mode):
    like_hw = tuple(like.shape[2:4]) if like is not None else None
    return _resize_hw(data.shape[2], data.shape[3], like_hw, height, width, scale_height,
                      scale_width, mode)


def _bilinear_resize(data, like=None, height=1, width=1, scale_height=None,
                     scale_width=None, mode="size", align_corners=True):
    oh, ow = _resize_params(data, like, height, width, scale_height, scale_width, mode)
    wh = _interp_matrix(data.shape[2], oh, _bool(align_corners))
    ww = _interp_matrix(data.shape[3], ow, _bool(align_corners))
    return np.einsum("ph,nchw,qw->ncpq", wh, data, ww, optimize=True).astype(data.dtype)


def _bilinear_resize_grad(ograds, inputs, outputs, height=1, width=1, scale_height=None,
                          scale_width=None, mode="size", align_corners=True):
    data = inputs[0]
    oh, ow = ograds[0].shape[2:]
    wh = _interp_matrix(data.shape[2], oh, _bool(align_corners))
    ww = _interp_matrix(data.shape[3], ow, _bool(align_corners))
    g = np.einsum("ph,ncpq,qw->nchw", wh, ograds[0], ww, optimize=True).astype(data.dtype)
    return [g] + [np.zeros_like(x) for x in inputs[1:]]


def _bilinear_resize_infer(in_shapes, in_dtypes, height=1, width=1, scale_height=None,
                           scale_width=None, mode="size", **_):
    s = tuple(in_shapes[0])
    if len(s) != 4:
        raise ValueError(f"BilinearResize2D: data must be 4-D (NCHW), got shape {s}")
    like_hw = tuple(in_shapes[1][2:4]) if len(in_shapes) > 1 else None
    oh, ow = _resize_hw(s[2], s[3], like_hw, height, width, scale_height, scale_width, mode)
    if oh < 1 or ow < 1:
        raise ValueError(f"BilinearResize2D: the output {oh}x{ow} is empty")
    return [s[:2] + (oh, ow)], [in_dtypes[0]]


defop("_contrib_BilinearResize2D", _bilinear_resize, arg_names=("data", "like"),
      infer=_bilinear_resize_infer, grad=_bilinear_resize_grad, cost=input_size,
      params={"height": 1, "width": 1, "scale_height": None, "scale_width": None,
              "mode": "size", "align_corners": True})
_ACTIVE["_contrib_BilinearResize2D"] = lambda p: ("data", "like") if p.get("mode") == "like" \
    else ("data",)


# -- quantize / dequantize (MXNet 1.x's symmetric int8 and affine uint8 schemes) ----------------
_QUANTIZED = {"int8": np.int8, "uint8": np.uint8}


def _quantized_type(out_type, opname):
    if out_type not in _QUANTIZED:
        raise ValueError(f"{opname}: out_type={out_type!r} must be 'int8' or 'uint8'")
    return _QUANTIZED[out_type]


def _quantize(data, min_range, max_range, out_type="uint8"):
    """int8: ``sign(x) * min(|x| * 127 / r + 0.5, 127)`` truncated, with r = max(|min|,
    |max|), the range returned as (-r, r); uint8: ``(x - min) * 255 / (max - min) + 0.5``
    truncated and clipped to [0, 255], the range returned as given."""
    kind = _quantized_type(out_type, "quantize")
    lo, hi = float(min_range.reshape(-1)[0]), float(max_range.reshape(-1)[0])
    x = data.astype(np.float64)
    if kind is np.int8:
        real = max(abs(lo), abs(hi))
        scale = 127.0 / real if real else 0.0
        q = np.sign(x) * np.minimum(np.abs(x) * scale + 0.5, 127.0)
        out_lo, out_hi = -real, real
    else:
        scale = 255.0 / (hi - lo) if hi > lo else 0.0
        q = np.clip((x - lo) * scale + 0.5, 0.0, 255.0)
        out_lo, out_hi = lo, hi
    return (np.trunc(q).astype(kind), np.array([out_lo], np.float32),
            np.array([out_hi], np.float32))


def _quantize_infer(in_shapes, in_dtypes, out_type="uint8", **_):
    kind = _quantized_type(out_type, "quantize")
    for name, shape in zip(("min_range", "max_range"), in_shapes[1:]):
        if shape is not None and tuple(shape) != (1,):
            raise ValueError(f"quantize: {name} must have shape (1,), got {tuple(shape)}")
    return [tuple(in_shapes[0]), (1,), (1,)], [np.dtype(kind), np.dtype(np.float32),
                                                 np.dtype(np.float32)]


defop("_contrib_quantize", _quantize, arg_names=("data", "min_range", "max_range"),
      infer=_quantize_infer, num_outputs=3, output_names=("output", "min_output", "max_output"),
      cost=input_size, params={"out_type": "uint8"})


def _dequantize(data, min_range, max_range, out_type="float32"):
    """The inverse scale of :func:`_quantize` (int8 by its symmetric range, uint8 from min)."""
    if out_type != "float32":
        raise ValueError(f"dequantize: out_type={out_type!r} must be 'float32'")
    lo, hi = float(min_range.reshape(-1)[0]), float(max_range.reshape(-1)[0])
    q = data.astype(np.float64)
    if data.dtype == np.int8:
        out = q * (max(abs(lo), abs(hi)) / 127.0)
    elif data.dtype == np.uint8:
        out = q * ((hi - lo) / 255.0) + lo
    else:
        raise ValueError(f"dequantize: data must be int8 or uint8, got {data.dtype}")
    return out.astype(np.float32)


defop("_contrib_dequantize", _dequantize, arg_names=("data", "min_range", "max_range"),
      infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0])], [np.dtype(np.float32)]),
      cost=input_size, params={"out_type": "float32"})
