"""The softmax family and the softmax loss heads: ``softmax``, ``log_softmax``,
``SoftmaxOutput`` and ``softmax_cross_entropy``."""

import numpy as np

from .params import _ACTIVE, _as, _bool, _size
from .registry import defop, input_size


# -- softmax family ------------------------------------------------------------------
def _softmax_fwd(x, axis):
    if not x.size:                   # nothing to normalize (a zero-size axis included)
        return x.copy()
    e = x - x.max(axis=axis, keepdims=True)
    np.exp(e, out=e)           # in place: one array of the input's size, not two
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_fwd(x, axis):
    if not x.size:
        return x.copy()
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


def _scaled(x, temperature):
    if temperature is None or float(temperature) == 1.0:
        return x
    return x / float(temperature)


def _sm_axis(axis, ndim, opname):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{opname}: axis {axis} is out of range for an array of "
                         f"{ndim} dimensions")
    return axis % ndim


def _length_mask(shape, length, ax):
    """True where the position along ``ax`` is below that row's ``length``."""
    steps = np.arange(shape[ax]).reshape((-1,) + (1,) * (len(shape) - ax - 1))
    return steps < np.expand_dims(np.asarray(length).astype(np.int64), ax)


def _softmax(data, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
    ax = _sm_axis(axis, data.ndim, "softmax")
    x = _scaled(data, temperature)
    if length is None:
        return _softmax_fwd(x, ax).astype(dtype or data.dtype, copy=False)
    mask = _length_mask(data.shape, length, ax)       # MXNet: steps past length give 0
    with np.errstate(invalid="ignore"):
        out = _softmax_fwd(np.where(mask, x, -np.inf), ax)
    return np.where(mask, out, 0).astype(dtype or data.dtype, copy=False)


def _softmax_grad(ograds, inputs, outputs, axis=-1, temperature=None, dtype=None,
                  use_length=False):
    x, o, og = inputs[0], outputs[0], ograds[0]
    ax = _sm_axis(axis, x.ndim, "softmax")
    g = o * (og - (og * o).sum(axis=ax, keepdims=True))     # 0 where o is (masked)
    return [_as(x, _scaled(g, temperature))] + [np.zeros_like(v) for v in inputs[1:]]


def _log_softmax(data, axis=-1, temperature=None, dtype=None, use_length=False):
    out = _log_softmax_fwd(_scaled(data, temperature),
                           _sm_axis(axis, data.ndim, "log_softmax"))
    return out.astype(dtype or data.dtype, copy=False)


def _log_softmax_grad(ograds, inputs, outputs, axis=-1, temperature=None, dtype=None,
                      use_length=False):
    x, o, og = inputs[0], outputs[0], ograds[0]
    ax = _sm_axis(axis, x.ndim, "log_softmax")
    g = og - np.exp(o) * og.sum(axis=ax, keepdims=True)
    return [_as(x, _scaled(g, temperature))]


def _softmax_infer(opname):
    def infer(in_shapes, in_dtypes, axis=-1, dtype=None, use_length=False, **_):
        ax = _sm_axis(axis, len(in_shapes[0]), opname)
        if _bool(use_length):
            if opname != "softmax":
                raise ValueError(f"{opname}: use_length=True is not supported")
            want = tuple(in_shapes[0][:ax]) + tuple(in_shapes[0][ax + 1:])
            if len(in_shapes) < 2 or tuple(in_shapes[1]) != want:
                raise ValueError(f"softmax: use_length=True needs a length input of shape "
                                 f"{want}")
        return [tuple(in_shapes[0])], [np.dtype(dtype) if dtype else in_dtypes[0]]
    return infer


_SOFTMAX_PARAMS = {"axis": -1, "temperature": None, "dtype": None, "use_length": False}
defop("softmax", _softmax, arg_names=("data", "length"), infer=_softmax_infer("softmax"),
      grad=_softmax_grad, cost=input_size, params=dict(_SOFTMAX_PARAMS))
_ACTIVE["softmax"] = lambda p: ("data", "length") if _bool(p.get("use_length")) \
    else ("data",)
defop("log_softmax", _log_softmax, infer=_softmax_infer("log_softmax"),
      grad=_log_softmax_grad, cost=input_size, params=dict(_SOFTMAX_PARAMS))


# -- SoftmaxOutput and softmax_cross_entropy ----------------------------------------------
def _so_layout(dshape, multi_output, preserve_shape):
    """(axis of the classes in the working view, working shape, label shape)."""
    dshape = tuple(dshape)
    if len(dshape) < 1:
        raise ValueError("SoftmaxOutput: data needs at least one dimension")
    if _bool(multi_output):
        if len(dshape) < 2:
            raise ValueError(f"SoftmaxOutput: multi_output needs data (n, k, ...), got "
                             f"{dshape}")
        return 1, dshape, (dshape[0],) + dshape[2:]
    if _bool(preserve_shape):
        return len(dshape) - 1, dshape, dshape[:-1]
    work = (dshape[0], _size(dshape[1:]))
    return 1, work, (dshape[0],)


def _so_check_label(dshape, lshape, multi_output, preserve_shape):
    _, work, expected = _so_layout(dshape, multi_output, preserve_shape)
    lshape = tuple(lshape)
    if lshape == tuple(dshape) and len(dshape) > 1:
        return lshape          # a probability per class (soft labels), as MXNet allows
    if lshape != expected and _size(lshape) != _size(expected):
        raise ValueError(f"SoftmaxOutput: label has shape {lshape}, expected {expected} "
                         f"for data {tuple(dshape)}")
    return expected


_SO_PARAMS = {"grad_scale": 1.0, "ignore_label": -1.0, "multi_output": False,
              "use_ignore": False, "preserve_shape": False, "normalization": "null",
              "out_grad": False, "smooth_alpha": 0.0}


def _softmax_output(data, label, grad_scale=1.0, ignore_label=-1.0, multi_output=False,
                    use_ignore=False, preserve_shape=False, normalization="null",
                    out_grad=False, smooth_alpha=0.0):
    axis, work, _ = _so_layout(data.shape, multi_output, preserve_shape)
    return _softmax_fwd(data.reshape(work), axis).reshape(data.shape)


def _softmax_output_grad(ograds, inputs, outputs, grad_scale=1.0, ignore_label=-1.0,
                         multi_output=False, use_ignore=False, preserve_shape=False,
                         normalization="null", out_grad=False, smooth_alpha=0.0):
    """(softmax - one_hot(label)) * grad_scale / normalizer; the output gradient is
    ignored unless ``out_grad`` (as in MXNet: the op is a loss head)."""
    data, label = inputs
    axis, work, lshape = _so_layout(data.shape, multi_output, preserve_shape)
    if label.shape == data.shape and data.ndim > 1:
        # soft labels: the cross-entropy gradient against a distribution
        g = (outputs[0] - label.astype(outputs[0].dtype)) * float(grad_scale)
        if _bool(out_grad):
            g = g * ograds[0]
        return [_as(data, g), np.zeros_like(label)]
    prob = outputs[0].reshape(work)
    k = work[axis]
    lab = label.reshape(lshape)
    idx = np.clip(lab.astype(np.int64), 0, k - 1)
    idx = np.expand_dims(idx, axis)
    g = prob.copy()
    alpha = float(smooth_alpha)
    if alpha:
        g -= alpha / (k - 1) if k > 1 else 0.0
        np.put_along_axis(g, idx, np.take_along_axis(prob, idx, axis) - (1.0 - alpha), axis)
    else:
        np.put_along_axis(g, idx, np.take_along_axis(prob, idx, axis) - 1.0, axis)
    valid = None
    if _bool(use_ignore):
        valid = lab != float(ignore_label)
        g *= np.expand_dims(valid, axis)
    if normalization == "batch":
        scale = float(grad_scale) / work[0]
    elif normalization == "valid":
        count = int(valid.sum()) if valid is not None else lab.size
        scale = float(grad_scale) / max(count, 1)
    elif normalization == "null":
        scale = float(grad_scale)
    else:
        raise ValueError(f"SoftmaxOutput: normalization={normalization!r} must be "
                         f"'null', 'batch' or 'valid'")
    if _bool(multi_output) and normalization != "valid":
        scale /= max(_size(data.shape[2:]), 1)   # as MXNet: per position of the (n, k, ...) map
    g *= scale
    g = g.reshape(data.shape)
    if _bool(out_grad):
        g *= ograds[0]
    return [_as(data, g), np.zeros_like(label)]


def _softmax_output_infer(in_shapes, in_dtypes, multi_output=False, preserve_shape=False,
                          normalization="null", **_):
    if normalization not in ("null", "batch", "valid"):
        raise ValueError(f"SoftmaxOutput: normalization={normalization!r} must be "
                         f"'null', 'batch' or 'valid'")
    if len(in_shapes) > 1 and in_shapes[1] is not None:
        _so_check_label(in_shapes[0], in_shapes[1], multi_output, preserve_shape)
    return [tuple(in_shapes[0])], [in_dtypes[0]]


def _softmax_output_infer_args(in_shapes, multi_output=False, preserve_shape=False, **_):
    if in_shapes[0] is None:
        raise ValueError("SoftmaxOutput: the data shape is needed to infer the label shape")
    label = _so_layout(in_shapes[0], multi_output, preserve_shape)[2]
    given = in_shapes[1] if len(in_shapes) > 1 else None
    if given is not None:
        _so_check_label(in_shapes[0], given, multi_output, preserve_shape)
        label = tuple(given)
    return [tuple(in_shapes[0]), label]


defop("SoftmaxOutput", _softmax_output, arg_names=("data", "label"),
      infer=_softmax_output_infer, infer_args=_softmax_output_infer_args,
      grad=_softmax_output_grad, cost=input_size, params=dict(_SO_PARAMS),
      grad_reads=lambda p: ((1,), True))       # the label and the output, as MXNet's


def _sce_check(dshape, lshape):
    dshape, lshape = tuple(dshape), tuple(lshape)
    if len(dshape) != 2 or lshape != dshape[:1]:
        raise ValueError(f"softmax_cross_entropy: data must be (n, k) and label (n,), got "
                         f"data {dshape} and label {lshape}")


def _sce(data, label):
    _sce_check(data.shape, label.shape)
    logp = _log_softmax_fwd(data, 1)
    idx = np.clip(label.astype(np.int64), 0, data.shape[1] - 1)[:, None]
    return -np.take_along_axis(logp, idx, 1).sum(keepdims=True).reshape(1)


def _sce_grad(ograds, inputs, outputs):
    data, label = inputs
    g = _softmax_fwd(data, 1)
    idx = np.clip(label.astype(np.int64), 0, data.shape[1] - 1)[:, None]
    np.put_along_axis(g, idx, np.take_along_axis(g, idx, 1) - 1.0, 1)
    g *= ograds[0].reshape(())
    return [_as(data, g), np.zeros_like(label)]


def _sce_infer(in_shapes, in_dtypes, **_):
    _sce_check(in_shapes[0], in_shapes[1])
    return [(1,)], [in_dtypes[0]]


defop("softmax_cross_entropy", _sce, arg_names=("data", "label"), infer=_sce_infer,
      grad=_sce_grad, cost=lambda in_shapes, **_: _size(in_shapes[0]))


# -- softmin: softmax of -x -------------------------------------------------------------------
def _softmin(data, axis=-1, temperature=None, dtype=None, use_length=False):
    out = _softmax_fwd(-_scaled(data, temperature), _sm_axis(axis, data.ndim, "softmin"))
    return out.astype(dtype or data.dtype, copy=False)


def _softmin_grad(ograds, inputs, outputs, axis=-1, temperature=None, dtype=None,
                  use_length=False):
    x, o, og = inputs[0], outputs[0], ograds[0]
    ax = _sm_axis(axis, x.ndim, "softmin")
    g = -o * (og - (og * o).sum(axis=ax, keepdims=True))
    return [_as(x, _scaled(g, temperature))]


defop("softmin", _softmin, infer=_softmax_infer("softmin"), grad=_softmin_grad,
      cost=input_size, params=dict(_SOFTMAX_PARAMS))


# -- SoftmaxActivation (MXNet 1.x's deprecated form) -------------------------------------
def _sa_rows(shape, mode):
    """``(rows, classes)`` the softmax runs over: each instance's values flattened
    (``instance``), or the channel axis 1 (``channel``)."""
    if mode not in ("instance", "channel"):
        raise ValueError(f"SoftmaxActivation: mode={mode!r} must be 'instance' or 'channel'")
    if mode == "channel" and len(shape) < 2:
        raise ValueError("SoftmaxActivation: mode='channel' needs data with a channel axis 1")


def _softmax_activation(data, mode="instance"):
    _sa_rows(data.shape, mode)
    if mode == "instance":
        return _as(data, _softmax_fwd(data.reshape(data.shape[0], -1), 1).reshape(data.shape))
    return _as(data, _softmax_fwd(data, 1))


def _softmax_activation_grad(ograds, inputs, outputs, mode="instance"):
    x, o, og = inputs[0], outputs[0], ograds[0]
    if mode == "instance":
        o2, g2 = o.reshape(o.shape[0], -1), og.reshape(o.shape[0], -1)
        return [_as(x, (o2 * (g2 - (g2 * o2).sum(axis=1, keepdims=True))).reshape(x.shape))]
    return [_as(x, o * (og - (og * o).sum(axis=1, keepdims=True)))]


def _softmax_activation_infer(in_shapes, in_dtypes, mode="instance", **_):
    _sa_rows(tuple(in_shapes[0]), mode)
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("SoftmaxActivation", _softmax_activation, infer=_softmax_activation_infer,
      grad=_softmax_activation_grad, cost=input_size, params={"mode": "instance"})
