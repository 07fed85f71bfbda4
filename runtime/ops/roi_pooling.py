"""``ROIPooling`` (MXNet 1.x, Fast R-CNN's RoI max pooling).

``rois`` ``(R, 5)`` rows are ``[batch_index, x1, y1, x2, y2]`` in image coordinates;
scaled by ``spatial_scale`` and rounded, each region is split into ``pooled_size``
bins (``floor``/``ceil`` of the fractional bin edges, clipped to the feature map) and
each bin's maximum is taken (0 for an empty bin). The gradient goes to each maximum's
position; the rois get none."""
import math

import numpy as np

from .params import _as, parse_tuple
from .registry import defop


def _pooled(pooled_size):
    p = parse_tuple(pooled_size, "pooled_size")
    if len(p) == 1:
        p = (p[0], p[0])
    if len(p) != 2 or min(p) < 1:
        raise ValueError(f"ROIPooling: pooled_size={pooled_size!r} must be two positive ints")
    return int(p[0]), int(p[1])


def _bins(roi, scale, h, w, ph, pw):
    """(batch, [(hstart, hend)], [(wstart, wend)]) of one region."""
    b = int(roi[0])
    x1, y1, x2, y2 = (int(round(float(v) * scale)) for v in roi[1:5])
    rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
    bh, bw = rh / ph, rw / pw

    def edges(n_bins, size, start, limit):
        out = []
        for i in range(n_bins):
            lo = min(max(int(math.floor(i * size)) + start, 0), limit)
            hi = min(max(int(math.ceil((i + 1) * size)) + start, 0), limit)
            out.append((lo, hi))
        return out
    return b, edges(ph, bh, y1, h), edges(pw, bw, x1, w)


def _roi_pool(data, rois, pooled_size=(1, 1), spatial_scale=1.0):
    ph, pw = _pooled(pooled_size)
    n, c, h, w = data.shape
    out = np.zeros((rois.shape[0], c, ph, pw), dtype=data.dtype)
    for r, roi in enumerate(rois):
        b, hs, ws = _bins(roi, float(spatial_scale), h, w, ph, pw)
        for i, (h0, h1) in enumerate(hs):
            for j, (w0, w1) in enumerate(ws):
                if h1 > h0 and w1 > w0:
                    out[r, :, i, j] = data[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _roi_pool_grad(ograds, inputs, outputs, pooled_size=(1, 1), spatial_scale=1.0):
    data, rois = inputs
    ph, pw = _pooled(pooled_size)
    n, c, h, w = data.shape
    g = np.zeros(data.shape, dtype=np.float64)
    og = ograds[0]
    chans = np.arange(c)
    for r, roi in enumerate(rois):
        b, hs, ws = _bins(roi, float(spatial_scale), h, w, ph, pw)
        for i, (h0, h1) in enumerate(hs):
            for j, (w0, w1) in enumerate(ws):
                if h1 > h0 and w1 > w0:
                    patch = data[b, :, h0:h1, w0:w1].reshape(c, -1)
                    k = patch.argmax(axis=1)
                    yy, xx = np.unravel_index(k, (h1 - h0, w1 - w0))
                    g[b, chans, h0 + yy, w0 + xx] += og[r, :, i, j]
    return [_as(data, g), np.zeros_like(rois)]


def _roi_pool_infer(in_shapes, in_dtypes, pooled_size=(1, 1), **_):
    d, r = tuple(in_shapes[0]), tuple(in_shapes[1])
    if len(d) != 4 or len(r) != 2 or r[1] != 5:
        raise ValueError(f"ROIPooling: data must be (N, C, H, W) and rois (R, 5), got {d} "
                         f"and {r}")
    return [(r[0], d[1]) + _pooled(pooled_size)], [in_dtypes[0]]


defop("ROIPooling", _roi_pool, arg_names=("data", "rois"), infer=_roi_pool_infer,
      grad=_roi_pool_grad, params={"pooled_size": (1, 1), "spatial_scale": 1.0},
      cost=lambda in_shapes, **_: max(1, in_shapes[1][0] * math.prod(in_shapes[0][1:])))
