"""Normalization operators: ``BatchNorm``, ``LayerNorm``, ``InstanceNorm``, ``GroupNorm``.

All four normalize ``x`` over a set of reduction axes, ``xhat = (x - mean) * invstd``
with ``invstd = 1 / sqrt(var + eps)`` (biased variance), then apply a per-channel
affine ``gamma * xhat + beta``. They differ only in the axes (:func:`_moments` and
:func:`_norm_grad` are shared):

============  ==========================  =====================  ======================
operator      reduction axes              gamma/beta along       hidden outputs
============  ==========================  =====================  ======================
BatchNorm     every axis but ``axis``     ``axis`` (C,)          mean, invstd (C,)
LayerNorm     ``axis``                    ``axis``               mean, std (keepdims)
InstanceNorm  the spatial axes (2, ...)   axis 1 (C,)            mean, var (N, C)
GroupNorm     channels of a group + sp.   the group (G,)         mean, std (N, G)
============  ==========================  =====================  ======================

BatchNorm has two auxiliary states, ``moving_mean`` and ``moving_var``. In training
(``is_train`` and not ``use_global_stats``) it normalizes with the batch's statistics
and its ``train_kernel`` also returns the updated moving statistics
(``moving = moving * momentum + batch * (1 - momentum)``), which the NDArray layer and
the executor write back into the aux arrays (``mutate_aux``; MXNet's oneDNN CPU build
updates them in the forward pass too). In inference, or with ``use_global_stats``, it
uses the moving statistics and leaves them alone. Its hidden outputs are what the
forward normalized with (``mean`` and ``invstd``, as MXNet's ``output_mean_var``
returns them), so the gradient needs no aux input: with ``use_global_stats`` the
statistics are constants (``dx = og * gamma * invstd``), otherwise they depend on the
batch. ``fix_gamma=True`` (MXNet's default for the operator) treats gamma as 1 and
gives it a zero gradient.
"""
import numpy as np

from .params import _axis, _bool, _check_arg_shapes, _positive_int
from .registry import defop, input_size

__all__ = []


# -- shared arithmetic -------------------------------------------------------------------
def _acc(x):
    """The accumulator dtype of a reduction over ``x``: float64 for narrower floats.
    numpy sums along the innermost axis pairwise but across rows one row at a time, so
    a float32 sum over 4,096 rows (a LayerNorm's gamma gradient) loses about three
    digits; accumulating in float64 keeps the result to float32's precision."""
    return np.float64 if x.dtype.itemsize < 8 else None


def _moments(x, axes, eps, with_var=False):
    """(mean, invstd) of ``x`` over ``axes`` (kept as size-1 axes), in ``x``'s dtype;
    (mean, invstd, var) with ``with_var``."""
    mean = x.mean(axis=axes, keepdims=True, dtype=_acc(x)).astype(x.dtype, copy=False)
    centered = x - mean
    var = np.mean(centered * centered, axis=axes, keepdims=True,
                  dtype=_acc(x)).astype(x.dtype, copy=False)
    invstd = (1.0 / np.sqrt(var + x.dtype.type(eps))).astype(x.dtype, copy=False)
    return (mean, invstd, var) if with_var else (mean, invstd)


def _along(v, ndim, axis):
    """A per-channel vector shaped to broadcast along ``axis`` of an ``ndim`` array."""
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _affine(xhat, gamma, beta, axis):
    return xhat * _along(gamma, xhat.ndim, axis) + _along(beta, xhat.ndim, axis)


def _norm_grad(og, x, gamma, mean, invstd, red_axes, gaxis, batch_stats):
    """(dx, dgamma, dbeta) of ``gamma * (x - mean) * invstd + beta``.

    ``batch_stats``: mean and invstd were computed from ``x`` over ``red_axes`` (their
    gradient flows back into ``dx``); otherwise they are constants."""
    xhat = (x - mean) * invstd
    other = tuple(i for i in range(x.ndim) if i != gaxis)
    acc = _acc(x)
    dgamma = np.sum(og * xhat, axis=other, dtype=acc).astype(x.dtype, copy=False)
    dbeta = np.sum(og, axis=other, dtype=acc).astype(x.dtype, copy=False)
    g = og * _along(gamma, x.ndim, gaxis)
    if batch_stats:
        g = g - g.mean(axis=red_axes, keepdims=True, dtype=acc).astype(x.dtype, copy=False) \
            - xhat * np.mean(g * xhat, axis=red_axes, keepdims=True,
                             dtype=acc).astype(x.dtype, copy=False)
    return (g * invstd).astype(x.dtype, copy=False), dgamma, dbeta


def _vector_shapes(opname, in_shapes, n, context):
    """Check the (gamma, beta, ...) input shapes against the expected ``(n,)``."""
    names = ("gamma", "beta", "moving_mean", "moving_var")[:len(in_shapes) - 1]
    expected = [(n,)] * len(names)
    _check_arg_shapes(opname, names, in_shapes[1:], expected, context)
    return [tuple(in_shapes[0])] + expected


def _eps(value, opname):
    eps = float(value)
    if eps < 0:
        raise ValueError(f"{opname}: eps={value} must be >= 0")
    return eps


# -- BatchNorm -------------------------------------------------------------------------
_BN_PARAMS = {"eps": 1e-3, "momentum": 0.9, "fix_gamma": True, "use_global_stats": False,
              "output_mean_var": False, "axis": 1, "cudnn_off": False,
              "min_calib_range": None, "max_calib_range": None}


def _bn_axes(shape, axis):
    axis = _axis(axis, len(shape), "BatchNorm")
    return axis, tuple(i for i in range(len(shape)) if i != axis)


def _bn_gamma(gamma, fix_gamma):
    return np.ones_like(gamma) if _bool(fix_gamma) else gamma


def _bn_apply(data, gamma, beta, mean, invstd, axis, fix_gamma):
    """Output, and the (C,) mean and invstd that produced it."""
    xhat = (data - mean) * invstd
    out = _affine(xhat, _bn_gamma(gamma, fix_gamma).astype(data.dtype, copy=False),
                  beta.astype(data.dtype, copy=False), axis)
    return out.astype(data.dtype, copy=False), mean.reshape(-1), invstd.reshape(-1)


def _batch_norm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9,
                fix_gamma=True, use_global_stats=False, output_mean_var=False, axis=1,
                cudnn_off=False, min_calib_range=None, max_calib_range=None):
    """Inference: normalize with the moving statistics."""
    axis, _ = _bn_axes(data.shape, axis)
    eps = _eps(eps, "BatchNorm")
    dt = data.dtype
    mean = _along(moving_mean.astype(dt, copy=False), data.ndim, axis)
    invstd = _along((1.0 / np.sqrt(moving_var + eps)).astype(dt, copy=False), data.ndim, axis)
    return _bn_apply(data, gamma, beta, mean, invstd, axis, fix_gamma)


def _batch_norm_train(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9,
                      fix_gamma=True, use_global_stats=False, output_mean_var=False, axis=1,
                      cudnn_off=False, min_calib_range=None, max_calib_range=None):
    """Training: normalize with the batch statistics and return the updated moving
    statistics after the outputs (``mutate_aux``)."""
    if _bool(use_global_stats):
        outs = _batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum,
                           fix_gamma, use_global_stats, output_mean_var, axis)
        return outs + (moving_mean, moving_var)
    axis, red = _bn_axes(data.shape, axis)
    eps = _eps(eps, "BatchNorm")
    mean, invstd, var = _moments(data, red, eps, with_var=True)
    out = _bn_apply(data, gamma, beta, mean, invstd, axis, fix_gamma)
    m = float(momentum)
    batch_var = var.reshape(-1)
    new_mean = (moving_mean * m + out[1] * (1.0 - m)).astype(moving_mean.dtype, copy=False)
    new_var = (moving_var * m + batch_var * (1.0 - m)).astype(moving_var.dtype, copy=False)
    return out + (new_mean, new_var)


def _batch_norm_grad(ograds, inputs, outputs, eps=1e-3, momentum=0.9, fix_gamma=True,
                     use_global_stats=False, axis=1, **_):
    data, gamma = inputs[0], inputs[1]
    axis, red = _bn_axes(data.shape, axis)
    mean = _along(outputs[1], data.ndim, axis)
    invstd = _along(outputs[2], data.ndim, axis)
    g = _bn_gamma(gamma, fix_gamma).astype(data.dtype, copy=False)
    dx, dgamma, dbeta = _norm_grad(ograds[0], data, g, mean, invstd, red, axis,
                                   not _bool(use_global_stats))
    if _bool(fix_gamma):
        dgamma = np.zeros_like(gamma)
    grads = [dx, dgamma.astype(gamma.dtype, copy=False),
             dbeta.astype(inputs[2].dtype, copy=False)]
    return grads + [None] * (len(inputs) - 3)       # the aux states (imperative calls)


def _bn_channels(dshape, axis):
    axis, _ = _bn_axes(dshape, axis)
    return int(dshape[axis])


def _batch_norm_infer(in_shapes, in_dtypes, axis=1, eps=1e-3, **_):
    _eps(eps, "BatchNorm")
    c = _bn_channels(in_shapes[0], axis)
    _vector_shapes("BatchNorm", in_shapes, c, f"data {tuple(in_shapes[0])} with axis={axis}")
    return [tuple(in_shapes[0]), (c,), (c,)], [in_dtypes[0]] * 3


def _batch_norm_infer_args(in_shapes, axis=1, **_):
    if in_shapes[0] is None:
        raise ValueError("BatchNorm: the data shape is needed to infer gamma, beta and "
                         "the moving statistics")
    c = _bn_channels(in_shapes[0], axis)
    return _vector_shapes("BatchNorm", in_shapes, c,
                          f"data {tuple(in_shapes[0])} with axis={axis}")


def _mean_var_visible(params):
    return 3 if _bool(params.get("output_mean_var")) else 1


defop("BatchNorm", _batch_norm, train_kernel=_batch_norm_train,
      arg_names=("data", "gamma", "beta"), aux_names=("moving_mean", "moving_var"),
      mutate_aux=True, infer=_batch_norm_infer, infer_args=_batch_norm_infer_args,
      grad=_batch_norm_grad, num_outputs=3, visible_outputs=_mean_var_visible,
      output_names=("output", "mean", "var"), cost=lambda s, **_: 8 * input_size(s),
      params=dict(_BN_PARAMS), aliases=("BatchNorm_v1",))   # MXNet's legacy BatchNorm


# -- contrib SyncBatchNorm: BatchNorm over axis 1 across devices; with one device (ndev=1,
# all xprof has) it is BatchNorm, but its third output is the variance, not 1/std -------
_SYNC_PARAMS = {"eps": 1e-3, "momentum": 0.9, "fix_gamma": True, "use_global_stats": False,
                "output_mean_var": False, "ndev": 1, "key": ""}


def _sync_bn(kernel):
    def run(data, gamma, beta, moving_mean, moving_var, ndev=1, key="", **params):
        if int(ndev) != 1:
            raise ValueError(f"SyncBatchNorm: ndev={ndev} is not supported; xprof has one "
                             "device (use ndev=1)")
        outs = kernel(data, gamma, beta, moving_mean, moving_var, axis=1, **params)
        eps = _eps(params.get("eps", 1e-3), "SyncBatchNorm")
        var = (1.0 / np.square(outs[2].astype(np.float64)) - eps).astype(outs[2].dtype)
        return outs[:2] + (var,) + tuple(outs[3:])
    return run


def _sync_bn_grad(ograds, inputs, outputs, eps=1e-3, ndev=1, key="", **params):
    invstd = (1.0 / np.sqrt(outputs[2].astype(np.float64) + eps)).astype(outputs[2].dtype)
    return _batch_norm_grad(ograds, inputs, [outputs[0], outputs[1], invstd], eps=eps,
                            axis=1, **params)


defop("_contrib_SyncBatchNorm", _sync_bn(_batch_norm), train_kernel=_sync_bn(_batch_norm_train),
      arg_names=("data", "gamma", "beta"), aux_names=("moving_mean", "moving_var"),
      mutate_aux=True, infer=_batch_norm_infer, infer_args=_batch_norm_infer_args,
      grad=_sync_bn_grad, num_outputs=3, visible_outputs=_mean_var_visible,
      output_names=("output", "mean", "var"), cost=lambda s, **_: 8 * input_size(s),
      params=dict(_SYNC_PARAMS))


# -- LayerNorm -------------------------------------------------------------------------
def _layer_norm(data, gamma, beta, axis=-1, eps=1e-5, output_mean_var=False):
    axis = _axis(axis, data.ndim, "LayerNorm")
    mean, invstd = _moments(data, (axis,), _eps(eps, "LayerNorm"))
    out = _affine((data - mean) * invstd, gamma.astype(data.dtype, copy=False),
                  beta.astype(data.dtype, copy=False), axis)
    return out.astype(data.dtype, copy=False), mean, (1.0 / invstd).astype(data.dtype)


def _layer_norm_grad(ograds, inputs, outputs, axis=-1, eps=1e-5, **_):
    data, gamma, beta = inputs
    axis = _axis(axis, data.ndim, "LayerNorm")
    invstd = (1.0 / outputs[2]).astype(data.dtype, copy=False)
    dx, dgamma, dbeta = _norm_grad(ograds[0], data, gamma.astype(data.dtype, copy=False),
                                   outputs[1], invstd, (axis,), axis, True)
    return [dx, dgamma.astype(gamma.dtype, copy=False), dbeta.astype(beta.dtype, copy=False)]


def _layer_norm_shapes(in_shapes, axis):
    dshape = tuple(in_shapes[0])
    ax = _axis(axis, len(dshape), "LayerNorm")
    shapes = _vector_shapes("LayerNorm", in_shapes, dshape[ax],
                            f"data {dshape} with axis={axis}")
    return shapes, dshape[:ax] + (1,) + dshape[ax + 1:]


def _layer_norm_infer(in_shapes, in_dtypes, axis=-1, eps=1e-5, **_):
    _eps(eps, "LayerNorm")
    _, stat = _layer_norm_shapes(in_shapes, axis)
    return [tuple(in_shapes[0]), stat, stat], [in_dtypes[0]] * 3


def _layer_norm_infer_args(in_shapes, axis=-1, **_):
    if in_shapes[0] is None:
        raise ValueError("LayerNorm: the data shape is needed to infer gamma and beta")
    return _layer_norm_shapes(in_shapes, axis)[0]


defop("LayerNorm", _layer_norm, arg_names=("data", "gamma", "beta"),
      infer=_layer_norm_infer, infer_args=_layer_norm_infer_args, grad=_layer_norm_grad,
      num_outputs=3, visible_outputs=_mean_var_visible, output_names=("output", "mean", "std"),
      cost=lambda s, **_: 8 * input_size(s),
      params={"axis": -1, "eps": 1e-5, "output_mean_var": False})


# -- InstanceNorm ----------------------------------------------------------------------
def _spatial_axes(data, opname):
    if data.ndim < 3:
        raise ValueError(f"{opname}: data needs at least 3 dimensions (N, C, spatial...), "
                         f"got shape {tuple(data.shape)}")
    return tuple(range(2, data.ndim))


def _instance_norm(data, gamma, beta, eps=1e-3):
    red = _spatial_axes(data, "InstanceNorm")
    mean, invstd, var = _moments(data, red, _eps(eps, "InstanceNorm"), with_var=True)
    out = _affine((data - mean) * invstd, gamma.astype(data.dtype, copy=False),
                  beta.astype(data.dtype, copy=False), 1)
    n, c = data.shape[:2]
    return (out.astype(data.dtype, copy=False), mean.reshape(n, c),
            var.reshape(n, c).astype(data.dtype))


def _instance_norm_grad(ograds, inputs, outputs, eps=1e-3):
    data, gamma, beta = inputs
    red = _spatial_axes(data, "InstanceNorm")
    shape = data.shape[:2] + (1,) * len(red)
    mean = outputs[1].reshape(shape)
    invstd = (1.0 / np.sqrt(outputs[2].astype(np.float64) + float(eps))).reshape(shape)
    dx, dgamma, dbeta = _norm_grad(ograds[0], data, gamma.astype(data.dtype, copy=False),
                                   mean, invstd.astype(data.dtype), red, 1, True)
    return [dx, dgamma.astype(gamma.dtype, copy=False), dbeta.astype(beta.dtype, copy=False)]


def _instance_norm_shapes(in_shapes):
    dshape = tuple(in_shapes[0])
    if len(dshape) < 3:
        raise ValueError(f"InstanceNorm: data needs at least 3 dimensions (N, C, "
                         f"spatial...), got shape {dshape}")
    return _vector_shapes("InstanceNorm", in_shapes, dshape[1], f"data {dshape}")


def _instance_norm_infer(in_shapes, in_dtypes, eps=1e-3):
    _eps(eps, "InstanceNorm")
    _instance_norm_shapes(in_shapes)
    stat = tuple(in_shapes[0][:2])
    return [tuple(in_shapes[0]), stat, stat], [in_dtypes[0]] * 3


def _instance_norm_infer_args(in_shapes, **_):
    if in_shapes[0] is None:
        raise ValueError("InstanceNorm: the data shape is needed to infer gamma and beta")
    return _instance_norm_shapes(in_shapes)


defop("InstanceNorm", _instance_norm, arg_names=("data", "gamma", "beta"),
      infer=_instance_norm_infer, infer_args=_instance_norm_infer_args,
      grad=_instance_norm_grad, num_outputs=3, visible_outputs=1,
      output_names=("output", "mean", "var"), cost=lambda s, **_: 8 * input_size(s),
      params={"eps": 1e-3})


# -- GroupNorm -------------------------------------------------------------------------
def _groups(shape, num_groups):
    g = _positive_int(num_groups, "num_groups", "GroupNorm")
    if len(shape) < 2:
        raise ValueError(f"GroupNorm: data needs at least 2 dimensions (N, C, ...), got "
                         f"shape {tuple(shape)}")
    if shape[1] % g:
        raise ValueError(f"GroupNorm: num_groups={g} must divide the {shape[1]} channels "
                         f"of data {tuple(shape)}")
    return g


def _grouped(data, g):
    """(N, C, ...) -> (N, G, C/G, ...) view, and its reduction axes."""
    n, c = data.shape[:2]
    x = data.reshape((n, g, c // g) + data.shape[2:])
    return x, tuple(range(2, x.ndim))


def _group_norm(data, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    g = _groups(data.shape, num_groups)
    x, red = _grouped(data, g)
    mean, invstd = _moments(x, red, _eps(eps, "GroupNorm"))
    out = _affine((x - mean) * invstd, gamma.astype(data.dtype, copy=False),
                  beta.astype(data.dtype, copy=False), 1)
    n = data.shape[0]
    return (out.reshape(data.shape).astype(data.dtype, copy=False), mean.reshape(n, g),
            (1.0 / invstd).reshape(n, g).astype(data.dtype))


def _group_norm_grad(ograds, inputs, outputs, num_groups=1, eps=1e-5, **_):
    data, gamma, beta = inputs
    g = _groups(data.shape, num_groups)
    x, red = _grouped(data, g)
    shape = (data.shape[0], g) + (1,) * len(red)
    mean = outputs[1].reshape(shape)
    invstd = (1.0 / outputs[2]).reshape(shape).astype(data.dtype, copy=False)
    og = ograds[0].reshape(x.shape)
    dx, dgamma, dbeta = _norm_grad(og, x, gamma.astype(data.dtype, copy=False), mean, invstd,
                                   red, 1, True)
    return [dx.reshape(data.shape), dgamma.astype(gamma.dtype, copy=False),
            dbeta.astype(beta.dtype, copy=False)]


def _group_norm_shapes(in_shapes, num_groups):
    dshape = tuple(in_shapes[0])
    g = _groups(dshape, num_groups)
    return g, _vector_shapes("GroupNorm", in_shapes, g,
                             f"data {dshape} with num_groups={g}")


def _group_norm_infer(in_shapes, in_dtypes, num_groups=1, eps=1e-5, **_):
    _eps(eps, "GroupNorm")
    g, _ = _group_norm_shapes(in_shapes, num_groups)
    stat = (in_shapes[0][0], g)
    return [tuple(in_shapes[0]), stat, stat], [in_dtypes[0]] * 3


def _group_norm_infer_args(in_shapes, num_groups=1, **_):
    if in_shapes[0] is None:
        raise ValueError("GroupNorm: the data shape is needed to infer gamma and beta")
    return _group_norm_shapes(in_shapes, num_groups)[1]


defop("GroupNorm", _group_norm, arg_names=("data", "gamma", "beta"),
      infer=_group_norm_infer, infer_args=_group_norm_infer_args, grad=_group_norm_grad,
      num_outputs=3, visible_outputs=_mean_var_visible, output_names=("output", "mean", "std"),
      cost=lambda s, **_: 8 * input_size(s),
      params={"num_groups": 1, "eps": 1e-5, "output_mean_var": False})
