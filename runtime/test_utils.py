"""``mx.test_utils``: the helpers MXNet users' own tests import, on xprof's arrays.

Comparisons (``assert_almost_equal``, ``almost_equal``, ``same``) take NDArrays or numpy
arrays; their default tolerances depend on the dtype as in MXNet 1.x (float32: rtol 1e-4,
atol 1e-3). ``check_symbolic_forward``/``check_symbolic_backward`` bind a symbol and
compare its outputs/gradients with expected values; ``check_numeric_gradient`` compares
the executor's gradients with central differences of a random projection of the
outputs. Random inputs come from numpy's global generator, so ``np.random.seed`` makes
a test reproducible. Arrays of a storage type come from :mod:`.test_utils_sparse`
(``rand_ndarray(shape, 'csr', density)``...), the data-set helpers (local files only)
from :mod:`.test_utils_data`.
"""
import contextlib
import json  # noqa: F401 - exported by the star import, as in MXNet
import numbers
import os
import random  # noqa: F401
import sys
import time  # noqa: F401
from functools import reduce  # noqa: F401

import numpy as np
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

from .. import runtime as mx  # noqa: F401 - ``mx`` for star-importing tests
from . import ndarray as _nd
from .context import Context, current_context
from .ndarray import NDArray, array  # noqa: F401
from .symbol import Symbol  # noqa: F401

# No ``__all__``: as in MXNet, ``from mxnet.test_utils import *`` also gives the module's
# imports (``np``, ``mx``, ``NDArray``, ``rnd``...), which MXNet users' tests rely on.


# -- contexts and tolerances -----------------------------------------------------------------
def default_context():
    """The context tests run on: the current one (xprof is CPU-only)."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context of this thread (``mx.current_context()``)."""
    Context._default_ctx.value = ctx


def default_dtype():
    return np.float32


_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
_ATOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}
_EPS = {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
        np.dtype(np.float64): 1.0 / 2 ** 14}


def _tol_table(table):
    """``table`` plus 0 for every exact dtype (bool and integers)."""
    out = {np.dtype(t): 0 for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16,
                                    np.int32, np.uint32, np.int64, np.uint64)}
    out.update(table)
    return out


def default_rtols():
    return _tol_table(_RTOL)


def default_atols():
    return _tol_table(_ATOL)


def default_numeric_eps():
    return dict(_EPS)


def effective_dtype(dat):
    """The dtype tolerances are chosen for (the array's own: xprof has no TF32)."""
    return np.dtype(getattr(dat, "dtype", np.float64))


def get_tolerance(dat, tol, default_tol):
    """``tol`` when it is a number, else its entry (or the default's) for ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = tol or {}
    return tol.get(dtype, default_tol.get(dtype, 0))


def get_tols(x, y, rtol, atol):
    """The (rtol, atol) comparing ``x`` with ``y``: the looser of the two dtypes' defaults."""
    x = np.asarray(x) if isinstance(x, numbers.Number) else x
    y = np.asarray(y) if isinstance(y, numbers.Number) else y
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    return default_atols()[np.dtype(dtype)] if atol is None else atol


# -- comparisons ---------------------------------------------------------------------------
def _np(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    return a


def same(a, b):
    """Same shape and the same values."""
    return np.array_equal(_np(a), _np(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether ``a`` and ``b`` agree within ``atol + rtol * |b|`` everywhere."""
    a, b = _np(a), _np(b)
    if not use_broadcast and np.shape(a) != np.shape(b):
        return False
    return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol),
                            equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise AssertionError naming the worst element when ``a`` and ``b`` differ."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _np(a), _np(b)
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if not use_broadcast and a_arr.shape != b_arr.shape:
        raise AssertionError(f"{names[0]}.shape = {a_arr.shape} and {names[1]}.shape = "
                             f"{b_arr.shape} are not equal")
    if a_arr.dtype == np.bool_ and b_arr.dtype == np.bool_:
        np.testing.assert_equal(a_arr, b_arr)
        return
    try:
        close = np.isclose(a_arr, b_arr, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError as e:     # shapes that do not broadcast
        raise AssertionError(f"{names[0]} {a_arr.shape} and {names[1]} {b_arr.shape}: "
                             f"{e}") from None
    if close.all():
        return
    af = np.broadcast_to(a_arr, close.shape).astype(np.float64)
    bf = np.broadcast_to(b_arr, close.shape).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.abs(af - bf) / (atol + rtol * np.abs(bf))
    err = np.where(close, 0, np.nan_to_num(err, nan=np.inf))
    idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(err)), err.shape))
    bad = int((~close).sum())
    raise AssertionError(
        f"Error {float(err[idx]):f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
        f"(mismatch {100.0 * bad / close.size:f}%). Location of maximum error: {idx}, "
        f"{names[0]}={float(af[idx]):.8f}, {names[1]}={float(bf[idx]):.8f}\n"
        f" {names[0]}: {np.array2string(a_arr, threshold=8)}\n"
        f" {names[1]}: {np.array2string(b_arr, threshold=8)}")


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """Compare where neither side is NaN."""
    a, b = np.copy(_np(a)), np.copy(_np(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """``f(*args, **kwargs)`` must raise ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise "
                         f"{exception_type.__name__}")


def same_array(array1, array2):
    """Whether two NDArrays share memory: writing one changes the other."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


# -- random inputs ---------------------------------------------------------------------------
def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1),
            np.random.randint(low, dim2 + 1))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim).tolist())


def random_arrays(*shapes):
    """float32 arrays of standard-normal values, one per shape (a single one unwrapped)."""
    arrays = [np.array(np.random.randn(), dtype=np.float32) if len(s) == 0
              else np.random.randn(*s).astype(np.float32) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """``k`` distinct items of ``population`` drawn with numpy's generator."""
    population = list(population)
    idx = np.random.permutation(len(population))[:k]
    return [population[i] for i in idx]


def create_vector(size, dtype=np.int64):
    return _nd.arange(0, size, dtype=dtype)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """``numpy_reduce_func`` applied over ``axis`` (None, an int or a tuple) one axis at a
    time, keeping the reduced axes when ``keepdims``."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


# -- symbolic checks ---------------------------------------------------------------------------
def _as_nd(value, ctx, dtype):
    if isinstance(value, NDArray):
        return value if dtype == "asnumpy" else value.astype(dtype)
    value = np.asarray(value)
    return _nd.array(value, ctx=ctx, dtype=value.dtype if dtype == "asnumpy" else dtype)


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """Argument name -> NDArray from a list (in ``list_arguments`` order) or a dict."""
    names = sym.list_arguments()
    if isinstance(location, dict):
        missing = set(names) - set(location)
        if missing:
            raise ValueError(f"location is missing the arguments {sorted(missing)}; the "
                             f"symbol's arguments are {names}")
    else:
        if len(location) != len(names):
            raise ValueError(f"location has {len(location)} values, the symbol has "
                             f"{len(names)} arguments {names}")
        location = dict(zip(names, location))
    return {k: _as_nd(v, ctx, dtype) for k, v in location.items()}


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if not isinstance(aux_states, dict):
        if len(aux_states) != len(names):
            raise ValueError(f"aux_states has {len(aux_states)} values, the symbol has "
                             f"{len(names)} auxiliary states {names}")
        aux_states = dict(zip(names, aux_states))
    return {k: _as_nd(v, ctx, dtype) for k, v in aux_states.items()}


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Central differences of the sum of ``executor``'s outputs for every argument in
    ``location`` (a dict of numpy arrays); the executor's argument arrays are restored."""
    for k, v in location.items():
        executor.arg_dict[k][:] = v
    if aux_states is not None:
        for k, v in aux_states.items():
            executor.aux_dict[k][:] = v
    grads = {}
    for k, v in location.items():
        base = np.asarray(v, dtype=np.float64)
        g = np.zeros(base.shape, dtype=np.float64)
        flat = base.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            vals = []
            for delta in (eps / 2.0, -eps / 2.0):
                flat[i] = old + delta
                executor.arg_dict[k][:] = base.reshape(v.shape).astype(dtype)
                if aux_states is not None:
                    for ak, av in aux_states.items():
                        executor.aux_dict[ak][:] = av
                executor.forward(is_train=use_forward_train)
                vals.append(sum(float(o.asnumpy().astype(np.float64).sum())
                                for o in executor.outputs))
            flat[i] = old
            g.reshape(-1)[i] = (vals[0] - vals[1]) / eps
        executor.arg_dict[k][:] = np.asarray(v).astype(dtype)
        grads[k] = g
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=default_dtype()):
    """The executor's gradients of ``sum(sym * proj)`` (``proj`` random) against
    central differences; raises AssertionError naming the argument that differs."""
    from . import symbol as _sym
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    location_np = {k: v.asnumpy() for k, v in location.items()}
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_np = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise ValueError(f"grad_nodes={grad_nodes!r} must be None, a list or a dict")
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    proj = _sym.Variable("__random_proj")
    out = _sym.make_loss(sym * proj)
    proj_np = np.random.uniform(-1, 1, size=out_shapes[0])
    location = dict(location, __random_proj=_nd.array(proj_np, ctx=ctx, dtype=dtype))
    location_np["__random_proj"] = proj_np.astype(dtype)
    grad_np = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in grad_nodes}
    args_grad = {k: _nd.array(v, ctx=ctx, dtype=dtype) for k, v in grad_np.items()}
    for k in location:
        grad_req.setdefault(k, "null")
    executor = out.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req,
                        aux_states=aux)
    executor.forward(is_train=True)
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    executor.backward()
    symbolic = {k: args_grad[k].asnumpy() for k in grad_nodes}
    numeric = numeric_grad(executor, location_np, aux_np, eps=eps,
                           use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        fd, got, orig = numeric[name], symbolic[name], grad_np[name]
        if grad_req[name] == "write":
            assert_almost_equal(fd, got, rtol, atol, (f"NUMERICAL_{name}", f"BACKWARD_{name}"))
        elif grad_req[name] == "add":
            assert_almost_equal(fd, got - orig, rtol, atol,
                                (f"NUMERICAL_{name}", f"BACKWARD_{name}"))
        elif grad_req[name] == "null":
            assert_almost_equal(orig, got, rtol, atol, (f"NUMERICAL_{name}", f"BACKWARD_{name}"))
        else:
            raise ValueError(f"grad_req {grad_req[name]!r} for {name!r} is not one of "
                             "'write', 'add', 'null'")


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (inference) and compare every output."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    executor = sym.bind(ctx=ctx, args=location, aux_states=aux, grad_req="null")
    executor.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, executor.outputs):
        assert_almost_equal(expect, output, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)
    return executor.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Bind ``sym``, run forward (training) and backward with ``out_grads``, and compare
    the gradients of the arguments in ``expected``."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    initial = {k: np.random.normal(size=np.shape(_np(v))) for k, v in expected.items()}
    args_grad = {k: _as_nd(v, ctx, np.asarray(_np(expected[k])).dtype if dtype == "asnumpy"
                           else dtype) for k, v in initial.items()}
    for k, stype in (grad_stypes or {}).items():     # gradients of a storage type
        if k in args_grad and stype != "default":
            args_grad[k] = args_grad[k].tostype(stype)
    req = {k: grad_req.get(k, "null") if k in args_grad else "null"
           for k in sym.list_arguments()}
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad, aux_states=aux,
                        grad_req=req)
    executor.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [_as_nd(g, ctx, np.asarray(g).dtype if dtype == "asnumpy" else dtype)
                     if not isinstance(g, NDArray) else g for g in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = [out_grads[k] if isinstance(out_grads[k], NDArray)
                     else _as_nd(out_grads[k], ctx, dtype) for k in sym.list_outputs()]
    elif isinstance(out_grads, np.ndarray):
        out_grads = [_as_nd(out_grads, ctx, dtype)]
    executor.backward(out_grads)
    for name in expected:
        got = args_grad[name].asnumpy()
        names = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        if req[name] == "write":
            assert_almost_equal(expected[name], got, rtol, atol, names, equal_nan=equal_nan)
        elif req[name] == "add":
            assert_almost_equal(_np(expected[name]), got - initial[name], rtol, atol, names,
                                equal_nan=equal_nan)
        elif req[name] == "null":
            assert_almost_equal(initial[name], got, rtol, atol, names, equal_nan=equal_nan)
    return args_grad


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Outputs (numpy) of ``sym`` bound to the numpy ``inputs``."""
    ctx = ctx or default_context()
    args = {k: _nd.array(v, ctx=ctx) for k, v in inputs.items()}
    executor = sym.bind(ctx=ctx, args=args, grad_req="null")
    executor.forward(is_train=is_train)
    outputs = [o.asnumpy() for o in executor.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, tol=None, raise_on_err=True, ground_truth=None,
                      equal_nan=False, use_uniform=False, rand_type=np.float64):
    """Run ``sym`` once per entry of ``ctx_list`` (each a dict with ``ctx``, the input
    shapes and an optional ``type_dict``) on the same inputs; outputs and gradients of
    every run must agree with the run of the widest dtype."""
    syms = sym if isinstance(sym, (list, tuple)) else [sym] * len(ctx_list)
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    exes = []
    for s, spec in zip(syms, ctx_list):
        spec = dict(spec)
        ctx = spec.pop("ctx")
        type_dict = spec.pop("type_dict", {})
        exes.append(s.simple_bind(ctx=ctx, grad_req=grad_req, type_dict=type_dict, **spec))
    first = exes[0]
    for name, arr in first.arg_dict.items():
        if name not in arg_params:
            values = (np.random.uniform(-scale, scale, arr.shape) if use_uniform
                      else np.random.normal(size=arr.shape, scale=scale))
            arg_params[name] = values.astype(rand_type)
    for name, arr in first.aux_dict.items():
        aux_params.setdefault(name, np.zeros(arr.shape))
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = np.asarray(_np(arg_params[name])).astype(arr.dtype)
        for name, arr in exe.aux_dict.items():
            arr[:] = np.asarray(_np(aux_params[name])).astype(arr.dtype)
    widest = max(range(len(exes)), key=lambda i: np.dtype(exes[i].outputs[0].dtype).itemsize
                 if exes[i].outputs else 0)
    outputs = []
    for exe in exes:
        exe.forward(is_train=grad_req != "null")
        outputs.append([o.asnumpy() for o in exe.outputs])
        if grad_req != "null":
            exe.backward([_nd.array(np.ones(o.shape), dtype=o.dtype) for o in exe.outputs])
    truth = ground_truth or {}
    for i, exe in enumerate(exes):
        for j, out in enumerate(outputs[i]):
            ref = outputs[widest][j]
            rtol, atol = get_tols(out, ref, tol, tol)
            if raise_on_err:
                assert_almost_equal(out, ref, rtol=rtol, atol=atol, equal_nan=equal_nan)
    for name in first.arg_dict:
        truth[name] = first.arg_dict[name].asnumpy()
    return truth


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Two optimizers make the same update (and states) from the same weight and gradient."""
    if w_stype != "default" or g_stype != "default":    # opt2's of those types, opt1 dense
        w2 = rand_ndarray(shape, w_stype, density=1, dtype=dtype)
        g2 = rand_ndarray(shape, g_stype, dtype=dtype)
        w1, g1 = w2.tostype("default"), g2.tostype("default")
        s1 = opt1.create_state_multi_precision(0, w1)
        s2 = opt2.create_state_multi_precision(0, w2)
        opt1.update_multi_precision(0, w1, g1, s1)
        opt2.update_multi_precision(0, w2, g2, s2)
        assert_almost_equal(w1.asnumpy(), w2.asnumpy(), rtol=rtol, atol=atol)
        return
    if isinstance(shape, list):      # multi-tensor: opt2 gets every tensor in one call
        w1 = [_nd.array(np.random.uniform(0, 1, s), dtype=dtype) for s in shape]
        g1 = [_nd.array(np.random.uniform(0, 1, s), dtype=dtype) for s in shape]
        w2 = [w.copy() for w in w1]
        g2 = [g.copy() for g in g1]
        s2 = [opt2.create_state_multi_precision(0, w) for w in w2]
        opt2.update_multi_precision(list(range(ntensors)), w2, g2, s2)
        for i in range(ntensors):
            s1 = opt1.create_state_multi_precision(i, w1[i])
            opt1.update_multi_precision(i, w1[i], g1[i], s1)
            if compare_states:
                compare_ndarray_tuple(s1, s2[i], rtol, atol)
            compare_ndarray_tuple(w1[i], w2[i], rtol, atol)
        return
    w1 = _nd.array(np.random.uniform(0, 1, shape), dtype=dtype)
    g1 = _nd.array(np.random.uniform(0, 1, shape), dtype=dtype)
    w2, g2 = w1.copy(), g1.copy()
    s1 = opt1.create_state_multi_precision(0, w1)
    s2 = opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(s1, s2)
    opt1.update_multi_precision(0, w1, g1, s1)
    opt2.update_multi_precision(0, w2, g2, s2)
    if compare_states:
        compare_ndarray_tuple(s1, s2, rtol=rtol, atol=atol)
    assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


# -- environment -------------------------------------------------------------------------------
@contextlib.contextmanager
def environment(*args):
    """``with environment('MXNET_X', '1'):`` or ``environment({'A': '1', 'B': None})``:
    set (None: unset) environment variables for the block, then restore them."""
    if len(args) == 2:
        changes = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        changes = args[0]
    else:
        raise ValueError("environment() takes a name and a value, or one dict")
    saved = {k: os.environ.get(k) for k in changes}
    try:
        for k, v in changes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def set_env_var(key, val, default_val=""):
    prev = os.environ.get(key, default_val)
    os.environ[key] = val
    return prev


def is_cd_run():
    return os.environ.get("CD_JOB", "0") == "1"


@contextlib.contextmanager
def discard_stderr():
    """Silence file descriptor 2 for the block (C-level writes too)."""
    try:
        stderr_fd = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):
        yield
        return
    saved = os.dup(stderr_fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), stderr_fd)
        yield
    finally:
        os.dup2(saved, stderr_fd)
        os.close(saved)


def use_np(func):
    """MXNet's test decorator: NumPy shape and array semantics inside ``func``."""
    from .util import use_np as _use_np
    return _use_np(func)


def list_gpus():
    return []


from .test_utils_data import (DummyIter, download, get_bz2_data, get_cifar10,  # noqa: E402,F401
                              get_mnist, get_mnist_iterator, get_mnist_ubyte)
from .test_utils_sparse import (assign_each, assign_each2,  # noqa: E402,F401
                                create_sparse_array, create_sparse_array_zd,
                                rand_ndarray, rand_sparse_ndarray, shuffle_csr_column_indices)
from .test_utils_np import (check_gluon_hybridize_consistency,  # noqa: E402,F401
                            collapse_sum_like, gen_buckets_probs_with_ppf, has_tvm_ops,
                            is_op_runnable, new_matrix_with_real_eigvals_2d,
                            new_matrix_with_real_eigvals_nd, new_orthonormal_matrix_2d,
                            new_sym_matrix_with_real_eigvals_nd, retry, verify_generator)
