"""MXNet 2's ``npx`` operators with no 1.x counterpart here: ``_npx_constraint_check``,
``_npx_index_update``, ``_npx_index_add``, the straight-through estimators
``_contrib_round_ste``/``_contrib_sign_ste`` (``npx.round_ste``/``sign_ste``: MXNet 2
profiles them under these names), and the batch samplers ``_npi_uniform_n``/
``_npi_normal_n``."""
import numpy as np

from .np_creation import SAMPLERS, _CHECKS, _RANDOM_PARAMS, _sampler, _sampler_grad
from .params import parse_tuple
from .registry import defop, input_size

__all__ = []


# -- constraint_check -----------------------------------------------------------------------------
def _constraint_check(x, msg="Constraint violated!"):
    if not np.all(x):
        raise ValueError(msg)
    return np.array(True)


def _constraint_infer(in_shapes, in_dtypes, **_):
    if in_dtypes[0] != np.dtype(bool):
        raise TypeError(f"constraint_check: the condition must be a bool array, not "
                        f"{in_dtypes[0]}")
    return [()], [np.dtype(bool)]


defop("_npx_constraint_check", _constraint_check, arg_names=("input",),
      infer=_constraint_infer, grad=lambda ograds, inputs, outputs, **_: [None],
      cost=input_size, params={"msg": "Constraint violated!"})


# -- index_update, index_add ------------------------------------------------------------------------
def _positions(a, ind):
    """The index tuple of ``ind`` (``ind[:, i]`` is one position's leading indices)."""
    ind = np.asarray(ind, dtype=np.int64)
    if ind.ndim == 0:
        ind = ind.reshape(1, 1)
    elif ind.ndim == 1:
        ind = ind.reshape(1, -1)
    if ind.shape[0] > a.ndim:
        raise ValueError(f"index_update/index_add: {ind.shape[0]} index rows for an array "
                         f"of {a.ndim} dimensions")
    return tuple(ind)


def _vals(a, pos, val):
    """``val`` broadcast to the selected region ``a[pos]`` (one slot per position)."""
    target = a[pos].shape
    val = np.asarray(val, dtype=a.dtype)
    if val.ndim == len(target) + 0 and val.shape == target:
        return val
    return np.broadcast_to(val.reshape(val.shape if val.ndim <= len(target) else
                                       val.shape[-len(target):]), target)


def _index_update(a, ind, val):
    out = a.copy()
    pos = _positions(a, ind)
    out[pos] = _vals(a, pos, val)
    return out


def _index_add(a, ind, val):
    out = a.copy()
    pos = _positions(a, ind)
    np.add.at(out, pos, _vals(a, pos, val))
    return out


def _val_grad(g, pos, val):
    gv = np.asarray(g[pos], np.float64)
    vshape = np.shape(val)
    while gv.ndim > len(vshape):
        gv = gv.sum(axis=0)
    for i, n in enumerate(vshape):
        if n == 1 and gv.shape[i] != 1:
            gv = gv.sum(axis=i, keepdims=True)
    return gv.reshape(vshape).astype(val.dtype)


def _index_update_grad(ograds, inputs, outputs):
    a, ind, val = inputs
    pos = _positions(a, ind)
    ga = np.array(ograds[0], copy=True)
    gval = _val_grad(ograds[0], pos, val)
    ga[pos] = 0
    return [ga.astype(a.dtype), None, gval]


def _index_add_grad(ograds, inputs, outputs):
    a, ind, val = inputs
    pos = _positions(a, ind)
    return [np.asarray(ograds[0], a.dtype), None, _val_grad(ograds[0], pos, val)]


for _name, _k, _g, _gname in (
        ("_npx_index_update", _index_update, _index_update_grad, "_backward_index_update_val"),
        ("_npx_index_add", _index_add, _index_add_grad, "_backward_index_add_val")):
    defop(_name, _k, arg_names=("a", "ind", "val"),
          infer=lambda in_shapes, in_dtypes, **_: ([tuple(in_shapes[0])], [in_dtypes[0]]),
          grad=_g, grad_name=_gname, cost=input_size)


# -- straight-through estimators: the forward rounds, the gradient passes through ------------------
for _name, _fn, _gname in (("_contrib_round_ste", np.round, "_backward_round_ste"),
                           ("_contrib_sign_ste", np.sign, "_backward_sign_ste")):
    defop(_name, lambda x, _f=_fn: _f(x),
          grad=lambda ograds, inputs, outputs: [np.asarray(ograds[0], inputs[0].dtype)],
          grad_name=_gname, cost=input_size)


# -- batch samplers: parameters of the event shape, ``batch_shape`` draws of them ------------------
def _batch_sampler(base):
    draw = SAMPLERS[base][0]
    kernel0 = _sampler(draw, _CHECKS.get(base))

    def kernel(*arrays, batch_shape=(), **params):
        shape = tuple(parse_tuple(batch_shape)) + _event(arrays, params)
        return kernel0(*arrays, **dict(params, size=shape))

    def infer(in_shapes, in_dtypes, batch_shape=(), dtype="float32", **params):
        from .params import _dtype
        event = np.broadcast_shapes(*[tuple(s) for s in in_shapes]) if in_shapes else ()
        return [tuple(parse_tuple(batch_shape)) + tuple(event)], [_dtype(dtype)]
    return kernel, infer


def _event(arrays, params):
    return np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()


for _name, _base, _fam in (("_npi_uniform_n", "_npi_uniform", "uniform"),
                           ("_npi_normal_n", "_npi_normal", "loc_scale")):
    _k, _i = _batch_sampler(_base)
    defop(_name, _k, arg_names=("params",), variadic=True, infer=_i,
          grad=_sampler_grad(_fam), params=dict(_RANDOM_PARAMS, batch_shape=()))
