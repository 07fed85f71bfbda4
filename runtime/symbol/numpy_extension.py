"""``mx.sym.npx``: ``mx.npx``'s operators composed on np symbols (the same registered
operators, MXNet 2's names and keywords: ``npx.FORWARDED``'s table)."""
from ..numpy_extension._ops import FORWARDED
from .numpy import _Symbol, apply
from .functions import _fn

__all__ = ["relu", "sigmoid", "reshape", "fully_connected", "convolution", "batch_norm"]


def _forward(opname, name, rename, drop):
    fn = _fn(opname)

    def sym_fn(*args, **kwargs):
        for key in drop:
            kwargs.pop(key, None)
        for key, target in (rename or {}).items():
            if key in kwargs:
                kwargs[target] = kwargs.pop(key)
        return _Symbol(fn(*args, **kwargs)._outputs)
    sym_fn.__name__ = sym_fn.__qualname__ = name
    return sym_fn


for _name, (_op, _rename, _drop) in FORWARDED.items():
    globals()[_name] = _forward(_op, _name, _rename, _drop)
    __all__.append(_name)


def relu(data, **kwargs):
    return apply("_npx_relu", (data,))


def sigmoid(data, **kwargs):
    return apply("_npx_sigmoid", (data,))


def reshape(a, newshape, reverse=False, order="C"):
    from .numpy import reshape as _reshape
    return _reshape(a, newshape, reverse)


def fully_connected(x, weight, bias=None, num_hidden=None, no_bias=None, flatten=True,
                    **kwargs):
    inputs = (x, weight) if bias is None else (x, weight, bias)
    return apply("FullyConnected", inputs, {"num_hidden": int(num_hidden),
                                            "no_bias": bias is None,
                                            "flatten": bool(flatten)})


def convolution(data=None, weight=None, bias=None, kernel=None, stride=None, dilate=None,
                pad=None, num_filter=1, num_group=1, no_bias=False, layout=None, **kwargs):
    inputs = (data, weight) if bias is None else (data, weight, bias)
    return apply("Convolution", inputs, {
        "kernel": tuple(kernel), "stride": tuple(stride or ()), "dilate": tuple(dilate or ()),
        "pad": tuple(pad or ()), "num_filter": int(num_filter), "num_group": int(num_group),
        "no_bias": bias is None, "layout": layout})


def batch_norm(x, gamma, beta, running_mean, running_var, **kwargs):
    return _Symbol(_fn("BatchNorm")(x, gamma, beta, running_mean, running_var,
                                    **kwargs)._outputs)
