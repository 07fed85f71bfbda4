"""``FullyConnected``: ``data @ weight.T + bias``, flattening the data to 2-D unless
``flatten=False``; the gradient next to the kernel."""
from .params import (_ACTIVE, _as, _bool, _check_arg_shapes, _positive_int, _size,
                     _without_bias)
from .registry import defop


# -- FullyConnected ----------------------------------------------------------------
def _fc_geometry(dshape, num_hidden, flatten):
    dshape = tuple(dshape)
    hidden = _positive_int(num_hidden, "num_hidden", "FullyConnected")
    if not dshape:
        raise ValueError("FullyConnected: data needs at least one dimension")
    if _bool(flatten):
        return hidden, _size(dshape[1:]), (dshape[0], hidden)
    return hidden, dshape[-1], dshape[:-1] + (hidden,)


def _fc_arg_shapes(dshape, num_hidden, no_bias, flatten):
    hidden, units, _ = _fc_geometry(dshape, num_hidden, flatten)
    shapes = [tuple(dshape), (hidden, units)]
    return shapes if _bool(no_bias) else shapes + [(hidden,)]


def _fc(data, weight, bias=None, num_hidden=None, no_bias=False, flatten=True):
    hidden, units, out_shape = _fc_geometry(data.shape, num_hidden, flatten)
    x = data.reshape(-1, units)
    out = x @ weight.T
    if bias is not None and not _bool(no_bias):
        out += bias.reshape(-1)
    return _as(data, out).reshape(out_shape)


def _fc_grad(ograds, inputs, outputs, num_hidden=None, no_bias=False, flatten=True):
    data, weight = inputs[:2]
    hidden, units, _ = _fc_geometry(data.shape, num_hidden, flatten)
    x = data.reshape(-1, units)
    og = ograds[0].reshape(-1, hidden)
    grads = [_as(data, og @ weight).reshape(data.shape), _as(weight, og.T @ x)]
    if len(inputs) > 2:
        bias = inputs[2]
        grads.append(None if _bool(no_bias) else _as(bias, og.sum(axis=0)).reshape(bias.shape))
    return grads


def _fc_infer(in_shapes, in_dtypes, num_hidden=None, no_bias=False, flatten=True, **_):
    expected = _fc_arg_shapes(in_shapes[0], num_hidden, no_bias, flatten)
    if len(in_shapes) > 2 and in_shapes[2] is not None and len(expected) > 2 and \
            tuple(in_shapes[2]) == (expected[2][0], 1):      # MXNet takes (num_hidden, 1)
        in_shapes = list(in_shapes[:2]) + [expected[2]]
    _check_arg_shapes("FullyConnected", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])} and num_hidden={num_hidden}")
    return [_fc_geometry(in_shapes[0], num_hidden, flatten)[2]], [in_dtypes[0]]


def _fc_infer_args(in_shapes, num_hidden=None, no_bias=False, flatten=True, **_):
    if in_shapes[0] is None:
        raise ValueError("FullyConnected: the data shape is needed to infer weight and "
                         "bias shapes")
    expected = _fc_arg_shapes(in_shapes[0], num_hidden, no_bias, flatten)
    _check_arg_shapes("FullyConnected", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])} and num_hidden={num_hidden}")
    return expected[:len(in_shapes)]


def _fc_cost(in_shapes, num_hidden=None, flatten=True, **_):
    hidden, units, out_shape = _fc_geometry(in_shapes[0], num_hidden, flatten)
    return _size(out_shape) * units


defop("FullyConnected", _fc, arg_names=("data", "weight", "bias"), infer=_fc_infer,
      grad_reads=lambda p: ((0, 1), False),
      infer_args=_fc_infer_args, grad=_fc_grad, cost=_fc_cost,
      params={"num_hidden": None, "no_bias": False, "flatten": True})
_ACTIVE["FullyConnected"] = _without_bias
