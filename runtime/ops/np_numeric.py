"""MXNet 2's NumPy operators for functions official NumPy computes, with their gradients:
``_npi_einsum``, ``_npi_pad``, ``_npi_diff``, ``_npi_ediff1d``, ``_npi_nan_to_num``,
``_npi_diagflat``, ``_npi_polyval`` (MXNet 2's names and gradient names, as its profiler
shows them). The kernels run NumPy; the gradients are written here.

``pad`` and ``diagflat`` move elements without arithmetic: their gradient is computed
from the same function applied to the input's flat positions (each output element knows
which input element it came from, or none), so every ``mode`` that copies elements
(constant, edge, reflect, symmetric, wrap) has an exact gradient.
"""
import numpy as np
from numpy._core.einsumfunc import _parse_einsum_input

from .registry import defop, input_size

__all__ = ["einsum_grads"]


# -- einsum ---------------------------------------------------------------------------------------
def _einsum_parts(subscripts, shapes):
    """(input letter strings, output letters) with ellipses made letters."""
    dummies = [np.broadcast_to(np.zeros((), np.float32), s) for s in shapes]
    ins, out, _ = _parse_einsum_input((subscripts,) + tuple(dummies))
    return ins.split(","), out


def _einsum(*operands, subscripts="", optimize=False):
    return np.einsum(subscripts, *operands, optimize=bool(optimize))


def _einsum_infer(in_shapes, in_dtypes, subscripts="", **_):
    ins, out = _einsum_parts(subscripts, in_shapes)
    sizes = {}
    for letters, shape in zip(ins, in_shapes):
        for c, n in zip(letters, shape):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
    dtype = np.result_type(*in_dtypes) if in_dtypes else np.dtype(np.float32)
    return [tuple(sizes[c] for c in out)], [dtype]


def einsum_grads(subscripts, og, operands):
    """The gradient of each operand of ``einsum(subscripts, *operands)`` given the
    output's gradient ``og``: the output and the other operands contracted to the
    operand's distinct letters, broadcast over letters only it has, summed over its
    broadcast (size-1) axes, put back on its diagonal for repeated letters."""
    ins, out = _einsum_parts(subscripts, [o.shape for o in operands])
    sizes = {}
    for letters, x in zip(ins, operands):
        for c, n in zip(letters, x.shape):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
    grads = []
    for k, (letters, x) in enumerate(zip(ins, operands)):
        unique = "".join(dict.fromkeys(letters))
        others = [(ins[j], operands[j]) for j in range(len(operands)) if j != k]
        present = set(out).union(*[set(s) for s, _ in others]) if others else set(out)
        target = "".join(c for c in unique if c in present)
        spec = ",".join([out] + [s for s, _ in others]) + "->" + target
        t = np.einsum(spec, og, *[o for _, o in others]) if target or others or out \
            else np.asarray(og)
        # letters only this operand has: the gradient is the same along them
        full = np.broadcast_to(
            np.expand_dims(t, tuple(i for i, c in enumerate(unique) if c not in present)),
            tuple(sizes[c] for c in unique))
        first = {c: letters.index(c) for c in unique}
        # broadcast (size-1) axes of the operand: summed
        keep = tuple(i for i, c in enumerate(unique) if x.shape[first[c]] == 1 and
                     sizes[c] != 1)
        g = full.sum(axis=keep, keepdims=True) if keep else full
        if len(unique) == len(letters):
            perm = [unique.index(c) for c in letters]
            grads.append(np.ascontiguousarray(np.transpose(g, perm)).astype(x.dtype))
            continue
        idx = np.indices(x.shape, sparse=False) if x.size else None
        res = np.zeros(x.shape, x.dtype)
        if idx is not None:
            mask = np.ones(x.shape, bool)
            for p, c in enumerate(letters):
                mask &= idx[p] == idx[first[c]]
            pick = tuple(idx[first[c]] for c in unique)
            res = np.where(mask, g[pick], 0).astype(x.dtype)
        grads.append(res)
    return grads


def _einsum_grad(ograds, inputs, outputs, subscripts="", optimize=False):
    return einsum_grads(subscripts, ograds[0], inputs)


defop("_npi_einsum", _einsum, arg_names=("data",), variadic=True, infer=_einsum_infer,
      grad=_einsum_grad, grad_name="_backward_npi_einsum", cost=input_size,
      params={"subscripts": "", "optimize": False})


# -- element moves: pad, diagflat ---------------------------------------------------------------
def _moved_grad(move, x, og, **kwargs):
    """The gradient of ``move`` (an element-copying function of one array): each output
    element's gradient goes to the input element it was copied from."""
    src = np.arange(x.size, dtype=np.int64).reshape(x.shape) + 1   # 0: made up
    where = np.asarray(move(src, **kwargs))
    g = np.zeros(x.size + 1, np.float64)
    np.add.at(g, where.ravel(), np.asarray(og, np.float64).ravel())
    return g[1:].reshape(x.shape).astype(x.dtype)


def _pad_args(pad_width, mode, constant_values, reflect_type):
    kwargs = {"mode": mode}
    if mode == "constant":
        kwargs["constant_values"] = constant_values
    if mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = reflect_type
    return kwargs


def _pad(x, pad_width=(), mode="constant", constant_values=0, reflect_type="even"):
    return np.pad(x, pad_width, **_pad_args(pad_width, mode, constant_values, reflect_type))


def _pad_grad(ograds, inputs, outputs, pad_width=(), mode="constant", constant_values=0,
              reflect_type="even"):
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"pad: mode={mode!r} has no gradient (constant, edge, reflect, "
                         "symmetric and wrap have)")
    kwargs = _pad_args(pad_width, mode, 0, reflect_type)
    return [_moved_grad(lambda a, **k: np.pad(a, pad_width, **k), inputs[0], ograds[0],
                        **kwargs)]


def _pad_infer(in_shapes, in_dtypes, pad_width=(), **_):
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                         if np.size(pad_width) > 1 else np.asarray(pad_width),
                         (len(in_shapes[0]), 2))
    return [tuple(int(n + a + b) for n, (a, b) in zip(in_shapes[0], pw))], [in_dtypes[0]]


defop("_npi_pad", _pad, arg_names=("data",), infer=_pad_infer, grad=_pad_grad,
      grad_name="_backward_npi_pad", cost=input_size,
      params={"pad_width": (), "mode": "constant", "constant_values": 0,
              "reflect_type": "even"})


def _diagflat(v, k=0):
    return np.diagflat(v, int(k))


def _diagflat_grad(ograds, inputs, outputs, k=0):
    return [_moved_grad(lambda a: np.diagflat(a, int(k)), inputs[0], ograds[0])]


def _diagflat_infer(in_shapes, in_dtypes, k=0, **_):
    n = int(np.prod(in_shapes[0])) + abs(int(k))
    return [(n, n)], [in_dtypes[0]]


defop("_npi_diagflat", _diagflat, arg_names=("data",), infer=_diagflat_infer,
      grad=_diagflat_grad, grad_name="_backward_npi_diagflat", cost=input_size,
      params={"k": 0})


# -- differences -----------------------------------------------------------------------------------
def _diff(a, n=1, axis=-1):
    return np.diff(a, int(n), int(axis))


def _diff_grad(ograds, inputs, outputs, n=1, axis=-1):
    """diff is linear: its adjoint applied ``n`` times (-g[0], g[i-1] - g[i], g[-1])."""
    g = np.asarray(ograds[0], np.float64)
    ax = int(axis) % inputs[0].ndim
    for _ in range(int(n)):
        zero = np.zeros_like(np.take(g, [0], axis=ax)) if g.shape[ax] else \
            np.zeros(g.shape[:ax] + (1,) + g.shape[ax + 1:])
        g = np.diff(np.concatenate([zero, g, zero], axis=ax), axis=ax) * -1
    return [g.astype(inputs[0].dtype)]


def _diff_infer(in_shapes, in_dtypes, n=1, axis=-1, **_):
    shape = list(in_shapes[0])
    ax = int(axis) % len(shape)
    shape[ax] = max(shape[ax] - int(n), 0)
    return [tuple(shape)], [in_dtypes[0]]


defop("_npi_diff", _diff, arg_names=("a",), infer=_diff_infer, grad=_diff_grad,
      grad_name="_backward_npi_diff", cost=input_size, params={"n": 1, "axis": -1})


def _ediff1d(ary, *ends, to_begin=None, to_end=None, arrays_for=()):
    begin, end = _ends(ends, to_begin, to_end, arrays_for)
    return np.ediff1d(ary, to_end=end, to_begin=begin)


def _ends(ends, to_begin, to_end, arrays_for):
    vals = {"begin": to_begin, "end": to_end}
    for slot, arr in zip(arrays_for, ends):
        vals[slot] = arr
    return vals["begin"], vals["end"]


def _ediff1d_grad(ograds, inputs, outputs, to_begin=None, to_end=None, arrays_for=()):
    x = inputs[0]
    begin, end = _ends(inputs[1:], to_begin, to_end, arrays_for)
    nb = 0 if begin is None else np.size(begin)
    ne = 0 if end is None else np.size(end)
    g = np.asarray(ograds[0], np.float64)
    body = g[nb:g.size - ne]
    gx = np.zeros(x.size)
    if x.size > 1:
        gx[1:] += body
        gx[:-1] -= body
    out = [gx.reshape(x.shape).astype(x.dtype)]
    for slot, arr in zip(arrays_for, inputs[1:]):
        part = g[:nb] if slot == "begin" else g[g.size - ne:]
        out.append(part.reshape(arr.shape).astype(arr.dtype))
    return out


def _ediff1d_infer(in_shapes, in_dtypes, to_begin=None, to_end=None, arrays_for=(), **_):
    n = max(int(np.prod(in_shapes[0])) - 1, 0)
    sizes = {"begin": 0 if to_begin is None else np.size(to_begin),
             "end": 0 if to_end is None else np.size(to_end)}
    for slot, shape in zip(arrays_for, in_shapes[1:]):
        sizes[slot] = int(np.prod(shape))
    return [(n + sizes["begin"] + sizes["end"],)], [in_dtypes[0]]


defop("_npi_ediff1d", _ediff1d, arg_names=("data",), variadic=True, infer=_ediff1d_infer,
      grad=_ediff1d_grad, grad_name="_npi_backward_ediff1d", cost=input_size,
      params={"to_begin": None, "to_end": None, "arrays_for": ()})


# -- nan_to_num, polyval -------------------------------------------------------------------------
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


def _nan_to_num_grad(ograds, inputs, outputs, **_):
    x = inputs[0]
    return [np.where(np.isfinite(x), ograds[0], 0).astype(x.dtype)]


defop("_npi_nan_to_num", _nan_to_num, arg_names=("data",), grad=_nan_to_num_grad,
      grad_name="_npi_backward_nan_to_num", cost=input_size,
      params={"copy": True, "nan": 0.0, "posinf": None, "neginf": None})


def _polyval(p, x):
    return np.polyval(p, x).astype(np.result_type(p.dtype, x.dtype), copy=False)


def _polyval_grad(ograds, inputs, outputs):
    p, x = inputs
    og = np.asarray(ograds[0], np.float64)
    n = p.shape[0]
    powers = np.stack([np.asarray(x, np.float64) ** (n - 1 - i) for i in range(n)]) \
        if n else np.zeros((0,) + x.shape)
    gp = (powers * og).reshape(n, -1).sum(axis=1)
    gx = og * np.polyval(np.polyder(p.astype(np.float64)), x) if n > 1 else np.zeros_like(og)
    return [gp.astype(p.dtype), np.asarray(gx).astype(x.dtype)]


defop("_npi_polyval", _polyval, arg_names=("p", "x"),
      infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[1])],
                                               [np.result_type(*in_dtypes)]),
      grad=_polyval_grad, grad_name="_npi_backward_polyval", cost=input_size)
