"""``Pooling`` (max, avg, sum; global; valid and full conventions).

Pooling reduces with one elementwise ``maximum``/``add`` per kernel offset over strided
slices (a reshape followed by ``max`` over the window axes is ~25x slower in numpy:
reductions over short, strided axes are slow); when the windows tile the input
(stride == kernel, no pad) the gradient is written without a zero fill or accumulation,
and max pooling 2x2/2 (the common case) runs on whole rows (:mod:`.pool_tiles`).
Max pooling routes each window's gradient to its first maximum (row-major), as MXNet
does, so ties (all-zero windows after a relu) do not multiply the gradient.
"""
import itertools

import numpy as np

from .conv import _check_params, _padded, _spatial, _spatial_dims
from . import pool_tiles
from .params import _as, _bool, _size, parse_tuple
from .registry import defop

__all__ = ["pool_output_shape"]


# -- Pooling ---------------------------------------------------------------------------
class _PoolGeom:
    __slots__ = ("nsp", "spatial", "kernel", "stride", "pad", "extra", "out", "glob")

    def __init__(self, dshape, kernel, pool_type, global_pool, pooling_convention, stride,
                 pad, layout):
        opname = "Pooling"
        dshape = tuple(int(v) for v in dshape)
        self.nsp = nsp = _spatial_dims(dshape, layout, opname)
        if pool_type not in ("max", "avg", "sum"):
            raise ValueError(f"Pooling: pool_type={pool_type!r} is not supported; use "
                             f"'max', 'avg' or 'sum'")
        self.spatial = dshape[2:]
        self.glob = _bool(global_pool)
        if self.glob:
            self.kernel, self.stride = self.spatial, (1,) * nsp
            self.pad = self.extra = (0,) * nsp
            self.out = (1,) * nsp
            return
        if pooling_convention not in ("valid", "full", "same"):
            raise ValueError(f"Pooling: pooling_convention={pooling_convention!r} is not "
                             f"supported; use 'valid', 'full' or 'same'")
        self.kernel = _spatial(kernel, nsp, "kernel", opname)
        self.stride = _spatial(stride, nsp, "stride", opname, default=1)
        if pooling_convention == "same":
            # output ceil(n / stride), the missing input past the end padded; MXNet takes
            # no explicit pad with it
            if any(parse_tuple(pad, "pad") or ()):
                raise ValueError(f"Pooling: pooling_convention='same' takes no pad, got "
                                 f"pad={pad}")
            pad = ()
        self.pad = _spatial(pad, nsp, "pad", opname, default=0, minimum=0)
        out, extra = [], []
        for i, (n, k, s, p) in enumerate(zip(self.spatial, self.kernel, self.stride,
                                             self.pad)):
            padded = n + 2 * p
            if k > padded and pooling_convention != "same":
                raise ValueError(f"Pooling: kernel={self.kernel} is larger than the padded "
                                 f"input {padded} along spatial axis {i} (data {dshape}, "
                                 f"pad={self.pad})")
            if pooling_convention == "same":
                o = -(-n // s)
            elif pooling_convention == "valid":
                o = (padded - k) // s + 1
            else:
                o = -(-(padded - k) // s) + 1
            out.append(o)
            extra.append(max(0, (o - 1) * s + k - padded))
        self.out, self.extra = tuple(out), tuple(extra)

    def offsets(self):
        """Each kernel offset with the strided slices of the padded input it reads."""
        for off in itertools.product(*(range(k) for k in self.kernel)):
            yield tuple(slice(o, o + s * (n - 1) + 1, s)
                        for o, s, n in zip(off, self.stride, self.out))

    def tiles(self):
        """Whether the windows cover the input exactly once (stride == kernel, no pad)."""
        return (not any(self.pad) and not any(self.extra)
                and all(s == k and o * k == n for s, k, o, n in
                        zip(self.stride, self.kernel, self.out, self.spatial)))

    def overlapping(self):
        return any(s < k for s, k in zip(self.stride, self.kernel))

    def counts(self, count_include_pad, dtype):
        """Divisor of average pooling for each output position, shape (*out)."""
        per_axis = []
        for n, k, s, p, o in zip(self.spatial, self.kernel, self.stride, self.pad,
                                 self.out):
            start = np.arange(o) * s - p
            lo, hi = (-p, n + p) if count_include_pad else (0, n)
            per_axis.append(np.minimum(start + k, hi) - np.maximum(start, lo))
        c = per_axis[0]
        for a in per_axis[1:]:
            c = np.multiply.outer(c, a)
        return np.maximum(c, 1).astype(dtype)


_POOL_PARAMS = {"kernel": (), "pool_type": "max", "global_pool": False, "cudnn_off": False,
                "pooling_convention": "valid", "stride": (), "pad": (), "p_value": None,
                "count_include_pad": None, "layout": None}


def _pool_geom(dshape, params):
    _check_params("Pooling", params, _POOL_PARAMS)
    return _PoolGeom(dshape, params.get("kernel"), params.get("pool_type", "max"),
                     params.get("global_pool", False),
                     params.get("pooling_convention", "valid"), params.get("stride"),
                     params.get("pad"), params.get("layout"))


def pool_output_shape(dshape, **params):
    """The output shape of ``Pooling`` on data of ``dshape`` (validates params)."""
    geom = _pool_geom(dshape, params)
    return tuple(dshape[:2]) + geom.out


def _lowest(dtype):
    if np.issubdtype(dtype, np.floating):
        return -np.inf
    return np.iinfo(dtype).min


def _include_pad(params):
    value = params.get("count_include_pad")
    return True if value is None else _bool(value)


def _pool(data, **params):
    geom = _pool_geom(data.shape, params)
    pool_type = params.get("pool_type", "max")
    axes = tuple(range(2, 2 + geom.nsp))
    if geom.glob:
        if pool_type == "max":
            return data.max(axis=axes, keepdims=True)
        out = data.sum(axis=axes, keepdims=True)
        if pool_type == "avg":
            out /= _size(geom.spatial)
        return _as(data, out)
    if pool_tiles.applies(data, geom.kernel, pool_type, geom.tiles()):
        return pool_tiles.max_pool(data)
    fill = _lowest(data.dtype) if pool_type == "max" else 0
    xp = _padded(data, axes, geom.pad, tuple(p + e for p, e in zip(geom.pad, geom.extra)),
                 fill)
    out = None
    reduce = np.maximum if pool_type == "max" else np.add
    lead = (slice(None), slice(None))
    for region in geom.offsets():
        part = xp[lead + region]
        if out is None:
            out = part.copy()
        else:
            reduce(out, part, out=out)
    if pool_type == "avg":
        out /= geom.counts(_include_pad(params), data.dtype)
    return out


def _pool_grad(ograds, inputs, outputs, **params):
    data = inputs[0]
    geom = _pool_geom(data.shape, params)
    pool_type = params.get("pool_type", "max")
    og, out = ograds[0], outputs[0]
    axes = tuple(range(2, 2 + geom.nsp))
    if geom.glob:
        if pool_type == "max":
            flat = data.reshape(data.shape[:2] + (-1,))
            first = flat.argmax(axis=-1)[..., None]
            g = np.zeros_like(flat)
            np.put_along_axis(g, first, og.reshape(first.shape), axis=-1)
            return [g.reshape(data.shape)]
        scale = 1.0 / _size(geom.spatial) if pool_type == "avg" else 1.0
        return [_as(data, np.broadcast_to(og * scale, data.shape).copy())]
    if pool_tiles.applies(data, geom.kernel, pool_type, geom.tiles()):
        return [_as(data, pool_tiles.max_pool_grad(data, out, og))]
    padded = tuple(n + p + p + e for n, p, e in zip(geom.spatial, geom.pad, geom.extra))
    overlap = geom.overlapping()
    # Windows that tile the input exactly write every element once: no zero fill needed.
    alloc = np.empty if geom.tiles() else np.zeros
    gxp = alloc(data.shape[:2] + padded, dtype=data.dtype)
    lead = (slice(None), slice(None))
    if pool_type == "max":
        xp = _padded(data, axes, geom.pad, tuple(p + e for p, e in zip(geom.pad, geom.extra)),
                     _lowest(data.dtype))
        regions = list(geom.offsets())
        avail = None       # windows whose max has not been routed yet (first max wins)
        for i, region in enumerate(regions):
            hit = np.equal(xp[lead + region], out)
            if avail is None:
                avail = ~hit
            else:
                hit &= avail
                if i + 1 < len(regions):
                    avail ^= hit
            if overlap:
                gxp[lead + region] += og * hit
            else:
                np.multiply(og, hit, out=gxp[lead + region])
    else:
        g = og / geom.counts(_include_pad(params), data.dtype) if pool_type == "avg" else og
        for region in geom.offsets():
            if overlap:
                gxp[lead + region] += g
            else:
                gxp[lead + region] = g
    crop = tuple(slice(p, p + n) for p, n in zip(geom.pad, geom.spatial))
    gx = gxp[lead + crop]
    return [_as(data, gx if gx.base is None and gx.flags.c_contiguous
                else np.ascontiguousarray(gx))]


def _pool_infer(in_shapes, in_dtypes, **params):
    return [pool_output_shape(in_shapes[0], **params)], [in_dtypes[0]]


def _pool_cost(in_shapes, **params):
    geom = _pool_geom(in_shapes[0], params)
    return _size(in_shapes[0][:2]) * _size(geom.out) * _size(geom.kernel)


defop("Pooling", _pool, infer=_pool_infer, grad=_pool_grad, cost=_pool_cost,
      params=dict(_POOL_PARAMS))
