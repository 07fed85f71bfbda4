"""Spatial transformer networks (Jaderberg et al. 2015) as MXNet 1.x has them:
``GridGenerator``, ``BilinearSampler`` and ``SpatialTransformer`` (the two composed).

Grids hold normalized coordinates: ``x`` in ``[-1, 1]`` across the width (channel 0),
``y`` across the height (channel 1). ``GridGenerator(transform_type='affine')`` maps the
target grid through a ``(N, 6)`` affine matrix (row-major 2x3); ``'warp'`` adds a
``(N, 2, H, W)`` flow in pixels to the identity grid. ``BilinearSampler`` reads
``data`` ``(N, C, H, W)`` at the grid's points by bilinear interpolation, zero outside
the image; its gradient goes to the data (scattered to the four neighbours) and to the
grid (the interpolation's slope).
"""
import math

import numpy as np

from .params import _as, parse_tuple
from .registry import defop


# -- GridGenerator ---------------------------------------------------------------------------
def _target(target_shape, opname):
    t = parse_tuple(target_shape, "target_shape")
    if len(t) != 2 or min(t) < 1:
        raise ValueError(f"{opname}: target_shape={target_shape!r} must be two positive ints")
    return int(t[0]), int(t[1])


def _base_grid(h, w, dtype=np.float64):
    """(3, h*w): normalized x, y and 1 for each target pixel, row-major."""
    xs = -1.0 + 2.0 * np.arange(w) / max(w - 1, 1)
    ys = -1.0 + 2.0 * np.arange(h) / max(h - 1, 1)
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx.ravel(), gy.ravel(), np.ones(h * w)]).astype(dtype)


def _grid_affine(theta, h, w):
    base = _base_grid(h, w)
    out = np.matmul(theta.reshape(-1, 2, 3).astype(np.float64), base)
    return out.reshape(-1, 2, h, w)


def _grid_generator(data, transform_type="affine", target_shape=(0, 0)):
    if transform_type == "affine":
        h, w = _target(target_shape, "GridGenerator")
        return _as(data, _grid_affine(data, h, w))
    if transform_type == "warp":
        n, _, h, w = data.shape
        out = np.empty(data.shape, dtype=np.float64)
        out[:, 0] = (np.arange(w)[None, None, :] + data[:, 0]) / ((w - 1) / 2.0) - 1.0
        out[:, 1] = (np.arange(h)[None, :, None] + data[:, 1]) / ((h - 1) / 2.0) - 1.0
        return _as(data, out)
    raise ValueError(f"GridGenerator: transform_type={transform_type!r} must be 'affine' or "
                     "'warp'")


def _grid_generator_grad(ograds, inputs, outputs, transform_type="affine",
                         target_shape=(0, 0)):
    data, g = inputs[0], ograds[0].astype(np.float64)
    if transform_type == "affine":
        n, _, h, w = g.shape
        d = np.matmul(g.reshape(n, 2, h * w), _base_grid(h, w).T)
        return [_as(data, d.reshape(data.shape))]
    h, w = data.shape[2:]
    d = np.empty_like(g)
    d[:, 0] = g[:, 0] / ((w - 1) / 2.0)
    d[:, 1] = g[:, 1] / ((h - 1) / 2.0)
    return [_as(data, d)]


def _grid_generator_infer(in_shapes, in_dtypes, transform_type="affine",
                          target_shape=(0, 0), **_):
    s = tuple(in_shapes[0])
    if transform_type == "affine":
        h, w = _target(target_shape, "GridGenerator")
        if len(s) != 2 or s[1] != 6:
            raise ValueError(f"GridGenerator: affine data must be (N, 6), got {s}")
        return [(s[0], 2, h, w)], [in_dtypes[0]]
    if len(s) != 4 or s[1] != 2:
        raise ValueError(f"GridGenerator: warp data must be (N, 2, H, W), got {s}")
    return [s], [in_dtypes[0]]


defop("GridGenerator", _grid_generator, infer=_grid_generator_infer,
      grad=_grid_generator_grad,
      params={"transform_type": "affine", "target_shape": (0, 0)})


# -- BilinearSampler -------------------------------------------------------------------------
def _corners(grid, h, w):
    """Pixel coordinates of each output point and its four neighbours' weights."""
    x = (grid[:, 0].astype(np.float64) + 1.0) * (w - 1) / 2.0     # (N, Ho, Wo)
    y = (grid[:, 1].astype(np.float64) + 1.0) * (h - 1) / 2.0
    x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    return x, y, x0, y0, x - x0, y - y0


def _gather(data, yi, xi):
    """data[n, :, yi, xi] (zero outside), shaped (N, C, Ho, Wo), and the inside mask."""
    n, c, h, w = data.shape
    inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    b = np.arange(n)[:, None, None]
    vals = data[b, :, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]   # (N, Ho, Wo, C)
    vals = np.where(inside[..., None], vals, 0.0)
    return np.moveaxis(vals, -1, 1), inside


def _sample(data, grid):
    h, w = data.shape[2:]
    _, _, x0, y0, wx, wy = _corners(grid, h, w)
    out = 0.0
    for dy, dx, weight in ((0, 0, (1 - wy) * (1 - wx)), (0, 1, (1 - wy) * wx),
                           (1, 0, wy * (1 - wx)), (1, 1, wy * wx)):
        vals, _ = _gather(data.astype(np.float64), y0 + dy, x0 + dx)
        out = out + vals * weight[:, None]
    return out


def _bilinear_sampler(data, grid, cudnn_off=None):
    return _as(data, _sample(data, grid))


def _sampler_grads(data, grid, og):
    n, c, h, w = data.shape
    _, _, x0, y0, wx, wy = _corners(grid, h, w)
    og = og.astype(np.float64)
    d_data = np.zeros(data.shape, dtype=np.float64)
    gx = np.zeros(wx.shape)
    gy = np.zeros(wy.shape)
    b = np.broadcast_to(np.arange(n)[:, None, None], x0.shape)
    for dy, dx, weight, dwx, dwy in (
            (0, 0, (1 - wy) * (1 - wx), -(1 - wy), -(1 - wx)),
            (0, 1, (1 - wy) * wx, (1 - wy), -wx),
            (1, 0, wy * (1 - wx), -wy, (1 - wx)),
            (1, 1, wy * wx, wy, wx)):
        yi, xi = y0 + dy, x0 + dx
        vals, inside = _gather(data.astype(np.float64), yi, xi)
        contrib = np.moveaxis(og * weight[:, None], 1, -1)           # (N, Ho, Wo, C)
        np.add.at(d_data, (b[inside], slice(None), yi[inside], xi[inside]), contrib[inside])
        s = (og * vals).sum(axis=1)
        gx += s * dwx
        gy += s * dwy
    d_grid = np.stack([gx * (w - 1) / 2.0, gy * (h - 1) / 2.0], axis=1)
    return d_data, d_grid


def _bilinear_sampler_grad(ograds, inputs, outputs, cudnn_off=None):
    data, grid = inputs
    d_data, d_grid = _sampler_grads(data, grid, ograds[0])
    return [_as(data, d_data), _as(grid, d_grid)]


def _sampler_infer(in_shapes, in_dtypes, **_):
    d, g = tuple(in_shapes[0]), tuple(in_shapes[1])
    if len(d) != 4 or len(g) != 4 or g[1] != 2 or g[0] != d[0]:
        raise ValueError(f"BilinearSampler: data must be (N, C, H, W) and grid (N, 2, H', "
                         f"W'), got {d} and {g}")
    return [d[:2] + g[2:]], [in_dtypes[0]]


def _sampler_cost(in_shapes, **_):
    return max(1, 8 * in_shapes[0][1] * math.prod(in_shapes[1]))


defop("BilinearSampler", _bilinear_sampler, arg_names=("data", "grid"),
      infer=_sampler_infer, grad=_bilinear_sampler_grad, cost=_sampler_cost,
      params={"cudnn_off": None})


# -- SpatialTransformer: GridGenerator(affine) then BilinearSampler -------------------------
def _check_types(transform_type, sampler_type):
    if transform_type != "affine" or sampler_type != "bilinear":
        raise ValueError(f"SpatialTransformer: transform_type={transform_type!r} and "
                         f"sampler_type={sampler_type!r}; only 'affine' and 'bilinear' exist")


def _spatial_transformer(data, loc, target_shape=(0, 0), transform_type="affine",
                         sampler_type="bilinear", cudnn_off=None):
    _check_types(transform_type, sampler_type)
    h, w = _target(target_shape, "SpatialTransformer")
    return _as(data, _sample(data, _grid_affine(loc, h, w)))


def _spatial_transformer_grad(ograds, inputs, outputs, target_shape=(0, 0),
                              transform_type="affine", sampler_type="bilinear",
                              cudnn_off=None):
    data, loc = inputs
    h, w = _target(target_shape, "SpatialTransformer")
    grid = _grid_affine(loc, h, w)
    d_data, d_grid = _sampler_grads(data, grid, ograds[0])
    d_loc = np.matmul(d_grid.reshape(d_grid.shape[0], 2, h * w), _base_grid(h, w).T)
    return [_as(data, d_data), _as(loc, d_loc.reshape(loc.shape))]


def _spatial_transformer_infer(in_shapes, in_dtypes, target_shape=(0, 0),
                               transform_type="affine", sampler_type="bilinear", **_):
    _check_types(transform_type, sampler_type)
    d = tuple(in_shapes[0])
    h, w = _target(target_shape, "SpatialTransformer")
    if len(d) != 4:
        raise ValueError(f"SpatialTransformer: data must be (N, C, H, W), got {d}")
    if len(in_shapes) > 1 and in_shapes[1] is not None and \
            tuple(in_shapes[1]) != (d[0], 6):
        raise ValueError(f"SpatialTransformer: loc has shape {tuple(in_shapes[1])}, "
                         f"expected {(d[0], 6)}")
    return [d[:2] + (h, w)], [in_dtypes[0]]


def _spatial_transformer_infer_args(in_shapes, **_):
    if in_shapes[0] is None:
        raise ValueError("SpatialTransformer: the data shape is needed to infer loc's")
    return [tuple(in_shapes[0]), (in_shapes[0][0], 6)]


defop("SpatialTransformer", _spatial_transformer, arg_names=("data", "loc"),
      infer=_spatial_transformer_infer, infer_args=_spatial_transformer_infer_args,
      grad=_spatial_transformer_grad,
      cost=lambda in_shapes, target_shape=(0, 0), **_: max(
          1, 8 * in_shapes[0][1] * in_shapes[0][0] * math.prod(
              parse_tuple(target_shape, "target_shape") or (1,))),
      params={"target_shape": (0, 0), "transform_type": "affine",
              "sampler_type": "bilinear", "cudnn_off": None})
