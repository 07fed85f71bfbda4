"""``mx.npx``'s operator functions: MXNet 2's names and signatures over the registered
operators MXNet 2 runs for them (``npx.convolution`` is ``Convolution``,
``npx.fully_connected`` ``FullyConnected``, ``npx.softmax`` ``softmax``...), each
called through the function ``mx.nd`` generates for the operator (the same parameter
checks), on np arrays, so results are np arrays.
"""
import numpy as _onp

from ..ndarray.functions import _make_function
from ..ndarray.ndarray import NDArray, invoke
from ..numpy import _reductions, _shape
from ..numpy._ufuncs import make_unary
from ..numpy.multiarray import to_np
from ..ops import registry as _registry

__all__ = ["FORWARDED", "forward", "install"]

_EXP, _LOG = make_unary("exp", "_npi_exp"), make_unary("log", "_npi_log")


def _np_args(args, kwargs):
    args = [to_np(a) if isinstance(a, (NDArray, _onp.ndarray)) else a for a in args]
    kwargs = {k: to_np(v) if isinstance(v, NDArray) else v for k, v in kwargs.items()}
    return args, kwargs


def forward(opname, name, rename=None, drop=()):
    """``npx.<name>``: operator ``opname`` through ``mx.nd``'s generated function, with
    MXNet 2's keyword ``rename`` (npx name -> operator name) and ``drop`` (keywords MXNet
    2 takes that the operator has no use for, when given their defaults)."""
    fn = _make_function(_registry.get(opname), name)
    rename = rename or {}

    def npx_fn(*args, **kwargs):
        for key in drop:
            kwargs.pop(key, None)
        for key, target in rename.items():
            if key in kwargs:
                kwargs[target] = kwargs.pop(key)
        args, kwargs = _np_args(args, kwargs)
        return fn(*args, **kwargs)
    npx_fn.__name__ = npx_fn.__qualname__ = name
    npx_fn.__doc__ = f"MXNet 2's ``npx.{name}``: operator ``{opname}``."
    return npx_fn


# npx name -> (operator, keyword renames, keywords dropped)
FORWARDED = {
    "activation": ("Activation", None, ()),
    "softmax": ("softmax", None, ("length",)),
    "log_softmax": ("log_softmax", None, ("length",)),
    "leaky_relu": ("LeakyReLU", None, ()),
    "one_hot": ("one_hot", None, ()),
    "pick": ("pick", None, ()),
    "topk": ("topk", None, ()),
    "layer_norm": ("LayerNorm", None, ()),
    "group_norm": ("GroupNorm", None, ()),
    "instance_norm": ("InstanceNorm", None, ()),
    "sequence_mask": ("SequenceMask", None, ()),
    "sequence_last": ("SequenceLast", None, ()),
    "sequence_reverse": ("SequenceReverse", None, ()),
    "batch_dot": ("batch_dot", None, ()),
    "batch_flatten": ("Flatten", None, ()),
    "stop_gradient": ("BlockGrad", None, ()),
    "slice_channel": ("SliceChannel", None, ()),
    "reshape_like": ("reshape_like", None, ()),
    "shape_array": ("shape_array", None, ()),
    "gather_nd": ("gather_nd", None, ()),
    "roi_pooling": ("ROIPooling", None, ()),
    "ctc_loss": ("CTCLoss", None, ()),
    "broadcast_like": ("broadcast_like", None, ()),
    "smooth_l1": ("smooth_l1", None, ()),
    "softsign": ("softsign", None, ()),
    "erf": ("erf", None, ()),
    "erfinv": ("erfinv", None, ()),
    "gamma": ("gamma", None, ()),
    "gammaln": ("gammaln", None, ()),
    "arange_like": ("_contrib_arange_like", None, ()),
    "index_copy": ("_contrib_index_copy", None, ()),
    "scatter_nd": ("scatter_nd", None, ()),
    "slice_like": ("slice_like", None, ()),
    "l2_normalization": ("L2Normalization", None, ()),
    "upsampling": ("UpSampling", None, ()),
    "rnn": ("RNN", None, ()),
    "embedding": ("Embedding", None, ()),
    "dropout": ("Dropout", None, ()),
    "pooling": ("Pooling", None, ()),
    "deconvolution": ("Deconvolution", None, ()),
    "cast": ("Cast", None, ()),
    "norm": ("norm", None, ()),
}


def _fully_connected(x, weight, bias=None, num_hidden=None, no_bias=None, flatten=True,
                     **kwargs):
    """``FullyConnected``: ``x @ weight.T + bias`` (``no_bias`` follows ``bias``)."""
    inputs = [to_np(x), to_np(weight)] + ([] if bias is None else [to_np(bias)])
    if num_hidden is None:
        num_hidden = weight.shape[0]
    return invoke("FullyConnected", tuple(inputs), {"num_hidden": int(num_hidden),
                                                    "no_bias": bias is None,
                                                    "flatten": bool(flatten)})


def _convolution(data=None, weight=None, bias=None, kernel=None, stride=None, dilate=None,
                 pad=None, num_filter=1, num_group=1, workspace=1024, no_bias=False,
                 cudnn_tune=None, cudnn_off=False, layout=None):
    """``Convolution`` (``no_bias`` follows ``bias``)."""
    inputs = [to_np(data), to_np(weight)] + ([] if bias is None else [to_np(bias)])
    if kernel is None:
        kernel = weight.shape[2:]
    return invoke("Convolution", tuple(inputs), {
        "kernel": tuple(kernel), "stride": tuple(stride or ()), "dilate": tuple(dilate or ()),
        "pad": tuple(pad or ()), "num_filter": int(num_filter), "num_group": int(num_group),
        "workspace": workspace, "no_bias": bias is None, "cudnn_tune": cudnn_tune,
        "cudnn_off": cudnn_off, "layout": layout})


def _batch_norm(x, gamma, beta, running_mean, running_var, eps=1e-3, momentum=0.9,
                fix_gamma=True, use_global_stats=False, output_mean_var=False, axis=1,
                cudnn_off=False, min_calib_range=None, max_calib_range=None):
    """``BatchNorm`` (in training, the running statistics are updated in place)."""
    fn = _make_function(_registry.get("BatchNorm"), "batch_norm")
    return fn(to_np(x), to_np(gamma), to_np(beta), to_np(running_mean), to_np(running_var),
              eps=eps, momentum=momentum, fix_gamma=fix_gamma,
              use_global_stats=use_global_stats, output_mean_var=output_mean_var,
              axis=axis, cudnn_off=cudnn_off)


def _add_n(*args, out=None):
    return invoke("add_n", tuple(to_np(a) for a in args), {}, out=out)


def _nonzero(a):
    """The indices of ``a``'s nonzero elements as an (N, ndim) int64 array (``a`` is
    read: the count sets the shape, a sync point, as in MXNet)."""
    values = _onp.argwhere(to_np(a).asnumpy()).astype(_onp.int64)
    return to_np(values)


def _masked_softmax(data, mask, axis=-1, temperature=1.0, normalize=True):
    """softmax over ``axis`` of the elements where ``mask`` is true (0 elsewhere; a row
    with none gives zeros)."""
    data, mask = to_np(data), to_np(mask)
    keep = mask.astype(data.dtype)
    low = -6e4 if data.dtype == _onp.float16 else -1e30
    scaled = _shape.where(mask, data / temperature, low)
    ex = _EXP(scaled - _reductions.max(scaled, axis=axis, keepdims=True)) * keep
    total = _reductions.sum(ex, axis=axis, keepdims=True)
    return ex / (total + (total == 0))


def _masked_log_softmax(data, mask, axis=-1, temperature=1.0, normalize=True):
    return _LOG(_masked_softmax(data, mask, axis, temperature))


def install(namespace):
    for name, (opname, rename, drop) in FORWARDED.items():
        namespace[name] = forward(opname, name, rename, drop)
    namespace.update(fully_connected=_fully_connected, convolution=_convolution,
                     batch_norm=_batch_norm, add_n=_add_n, nonzero=_nonzero,
                     masked_softmax=_masked_softmax, masked_log_softmax=_masked_log_softmax)
    return namespace
