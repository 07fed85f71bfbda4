"""Activations: ``Activation`` (relu, sigmoid, tanh, softrelu, softsign, ...) and
``LeakyReLU`` (leaky, prelu, elu, selu, gelu, rrelu), each gradient next to its kernel."""

import numpy as np

from .params import _ACTIVE, _as
from .registry import defop, input_size, same_shape
from .relu_kernel import relu as _relu


# -- activations -----------------------------------------------------------------------
def _sigmoid(x):
    # 0.5 * (1 + tanh(x / 2)) is the logistic function without exp overflow warnings.
    out = np.tanh(x * 0.5)
    out += 1
    out *= 0.5
    return out


def _softrelu(x):
    return np.logaddexp(x, 0)


_ACTIVATIONS = {
    # act_type: (forward, gradient from (og, x, out))
    "relu": (_relu, lambda og, x, o: og * (o > 0)),
    "sigmoid": (_sigmoid, lambda og, x, o: og * (o * (1 - o))),
    "tanh": (np.tanh, lambda og, x, o: og * (1 - o * o)),
    "softrelu": (_softrelu, lambda og, x, o: og * _sigmoid(x)),
    "softsign": (lambda x: x / (1 + np.abs(x)),
                 lambda og, x, o: og / np.square(1 + np.abs(x))),
    "log_sigmoid": (lambda x: -_softrelu(-x), lambda og, x, o: og * _sigmoid(-x)),
    "mish": (lambda x: x * np.tanh(_softrelu(x)),
             lambda og, x, o: og * _mish_slope(x)),
}


def _mish_slope(x):
    t = np.tanh(_softrelu(x))
    return t + x * (1 - t * t) * _sigmoid(x)


def _act_fns(act_type):
    try:
        return _ACTIVATIONS[act_type]
    except KeyError:
        raise ValueError(f"Activation: act_type={act_type!r} is not one of "
                         f"{sorted(_ACTIVATIONS)}") from None


def _activation(data, act_type="relu"):
    return _as(data, _act_fns(act_type)[0](data))


def _activation_grad(ograds, inputs, outputs, act_type="relu"):
    x = inputs[0]
    return [_as(x, _act_fns(act_type)[1](ograds[0], x, outputs[0]))]


def _activation_infer(in_shapes, in_dtypes, act_type="relu", **_):
    _act_fns(act_type)
    return same_shape(in_shapes, in_dtypes)


defop("Activation", _activation, infer=_activation_infer, grad=_activation_grad,
      cost=input_size,   # relu, sigmoid, tanh: the gradient from the output alone
      grad_reads=lambda p: ((), True) if p.get("act_type", "relu") in (
          "relu", "sigmoid", "tanh") else None,
      params={"act_type": "relu"})


_SELU_ALPHA = 1.6732632423543772
_SELU_LAMBDA = 1.0507009873234985
_GELU_C = 0.7978845608028654      # sqrt(2 / pi); MXNet's gelu is the tanh approximation
_GELU_K = 0.044715


def _gelu_parts(x):
    inner = _GELU_C * (x + _GELU_K * x * x * x)
    return inner, np.tanh(inner)


_ACT_TYPES = ("leaky", "elu", "selu", "gelu", "gelu_tanh", "gelu_erf", "prelu")


def _leaky_check(act_type):
    """MXNet 1.x's act types; MXNet 2's ``gelu_tanh`` (1.x's ``gelu``) and ``gelu_erf``."""
    if act_type not in _ACT_TYPES:
        raise ValueError(f"LeakyReLU: act_type={act_type!r} is not supported; use one of "
                         + ", ".join(repr(t) for t in _ACT_TYPES))


def _gelu_erf_parts(x):
    """(Phi(x), phi(x)): the normal distribution's cdf and density at ``x``."""
    import math
    erf = np.vectorize(math.erf, otypes=[np.float64])
    xf = np.asarray(x, np.float64)
    return 0.5 * (1 + erf(xf / math.sqrt(2))), np.exp(-0.5 * xf * xf) / math.sqrt(2 * math.pi)


def _gamma_shape_for(gshape, dshape):
    """The shape PReLU's gamma broadcasts as against data ``dshape``, by MXNet's rule:
    gamma's last axes line up with the data's first two (the channel axis 1, then the
    batch axis 0), each equal or 1; the data's other axes take 1. So (1,), (c,), and
    (n, c) for an (n, c, ...) input, or gamma shaped as a 2-D input itself."""
    gshape, dshape = tuple(gshape), tuple(dshape)
    out, s = [1] * len(dshape), len(gshape) - 1
    for i in range(min(len(dshape), 2) - 1, -1, -1):
        if s >= 0 and gshape[s] in (dshape[i], 1):
            out[i] = gshape[s]
            s -= 1
    if s >= 0 or not dshape:
        raise ValueError(f"LeakyReLU: gamma has shape {gshape}, which does not broadcast "
                         f"against data {dshape} (allowed: (1,), (channels,), or the "
                         f"first two data axes)")
    return tuple(out)


def _gamma_view(gamma, dshape):
    """PReLU's gamma reshaped to broadcast against data of shape ``dshape``."""
    return gamma.reshape(_gamma_shape_for(gamma.shape, dshape))


def _leaky(data, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125,
           upper_bound=0.334):
    _leaky_check(act_type)
    x = data
    slope = float(slope)
    if act_type == "leaky":
        out = np.where(x > 0, x, x * slope)
    elif act_type == "prelu":
        if gamma is None:
            raise ValueError("LeakyReLU: act_type='prelu' needs the gamma input")
        out = np.where(x > 0, x, x * _gamma_view(gamma, x.shape))
    elif act_type == "elu":
        out = np.where(x > 0, x, slope * np.expm1(np.minimum(x, 0)))
    elif act_type == "selu":
        out = _SELU_LAMBDA * np.where(x > 0, x, _SELU_ALPHA * np.expm1(np.minimum(x, 0)))
    elif act_type == "gelu_erf":
        out = x * _gelu_erf_parts(x)[0]
    else:
        out = 0.5 * x * (1 + _gelu_parts(x)[1])
    return _as(data, out)


def _leaky_grad(ograds, inputs, outputs, act_type="leaky", slope=0.25, lower_bound=0.125,
                upper_bound=0.334):
    x, og = inputs[0], ograds[0]
    slope = float(slope)
    pos = x > 0
    if act_type == "leaky":
        return [_as(x, og * np.where(pos, 1, slope).astype(x.dtype))]
    if act_type == "prelu":
        gamma = inputs[1]
        gv = _gamma_view(gamma, x.shape)
        gx = og * np.where(pos, 1, gv)
        gg = np.where(pos, 0, og * x)
        gg = gg.sum(axis=tuple(i for i in range(x.ndim) if gv.shape[i] == 1), keepdims=True)
        return [_as(x, gx), _as(gamma, gg.reshape(gamma.shape))]
    if act_type == "elu":
        return [_as(x, og * np.where(pos, 1, slope * np.exp(np.minimum(x, 0))))]
    if act_type == "selu":
        return [_as(x, og * (_SELU_LAMBDA * np.where(
            pos, 1, _SELU_ALPHA * np.exp(np.minimum(x, 0)))))]
    if act_type == "gelu_erf":
        cdf, pdf = _gelu_erf_parts(x)
        return [_as(x, og * (cdf + x * pdf))]
    inner, t = _gelu_parts(x)
    d_inner = _GELU_C * (1 + 3 * _GELU_K * x * x)
    return [_as(x, og * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner))]


def _leaky_infer(in_shapes, in_dtypes, act_type="leaky", **_):
    _leaky_check(act_type)
    if act_type == "prelu" and len(in_shapes) > 1 and in_shapes[1] is not None:
        _gamma_shape_for(in_shapes[1], in_shapes[0])
    return [tuple(in_shapes[0])], [in_dtypes[0]]


def _prelu_gamma_shape(dshape):
    return (dshape[1],) if len(dshape) >= 2 else (1,)


def _leaky_infer_args(in_shapes, act_type="leaky", **_):
    shapes = list(in_shapes)
    if act_type == "prelu" and len(shapes) > 1 and shapes[1] is None:
        if shapes[0] is None:
            raise ValueError("LeakyReLU: the data shape is needed to infer gamma's shape")
        shapes[1] = _prelu_gamma_shape(shapes[0])
    return shapes


defop("LeakyReLU", _leaky, arg_names=("data", "gamma"), infer=_leaky_infer,
      infer_args=_leaky_infer_args, grad=_leaky_grad, cost=input_size,
      params={"act_type": "leaky", "slope": 0.25, "lower_bound": 0.125,
              "upper_bound": 0.334})
_ACTIVE["LeakyReLU"] = lambda p: (("data", "gamma") if p.get("act_type") == "prelu"
                                  else ("data",))
