"""Operators that decide what flows backward: ``BlockGrad``/``stop_gradient`` (identity
forward, no gradient), ``MakeLoss``/``make_loss`` (identity forward; the gradient is
``grad_scale`` for every element, whatever the head gradient: the output *is* the loss)
and ``identity`` (a copy; ``_copy`` is in :mod:`.elemwise`)."""
import numpy as np

from . import elemwise  # noqa: F401 - _copy, which identity names
from .registry import alias, defop, input_size


def _identity(data, **_):
    return data


def _block_grad(ograds, inputs, outputs, **_):
    return [np.zeros_like(inputs[0])]


def _pass_grad(ograds, inputs, outputs, **_):
    g = ograds[0]
    return [np.zeros_like(inputs[0]) if g is None else g]


defop("BlockGrad", _identity, grad=_block_grad, cost=input_size, aliases=("stop_gradient",))
alias("identity", "_copy")     # MXNet: identity is _copy's alias

_NORMALIZATIONS = ("null", "batch", "valid")


def _make_loss_grad(ograds, inputs, outputs, grad_scale=1.0, valid_thresh=0.0,
                    normalization="null"):
    data = inputs[0]
    if normalization not in _NORMALIZATIONS:
        raise ValueError(f"MakeLoss: normalization={normalization!r} is not one of "
                         f"{', '.join(_NORMALIZATIONS)}")
    scale = float(grad_scale)
    if normalization == "batch" and data.ndim:
        scale /= max(data.shape[0], 1)
    elif normalization == "valid":
        scale /= max(int((data > float(valid_thresh)).sum()), 1)
    return [np.full(data.shape, scale, dtype=data.dtype)]


_LOSS_PARAMS = {"grad_scale": 1.0, "valid_thresh": 0.0, "normalization": "null"}
for _name in ("MakeLoss", "make_loss"):
    defop(_name, _identity, grad=_make_loss_grad, cost=input_size, params=_LOSS_PARAMS)

