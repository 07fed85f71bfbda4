"""Creation and dtype conversion: ``zeros_like``, ``ones_like``, ``_zeros``, ``_ones``,
``_full``, ``_arange``, ``_linspace``, ``_eye``, ``reset_arrays`` and ``Cast``.

Creation operators have ``arg_names=()``: the kernel is called with params only and the
gradient returns ``[]``.
"""
import math

import numpy as np

from .params import _dtype, _size, _zeros_grad, parse_tuple
from .registry import defop, input_size


# -- creation ----------------------------------------------------------------------
defop("zeros_like", lambda data: np.zeros_like(data), grad=_zeros_grad, cost=input_size)
defop("ones_like", lambda data: np.ones_like(data), grad=_zeros_grad, cost=input_size)


def _no_input_grad(ograds, inputs, outputs, **_):
    return []


def _creation_infer(in_shapes, in_dtypes, shape=(), dtype="float32", **_):
    return [parse_tuple(shape)], [_dtype(dtype)]


def _creation_cost(in_shapes, shape=(), **_):
    return _size(parse_tuple(shape))


_CREATION = {"shape": (), "ctx": None, "dtype": "float32"}
defop("_zeros", lambda shape=(), ctx=None, dtype="float32":
      np.zeros(parse_tuple(shape), dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION))
defop("_ones", lambda shape=(), ctx=None, dtype="float32":
      np.ones(parse_tuple(shape), dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION))
defop("_full", lambda shape=(), ctx=None, dtype="float32", value=0.0:
      np.full(parse_tuple(shape), value, dtype=_dtype(dtype)),
      arg_names=(), infer=_creation_infer, grad=_no_input_grad, cost=_creation_cost,
      params=dict(_CREATION, value=0.0))


def _arange_count(start, stop, step):
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise ValueError("_arange: step must not be 0")
    return start, stop, max(0, math.ceil((float(stop) - float(start)) / float(step)))


def _arange(start=0.0, stop=None, step=1.0, repeat=1, infer_range=False, ctx=None,
            dtype="float32"):
    start, stop, n = _arange_count(start, stop, step)
    dtype = _dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        # as MXNet's kernel: start and step are cast to the dtype first (the count is not),
        # so arange(1.3, 456.6, 1.3, dtype=int32) is 1, 2, 3, ... like numpy's
        values = int(float(start)) + int(float(step)) * np.arange(n, dtype=np.int64)
    else:
        values = float(start) + float(step) * np.arange(n, dtype=np.float64)
    if int(repeat) > 1:
        values = np.repeat(values, int(repeat))
    return values.astype(dtype)


def _arange_infer(in_shapes, in_dtypes, start=0.0, stop=None, step=1.0, repeat=1,
                  dtype="float32", **_):
    if int(repeat) < 1:
        raise ValueError(f"_arange: repeat={repeat} must be at least 1")
    _, _, n = _arange_count(start, stop, step)
    return [(n * int(repeat),)], [_dtype(dtype)]


defop("_arange", _arange, arg_names=(), infer=_arange_infer, grad=_no_input_grad,
      cost=lambda in_shapes, **p: _arange_infer([], [], **p)[0][0][0],
      params={"start": 0.0, "stop": None, "step": 1.0, "repeat": 1, "infer_range": False,
              "ctx": None, "dtype": "float32"})


def _linspace_count(num):
    if int(num) != num or num < 0:
        raise ValueError(f"_linspace: num={num!r} must be a non-negative integer")
    return int(num)


def _linspace(start=0.0, stop=1.0, num=50, endpoint=True, ctx=None, dtype="float32"):
    # computed in float64 then cast, as numpy.linspace(..., dtype=) does
    return np.linspace(float(start), float(stop), _linspace_count(num),
                       endpoint=bool(endpoint)).astype(_dtype(dtype))


defop("_linspace", _linspace, arg_names=(), grad=_no_input_grad,
      infer=lambda in_shapes, in_dtypes, num=50, dtype="float32", **_: (
          [(_linspace_count(num),)], [_dtype(dtype)]),
      cost=lambda in_shapes, num=50, **_: max(1, _linspace_count(num)),
      params={"start": 0.0, "stop": 1.0, "num": 50, "endpoint": True, "ctx": None,
              "dtype": "float32"})


def _eye_shape(N, M=0, k=0):
    if int(N) != N or N < 0 or int(M) != M or M < 0:
        raise ValueError(f"_eye: N={N!r} and M={M!r} must be non-negative integers "
                         "(M=0: M = N)")
    return (int(N), int(M) or int(N))


def _eye(N=0, M=0, k=0, ctx=None, dtype="float32"):
    return np.eye(*_eye_shape(N, M), k=int(k), dtype=_dtype(dtype))


defop("_eye", _eye, arg_names=(), grad=_no_input_grad,
      infer=lambda in_shapes, in_dtypes, N=0, M=0, dtype="float32", **_: (
          [_eye_shape(N, M)], [_dtype(dtype)]),
      cost=lambda in_shapes, N=0, M=0, **_: max(1, _size(_eye_shape(N, M))),
      params={"N": 0, "M": 0, "k": 0, "ctx": None, "dtype": "float32"})


# MXNet's reset_arrays zeroes its inputs in place: here its outputs are those arrays
# (``mx.nd.reset_arrays`` passes ``out=`` them), one engine op for all.
defop("reset_arrays", lambda *arrays, num_arrays=1: tuple(np.zeros_like(a) for a in arrays),
      arg_names=("arrays",), variadic=True, num_outputs=lambda p: int(p["num_arrays"]),
      grad=lambda ograds, inputs, outputs, **_: [None] * len(inputs),   # constants
      infer=lambda in_shapes, in_dtypes, **_: (list(in_shapes), list(in_dtypes)),
      cost=lambda in_shapes, **_: sum(_size(s) for s in in_shapes),
      params={"num_arrays": 1})


# -- dtype conversion ------------------------------------------------------------------
def _cast(data, dtype="float32"):
    out = data.astype(_dtype(dtype), copy=False)
    return data.view() if out is data else out


def _cast_grad(ograds, inputs, outputs, dtype="float32"):
    return [ograds[0].astype(inputs[0].dtype, copy=False)]


defop("Cast", _cast, grad=_cast_grad, cost=input_size,
      infer=lambda in_shapes, in_dtypes, dtype="float32", **_: (
          [tuple(in_shapes[0])], [_dtype(dtype)]),
      params={"dtype": "float32"}, aliases=("cast",), grad_name="_backward_cast")
