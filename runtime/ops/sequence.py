"""Variable-length sequence operators (MXNet 1.x): ``SequenceMask``, ``SequenceLast``,
``SequenceReverse``.

``data`` is time-major (``axis=0``: ``(T, B, ...)``) or batch-major (``axis=1``:
``(B, T, ...)``); with ``use_sequence_length=True`` a second input ``sequence_length``
(one length per batch element, any numeric dtype) says how many steps of each sequence
are real; without it every sequence is ``T`` long. The lengths get no gradient.
"""
import numpy as np

from .params import _ACTIVE, _bool, _zeros_grad
from .registry import defop, input_size

_SEQ_PARAMS = {"use_sequence_length": False, "axis": 0}


def _active(params):
    return ("data", "sequence_length") if _bool(params.get("use_sequence_length")) \
        else ("data",)


def _geometry(opname, shape, axis, allowed=(0, 1)):
    axis = int(axis)
    if axis not in allowed:
        raise ValueError(f"{opname}: axis={axis} is not supported; use "
                         + " or ".join(str(a) for a in allowed))
    if len(shape) < 2:
        raise ValueError(f"{opname}: data needs at least 2 dimensions (time and batch), "
                         f"got shape {tuple(shape)}")
    return axis, shape[axis], shape[1 - axis]     # axis, T, B


def _lengths(opname, data, lengths, axis, use):
    axis, t, b = _geometry(opname, data.shape, axis)
    if not _bool(use) or lengths is None:
        return axis, np.full(b, t, dtype=np.int64)
    n = np.asarray(lengths).reshape(-1).astype(np.int64)
    if n.shape[0] != b:
        raise ValueError(f"{opname}: sequence_length has {n.shape[0]} entries for a batch "
                         f"of {b}")
    return axis, np.clip(n, 0, t)


def _seq_infer(opname, drop_time=False):
    def infer(in_shapes, in_dtypes, use_sequence_length=False, axis=0, **_):
        shape = tuple(in_shapes[0])
        ax, t, b = _geometry(opname, shape, axis)
        if _bool(use_sequence_length) and len(in_shapes) > 1 and in_shapes[1] is not None:
            if tuple(in_shapes[1]) != (b,):
                raise ValueError(f"{opname}: sequence_length has shape "
                                 f"{tuple(in_shapes[1])}, expected ({b},)")
        out = shape[:ax] + shape[ax + 1:] if drop_time else shape
        return [out], [in_dtypes[0]]
    return infer


def _time_mask(axis, n, t, ndim):
    """Boolean (T, B) or (B, T) mask of real steps, broadcastable to the data."""
    steps = np.arange(t)
    mask = steps[:, None] < n[None, :]          # (T, B)
    if axis == 1:
        mask = mask.T
    return mask.reshape(mask.shape + (1,) * (ndim - 2))


# -- SequenceMask -------------------------------------------------------------------------
def _mask(data, sequence_length=None, use_sequence_length=False, value=0.0, axis=0):
    axis, n = _lengths("SequenceMask", data, sequence_length, axis, use_sequence_length)
    keep = _time_mask(axis, n, data.shape[axis], data.ndim)
    return np.where(keep, data, np.asarray(value, data.dtype)).astype(data.dtype, copy=False)


def _mask_grad(ograds, inputs, outputs, use_sequence_length=False, value=0.0, axis=0):
    data = inputs[0]
    lengths = inputs[1] if len(inputs) > 1 else None
    axis, n = _lengths("SequenceMask", data, lengths, axis, use_sequence_length)
    keep = _time_mask(axis, n, data.shape[axis], data.ndim)
    g = np.where(keep, ograds[0], 0).astype(data.dtype, copy=False)
    return [g] + _zeros_grad(None, inputs[1:], None)


defop("SequenceMask", _mask, arg_names=("data", "sequence_length"),
      infer=_seq_infer("SequenceMask"), grad=_mask_grad, cost=input_size,
      params=dict(_SEQ_PARAMS, value=0.0))
_ACTIVE["SequenceMask"] = _active


# -- SequenceLast -------------------------------------------------------------------------
def _last_index(data, lengths, axis, use):
    axis, n = _lengths("SequenceLast", data, lengths, axis, use)
    return axis, np.maximum(n - 1, 0)


def _last(data, sequence_length=None, use_sequence_length=False, axis=0):
    axis, last = _last_index(data, sequence_length, axis, use_sequence_length)
    b = np.arange(data.shape[1 - axis])
    return (data[last, b] if axis == 0 else data[b, last]).copy()


def _last_grad(ograds, inputs, outputs, use_sequence_length=False, axis=0):
    data = inputs[0]
    lengths = inputs[1] if len(inputs) > 1 else None
    axis, last = _last_index(data, lengths, axis, use_sequence_length)
    b = np.arange(data.shape[1 - axis])
    g = np.zeros_like(data)
    if axis == 0:
        g[last, b] = ograds[0]
    else:
        g[b, last] = ograds[0]
    return [g] + _zeros_grad(None, inputs[1:], None)


defop("SequenceLast", _last, arg_names=("data", "sequence_length"),
      infer=_seq_infer("SequenceLast", drop_time=True), grad=_last_grad, cost=input_size,
      params=dict(_SEQ_PARAMS))
_ACTIVE["SequenceLast"] = _active


# -- SequenceReverse ----------------------------------------------------------------------
def _reverse_index(data, lengths, axis, use):
    """For each (t, b): the time step it takes its value from."""
    if int(axis) != 0:
        raise ValueError(f"SequenceReverse: axis={axis} is not supported; use 0")
    axis, n = _lengths("SequenceReverse", data, lengths, axis, use)
    t = np.arange(data.shape[0])[:, None]
    return np.where(t < n[None, :], n[None, :] - 1 - t, t)      # (T, B)


def _reverse(data, sequence_length=None, use_sequence_length=False, axis=0):
    src = _reverse_index(data, sequence_length, axis, use_sequence_length)
    return data[src, np.arange(data.shape[1])[None, :]]


def _reverse_grad(ograds, inputs, outputs, use_sequence_length=False, axis=0):
    data = inputs[0]
    lengths = inputs[1] if len(inputs) > 1 else None
    src = _reverse_index(data, lengths, axis, use_sequence_length)
    # the reversal is its own inverse: the gradient is reversed the same way
    return [ograds[0][src, np.arange(data.shape[1])[None, :]]] \
        + _zeros_grad(None, inputs[1:], None)


defop("SequenceReverse", _reverse, arg_names=("data", "sequence_length"),
      infer=_seq_infer("SequenceReverse"), grad=_reverse_grad, cost=input_size,
      params=dict(_SEQ_PARAMS))
_ACTIVE["SequenceReverse"] = _active
