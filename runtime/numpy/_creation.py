"""``mx.np``'s creation functions: ``array``, ``zeros``, ``ones``, ``empty``, ``full``,
``arange``, ``eye``, ``identity``, ``linspace`` and the ``*_like`` forms.

MXNet 2's dtype defaults: Python data and numpy arrays become the default float
(float32, or float64 under ``npx.set_np(dtype=True)``) unless ``dtype`` is given; an
array keeps its dtype; ``full`` with an int fill value is int64, with a bool one bool.
"""
import numbers
from time import perf_counter_ns

import numpy as _np

from ..ndarray.ndarray import NDArray, _shape, invoke, new_array
from ..profiler.observer import flags as _flags, observer as _observer
from ..util import default_float
from .multiarray import apply, device_of, ndarray, to_np

__all__ = ["array", "asarray", "zeros", "ones", "empty", "full", "arange", "eye",
           "identity", "linspace", "zeros_like", "ones_like", "full_like", "empty_like",
           "copy", "ascontiguousarray", "hanning", "hamming", "blackman"]


def _dtype(dtype):
    return default_float() if dtype is None else _np.dtype(dtype)


def array(object, dtype=None, device=None, ctx=None, copy=True):
    """An np array of ``object`` (an array, numpy data or Python data). An mx array is
    copied by an engine op (nothing waits); other data is copied now."""
    dev = device_of(device, ctx) if (device is not None or ctx is not None) else None
    if isinstance(object, NDArray):
        src = to_np(object)
        out = src.copyto(dev) if dev is not None and dev != src.context else \
            invoke("CopyCPU2CPU", (src,), {})
        if dtype is not None and _np.dtype(dtype) != out._dtype:
            out = out.astype(dtype)
        return out
    if dtype is None:
        dtype = object.dtype if isinstance(object, _np.generic) else default_float()
    t0 = perf_counter_ns() if _flags.api else 0
    try:
        values = _np.array(object, dtype=dtype)
    except OverflowError:       # Python ints out of an int dtype's range wrap, as numpy 1.x
        values = _np.array(object).astype(dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(str(e)) from None
    out = to_np(values, None, values.dtype)
    if dev is not None and dev != out.context:
        out = out.copyto(dev)
    if t0:
        _observer.api("array", t0)
    return out


def asarray(a, dtype=None, device=None, ctx=None):
    if isinstance(a, ndarray) and (dtype is None or _np.dtype(dtype) == a._dtype):
        return a
    return array(a, dtype, device, ctx)


def _c_order(name, order):
    if order not in ("C", None):
        raise NotImplementedError(f"{name}: order={order!r}; only 'C' is supported")


def _creation(opname, shape, dtype, device, ctx, out=None, **params):
    shape = _shape(shape)
    return apply(opname, (), dict(params, shape=shape, dtype=_dtype(dtype).name), out=out,
                 device=device_of(device, ctx))


def zeros(shape, dtype=None, order="C", device=None, ctx=None, out=None):
    _c_order("zeros", order)
    return _creation("_npi_zeros", shape, dtype, device, ctx, out)


def ones(shape, dtype=None, order="C", device=None, ctx=None, out=None):
    _c_order("ones", order)
    return _creation("_npi_ones", shape, dtype, device, ctx, out)


def _fill_dtype(fill_value, dtype):
    if dtype is not None:
        return _np.dtype(dtype)
    if isinstance(fill_value, (bool, _np.bool_)):
        return _np.dtype(bool)
    if isinstance(fill_value, (numbers.Integral, _np.integer)):
        return _np.dtype(_np.int64)
    return default_float()


def full(shape, fill_value, dtype=None, order="C", device=None, ctx=None, out=None):
    _c_order("full", order)
    if isinstance(fill_value, NDArray):     # the array broadcast (an op: differentiable)
        fill = to_np(fill_value)
        if dtype is not None and _np.dtype(dtype) != fill._dtype:
            fill = fill.astype(dtype)
        return invoke("_npi_broadcast_to", (fill,), {"shape": _shape(shape)}, out=out)
    dtype = _fill_dtype(fill_value, dtype)
    return _creation("_npi_full", shape, dtype, device, ctx, out, value=fill_value)


def empty(shape, dtype=None, order="C", device=None, ctx=None):
    """An uninitialised array: memory only, no engine op."""
    _c_order("empty", order)
    shape, dtype = _shape(shape), _dtype(dtype)
    a = new_array(shape, dtype, device_of(device, ctx), "empty", ndarray)
    a._data = _np.empty(shape, dtype)
    return a


def arange(start, stop=None, step=None, dtype=None, device=None, ctx=None):
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("arange: step=0")
    if stop is None:
        start, stop = 0, start
    return apply("_npi_arange", (), {"start": start, "stop": stop, "step": step,
                                     "dtype": _dtype(dtype).name},
                 device=device_of(device, ctx))


def eye(N, M=None, k=0, dtype=None, device=None, ctx=None):
    return apply("_npi_eye", (), {"N": int(N), "M": int(N if M is None else M), "k": int(k),
                                  "dtype": _dtype(dtype).name}, device=device_of(device, ctx))


def identity(n, dtype=None, device=None, ctx=None):
    return apply("_npi_identity", (), {"N": int(n), "M": int(n), "k": 0,
                                       "dtype": _dtype(dtype).name},
                 device=device_of(device, ctx))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             device=None, ctx=None):
    if axis != 0:
        raise NotImplementedError("linspace: axis other than 0")
    if not isinstance(num, numbers.Integral) or num < 0:
        from ..base import as_mxnet_error
        raise as_mxnet_error(ValueError(f"linspace: num={num!r} must be a non-negative "
                                        "integer"))
    out = apply("_npi_linspace", (), {"start": float(start), "stop": float(stop),
                                      "num": int(num), "endpoint": bool(endpoint),
                                      "dtype": _dtype(dtype).name},
                device=device_of(device, ctx))
    if retstep:
        div = (num - 1) if endpoint else num
        return out, (float(stop) - float(start)) / div if div > 0 else float("nan")
    return out


def full_like(a, fill_value, dtype=None, order="C", subok=True, shape=None, device=None,
              ctx=None, out=None):
    a = to_np(a)
    if shape is not None and _shape(shape) != a.shape:
        return full(shape, fill_value, dtype or a.dtype, device=device, ctx=ctx)
    return invoke("_npi_full_like", (a,), {"fill_value": fill_value,
                                           "dtype": None if dtype is None else
                                           _np.dtype(dtype).name}, out=out)


def zeros_like(a, dtype=None, order="C", subok=True, shape=None, device=None, ctx=None,
               out=None):
    return full_like(a, 0, dtype, order, subok, shape, device, ctx, out)


def ones_like(a, dtype=None, order="C", subok=True, shape=None, device=None, ctx=None,
              out=None):
    return full_like(a, 1, dtype, order, subok, shape, device, ctx, out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None, device=None,
               ctx=None):
    p = to_np(prototype)
    return empty(p.shape if shape is None else shape, dtype or p.dtype,
                 device=device or p.context, ctx=ctx)


def copy(a, order="C"):
    _c_order("copy", order)
    return invoke("_npi_copy", (to_np(a),), {})


def ascontiguousarray(a, dtype=None, like=None):
    return asarray(a, dtype)


def _window(name):
    import numpy as _onp

    def window(M, dtype=None, device=None, ctx=None):
        """NumPy's window of ``M`` points, in the default float unless ``dtype``."""
        values = getattr(_onp, name)(int(M)).astype(_dtype(dtype))
        return to_np(values, None, values.dtype).copyto(device_of(device, ctx)) \
            if (device or ctx) else to_np(values, None, values.dtype)
    window.__name__ = window.__qualname__ = name
    return window


hanning, hamming, blackman = _window("hanning"), _window("hamming"), _window("blackman")
