"""Mixed-precision (AMP) operators of MXNet 1.x: ``amp_cast`` (a cast the AMP graph
pass inserts; ``Cast``'s semantics), ``amp_multicast`` (every input to the widest of
their float types, or the narrowest with ``cast_narrow``), ``all_finite`` and
``multi_all_finite`` (1 when every element of the input(s) is finite, else 0: the
loss scaler's overflow check)."""
import numpy as np

from .params import _bool, _dtype, _zeros_grad
from .registry import defop, input_size


def _amp_cast(data, dtype="float32"):
    out = data.astype(_dtype(dtype), copy=False)
    return data.view() if out is data else out


defop("amp_cast", _amp_cast, cost=input_size, params={"dtype": "float32"},
      grad=lambda og, i, o, dtype="float32": [og[0].astype(i[0].dtype, copy=False)],
      infer=lambda in_shapes, in_dtypes, dtype="float32", **_: (
          [tuple(in_shapes[0])], [_dtype(dtype)]))


def _target(dtypes, cast_narrow):
    floats = [np.dtype(d) for d in dtypes if np.dtype(d).kind == "f"]
    if not floats:
        return np.dtype(dtypes[0])
    pick = min if _bool(cast_narrow) else max
    return pick(floats, key=lambda d: d.itemsize)


def _amp_multicast(*data, num_outputs=1, cast_narrow=False):
    target = _target([x.dtype for x in data], cast_narrow)
    return tuple(x.astype(target, copy=False) if x.dtype.kind == "f" else x for x in data)


def _amp_multicast_grad(ograds, inputs, outputs, num_outputs=1, cast_narrow=False):
    return [g.astype(x.dtype, copy=False) for g, x in zip(ograds, inputs)]


def _amp_multicast_infer(in_shapes, in_dtypes, num_outputs=1, cast_narrow=False, **_):
    if len(in_shapes) != int(num_outputs):
        raise ValueError(f"amp_multicast: {len(in_shapes)} inputs for num_outputs="
                         f"{num_outputs}")
    target = _target(in_dtypes, cast_narrow)
    return ([tuple(s) for s in in_shapes],
            [target if np.dtype(d).kind == "f" else np.dtype(d) for d in in_dtypes])


defop("amp_multicast", _amp_multicast, arg_names=("data",), variadic=True,
      infer=_amp_multicast_infer, grad=_amp_multicast_grad,
      num_outputs=lambda params: int(params["num_outputs"]),
      cost=lambda in_shapes, **_: sum(int(np.prod(s)) for s in in_shapes),
      params={"num_outputs": 1, "cast_narrow": False})


def _finite_flag(arrays, init_output=True):
    ok = all(bool(np.all(np.isfinite(x))) for x in arrays)
    return np.asarray([1.0 if ok else 0.0], dtype=np.float32)


def _all_finite(data, init_output=True):
    return _finite_flag([data], init_output)


def _multi_all_finite(*data, num_arrays=1, init_output=True):
    return _finite_flag(data, init_output)


_FLAG = (lambda in_shapes, in_dtypes, **_: ([(1,)], [np.dtype(np.float32)]))
defop("all_finite", _all_finite, grad=_zeros_grad, cost=input_size, infer=_FLAG,
      params={"init_output": True})
defop("multi_all_finite", _multi_all_finite, arg_names=("data",), variadic=True,
      grad=_zeros_grad, infer=_FLAG,
      cost=lambda in_shapes, **_: sum(int(np.prod(s)) for s in in_shapes),
      params={"num_arrays": 1, "init_output": True})
