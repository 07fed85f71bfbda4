"""Joining and splitting: ``concat``, ``stack``, ``SliceChannel``/``split``.

Variadic operators (``concat``, ``stack``) are registered with ``variadic=True`` and
``arg_names=("data",)``: they take one or more inputs, all passed positionally
(``kernel(a, b, c, dim=1)``); ``nin`` (1) is the minimum count. Their gradient returns one
array per input actually passed. The optional ``num_args`` parameter, as in MXNet, is
checked against the input count when given.
"""

import numpy as np

from .params import _axis, _bool, _cheap, _og, _size, parse_tuple
from .registry import alias, defop


# -- joining and splitting ------------------------------------------------------------
def _check_num_args(opname, n, num_args):
    if n < 1:
        raise ValueError(f"{opname}: needs at least one input")
    if num_args is not None and int(num_args) != n:
        raise ValueError(f"{opname}: num_args={num_args} but {n} inputs were given")


def _concat_infer(in_shapes, in_dtypes, dim=1, num_args=None, **_):
    _check_num_args("concat", len(in_shapes), num_args)
    first = tuple(in_shapes[0])
    d = _axis(dim, len(first), "concat")
    total = 0
    for i, s in enumerate(in_shapes):
        s = tuple(s)
        if len(s) != len(first) or s[:d] + s[d + 1:] != first[:d] + first[d + 1:]:
            raise ValueError(f"concat: input {i} has shape {s}, which does not match "
                             f"input 0 {first} outside dim={dim}")
        total += s[d]
    return [first[:d] + (total,) + first[d + 1:]], [in_dtypes[0]]


def _concat(*data, dim=1, num_args=None):
    _check_num_args("concat", len(data), num_args)
    return np.concatenate(data, axis=_axis(dim, data[0].ndim, "concat"))


def _concat_grad(ograds, inputs, outputs, dim=1, num_args=None):
    d = _axis(dim, inputs[0].ndim, "concat")
    cuts = np.cumsum([x.shape[d] for x in inputs])[:-1]
    return list(np.split(ograds[0], cuts, axis=d))


defop("Concat", _concat, variadic=True, infer=_concat_infer, grad=_concat_grad,
      grad_reads=lambda p: ((), False),
      cost=lambda in_shapes, **_: sum(_size(s) for s in in_shapes),
      params={"dim": 1, "num_args": None}, aliases=("concat",))   # MXNet's name, alias


def _stack_infer(in_shapes, in_dtypes, axis=0, num_args=None, **_):
    _check_num_args("stack", len(in_shapes), num_args)
    first = tuple(in_shapes[0])
    for i, s in enumerate(in_shapes):
        if tuple(s) != first:
            raise ValueError(f"stack: input {i} has shape {tuple(s)}, input 0 {first}")
    a = _axis(axis, len(first), "stack", extra=1)
    return [first[:a] + (len(in_shapes),) + first[a:]], [in_dtypes[0]]


def _stack(*data, axis=0, num_args=None):
    _check_num_args("stack", len(data), num_args)
    return np.stack(data, axis=_axis(axis, data[0].ndim, "stack", extra=1))


def _stack_grad(ograds, inputs, outputs, axis=0, num_args=None):
    a = _axis(axis, inputs[0].ndim, "stack", extra=1)
    og = ograds[0]
    return [og[(slice(None),) * a + (i,)] for i in range(len(inputs))]


defop("stack", _stack, variadic=True, infer=_stack_infer, grad=_stack_grad,
      cost=lambda in_shapes, **_: sum(_size(s) for s in in_shapes),
      params={"axis": 0, "num_args": None})


def _split_geometry(shape, num_outputs, axis, opname, squeeze_axis=False):
    if num_outputs is None or int(num_outputs) < 1:
        raise ValueError(f"{opname}: num_outputs={num_outputs!r} must be a positive "
                         f"integer")
    shape = tuple(shape)
    a = _axis(axis, len(shape), opname)
    if shape[a] % int(num_outputs):
        raise ValueError(f"{opname}: dimension {a} of shape {shape} ({shape[a]}) is not "
                         f"divisible by num_outputs={num_outputs}")
    if _bool(squeeze_axis) and shape[a] != int(num_outputs):
        raise ValueError(f"{opname}: squeeze_axis=True needs num_outputs equal to "
                         f"dimension {a} of shape {shape}, got {num_outputs}")
    return a, shape[a] // int(num_outputs)


def _def_split(opname):
    def kernel(data, num_outputs=None, axis=1, squeeze_axis=False):
        a, step = _split_geometry(data.shape, num_outputs, axis, opname, squeeze_axis)
        outs = []
        for i in range(int(num_outputs)):
            if _bool(squeeze_axis):
                outs.append(data[(slice(None),) * a + (i,)])
            else:
                outs.append(data[(slice(None),) * a + (slice(i * step, (i + 1) * step),)])
        return tuple(outs)

    def infer(in_shapes, in_dtypes, num_outputs=None, axis=1, squeeze_axis=False, **_):
        shape = tuple(in_shapes[0])
        a, step = _split_geometry(shape, num_outputs, axis, opname, squeeze_axis)
        if _bool(squeeze_axis):
            out = shape[:a] + shape[a + 1:]
        else:
            out = shape[:a] + (step,) + shape[a + 1:]
        n = int(num_outputs)
        return [out] * n, [in_dtypes[0]] * n

    def grad(ograds, inputs, outputs, num_outputs=None, axis=1, squeeze_axis=False):
        x = inputs[0]
        a, step = _split_geometry(x.shape, num_outputs, axis, opname, squeeze_axis)
        parts = [_og(ograds, i, outputs) for i in range(int(num_outputs))]
        if _bool(squeeze_axis):
            return [np.stack(parts, axis=a)]
        return [np.concatenate(parts, axis=a)]

    defop(opname, kernel, infer=infer, grad=grad, cost=_cheap,
          grad_reads=lambda p: ((), False),
          num_outputs=lambda params: int(params["num_outputs"]),
          params={"num_outputs": None, "axis": 1, "squeeze_axis": False})


# MXNet registers SliceChannel with the alias split (symbol JSON uses SliceChannel).
_def_split("SliceChannel")
alias("split", "SliceChannel")


# -- _split_v2: numpy.split's semantics (mx.nd.split_v2 is its Python front end) -----------
def _split_v2_bounds(n, indices, sections, opname="split_v2"):
    """[(start, end)] along the axis: ``sections`` equal parts, or split points
    ``indices`` (with a leading 0, as MXNet's front end passes them)."""
    if int(sections or 0) > 0:
        k = int(sections)
        if n % k:
            raise ValueError(f"{opname}: an axis of {n} cannot be split into {k} equal "
                             "sections")
        return [(i * n // k, (i + 1) * n // k) for i in range(k)]
    points = [int(i) for i in parse_tuple(indices, "indices")] if indices else [0]
    ends = points[1:] + [n]
    return [(min(s, n), min(max(e, s), n)) for s, e in zip(points, ends)]


def _split_v2(data, indices=(), axis=0, squeeze_axis=False, sections=0):
    a = _axis(axis, data.ndim, "split_v2")
    outs = []
    for s, e in _split_v2_bounds(data.shape[a], indices, sections):
        part = data[(slice(None),) * a + (slice(s, e),)]
        outs.append(part.squeeze(a) if _bool(squeeze_axis) else part)
    return tuple(outs)


def _split_v2_infer(in_shapes, in_dtypes, indices=(), axis=0, squeeze_axis=False,
                    sections=0, **_):
    shape = tuple(in_shapes[0])
    a = _axis(axis, len(shape), "split_v2")
    out = []
    for s, e in _split_v2_bounds(shape[a], indices, sections):
        if _bool(squeeze_axis):
            if e - s != 1:
                raise ValueError("split_v2: squeeze_axis=True needs parts of size 1")
            out.append(shape[:a] + shape[a + 1:])
        else:
            out.append(shape[:a] + (e - s,) + shape[a + 1:])
    return out, [in_dtypes[0]] * len(out)


def _split_v2_grad(ograds, inputs, outputs, indices=(), axis=0, squeeze_axis=False,
                   sections=0):
    x = inputs[0]
    a = _axis(axis, x.ndim, "split_v2")
    parts = [_og(ograds, i, outputs) for i in range(len(outputs))]
    if _bool(squeeze_axis):
        parts = [np.expand_dims(p, a) for p in parts]
    return [np.concatenate(parts, axis=a)]


def _split_v2_count(params):
    if int(params.get("sections") or 0) > 0:
        return int(params["sections"])
    return len(parse_tuple(params.get("indices") or (0,), "indices"))


defop("_split_v2", _split_v2, infer=_split_v2_infer, grad=_split_v2_grad, cost=_cheap,
      num_outputs=_split_v2_count,
      params={"indices": (), "axis": 0, "squeeze_axis": False, "sections": 0})
