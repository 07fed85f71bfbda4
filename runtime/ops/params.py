"""Operator parameters: parsing the values MXNet passes (tuples as strings, booleans
as ``"True"``), normalizing axes, and which optional inputs an op takes.

Shared by every operator module, and read by the NDArray, symbol and autograd layers
(``parse_tuple``, ``active_args``).

Optional inputs. ``FullyConnected`` and ``Convolution`` declare
``arg_names=("data", "weight", "bias")`` and ``LeakyReLU`` declares
``("data", "gamma")``, but which of them an op takes depends on its params (``no_bias``,
``act_type='prelu'``). :func:`active_args` gives the names actually taken (an op module
states its rule in ``_ACTIVE``); inputs are always passed positionally in that order
(``kernel(data, weight, num_hidden=10, no_bias=True)``), and the gradient returns one
array per input passed. ``infer_args(in_shapes, **params)`` takes one shape (or None when
unknown) per active argument and returns them all filled in, raising ``ValueError`` on a
contradiction.

Operators without a gradient (``argmax``, ``one_hot``, integer inputs such as indices)
return zeros (``_zeros_grad``), as MXNet does.
"""
import ast
import math

import numpy as np

from . import registry as _registry

__all__ = ["parse_tuple", "active_args"]


# -- parameter helpers --------------------------------------------------------------
def parse_tuple(value, name="shape"):
    """A tuple of ints (or ``None``) from a param given as a tuple, list, int or string."""
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text in ("", "()", "[]", "None"):
            return ()
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ValueError(f"{name}={value!r} is not a tuple of integers") from None
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        return tuple(None if v is None else int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a tuple of integers") from None


def _bool(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _dtype(value, default="float32"):
    return np.dtype(default if value is None else value)


def _axis(axis, ndim, opname, extra=0):
    """Normalize ``axis`` against ``ndim`` (+``extra`` positions, for inserted axes)."""
    n = ndim + extra
    axis = int(axis)
    if not -n <= axis < n:
        raise ValueError(f"{opname}: axis {axis} is out of range for an array of "
                         f"{ndim} dimensions")
    return axis % n


def _size(shape):
    return math.prod(int(n) for n in shape)


def _cheap(in_shapes, **_):
    """Cost of an op whose kernel returns a view: constant."""
    return 1


@_registry.reads_no_out_grads
def _zeros_grad(ograds, inputs, outputs, **_):
    return [np.zeros_like(x) for x in inputs]


def _og(ograds, i, outputs):
    """Output gradient ``i``, zeros when the caller passed None (an unused output)."""
    g = ograds[i] if i < len(ograds) else None
    return np.zeros_like(outputs[i]) if g is None else g


# -- optional inputs -----------------------------------------------------------------
_ACTIVE = {}


def active_args(op, params=None):
    """The argument names ``op`` (an OpDef or a name) takes under ``params``.

    FullyConnected/Convolution drop ``bias`` when ``no_bias``; LeakyReLU takes ``gamma``
    only for ``act_type='prelu'``; every other op takes all of ``op.arg_names``.
    """
    if isinstance(op, str):
        op = _registry.get(op)
    rule = _ACTIVE.get(op.name)
    if rule is None:
        return op.list_arguments(params or {})   # (``op.arg_names``, or the op's answer)
    merged = dict(op.params)
    merged.update(params or {})
    return rule(merged)


def _without_bias(params):
    return ("data", "weight") if _bool(params.get("no_bias")) else ("data", "weight", "bias")


def _as(like, value):
    return value if value.dtype == like.dtype else value.astype(like.dtype)


def _check_arg_shapes(opname, names, given, expected, context):
    for name, g, e in zip(names, given, expected):
        if g is not None and tuple(g) != tuple(e):
            raise ValueError(f"{opname}: {name} has shape {tuple(g)}, expected {tuple(e)} "
                             f"for {context}")


def _positive_int(value, name, opname):
    if value is None:
        raise ValueError(f"{opname}: {name} is required")
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{opname}: {name}={value!r} is not an integer") from None
    if n < 1 or n != value and not isinstance(value, str):
        raise ValueError(f"{opname}: {name}={value!r} must be a positive integer")
    return n
