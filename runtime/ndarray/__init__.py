"""``mx.nd``: array creation, one function per registered operator, and sync points.

Operator functions are generated from the registry (``mx.nd.sqrt``, ``mx.nd.dot``,
``mx.nd.FullyConnected``...): positional NDArrays and keyword NDArrays named like the
operator's arguments are inputs, other keywords are parameters, ``out=`` writes into an
existing array.
"""
import builtins
import numbers

import numpy as _np

from .. import _lazy
from .. import ops as _ops_pkg  # noqa: F401 - registers every operator
from ..context import Context, current_context
from ..ops import python_level as _python_level
from ..ops import registry as _registry
from . import methods, random, serialization, sparse  # noqa: F401 - mx.nd.sparse
from .ndarray import NDArray, from_numpy, invoke, new_array, push_op, waitall
from .functions import _FRONTEND, _ctx, _make_function
from ._update import adam_update, sgd_mom_update, sgd_update  # noqa: F401 - in-place states
from ._update import (ftml_update, ftrl_update, nag_mom_update,  # noqa: F401
                      rmsprop_update, rmspropalex_update, signsgd_update, signum_update)
from ._update import (multi_mp_sgd_mom_update, multi_mp_sgd_update,  # noqa: F401
                      multi_sgd_mom_update, multi_sgd_update)

_float32 = _np.dtype(_np.float32)


def array(source_array, ctx=None, dtype=None):
    """An NDArray from a list, numpy array or NDArray. As in MXNet 1.x the dtype is the
    source's when the source is an NDArray, float32 otherwise (numpy arrays included),
    unless ``dtype`` is given."""
    if isinstance(source_array, sparse.BaseSparseNDArray) or \
            type(source_array).__module__.startswith("scipy.sparse"):
        return sparse.array(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, NDArray):
        dtype = dtype or source_array.dtype
        source_array = source_array.asnumpy()
    elif dtype is None:
        dtype = _float32
    try:
        values = _np.asarray(source_array, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"array: cannot make an array of dtype {dtype} from "
                         f"{type(source_array).__name__}: {e}") from None
    from ..profiler.observer import flags, observer
    from time import perf_counter_ns
    t0 = perf_counter_ns() if flags.api else 0
    out = from_numpy(values, _ctx(ctx))
    if t0:
        observer.api("array", t0)
    return out


def _creation(opname, shape, ctx, dtype, out=None, **params):
    from .ndarray import _shape, _dtype
    from ..util import is_np_shape
    shape = _shape(shape)
    if (not shape or 0 in shape) and not is_np_shape():
        # MXNet 1.x: outside np_shape, () and a 0 mean "unknown", not a scalar or an empty axis
        from ..base import as_mxnet_error
        raise as_mxnet_error(ValueError(
            f"{opname.strip('_')}: shape={shape} holds no known size (MXNet 1.x reads () "
            f"and 0 as unknown); inside mx.np_shape(True) it makes a "
            f"{'0-d' if not shape else 'zero-size'} array"))
    params = dict(params, shape=shape, dtype=_dtype(dtype).name)
    return invoke(opname, (), params, out=out, ctx=_ctx(ctx))


def zeros(shape, ctx=None, dtype=None, stype=None, out=None, **kwargs):
    if stype not in (None, "default"):
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    return _creation("_zeros", shape, ctx, dtype, out)


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    return _creation("_ones", shape, ctx, dtype, out)


def full(shape, val, ctx=None, dtype=None, out=None, **kwargs):
    if not isinstance(val, numbers.Number):
        raise ValueError(f"full: val={val!r} is not a number")
    return _creation("_full", shape, ctx, dtype, out, value=val)


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array: memory only, no engine op (as in MXNet)."""
    if stype not in (None, "default"):
        return sparse.empty(stype, shape, ctx=ctx, dtype=dtype)
    from .ndarray import _shape, _dtype
    from ..profiler.observer import flags, observer
    from time import perf_counter_ns
    t0 = perf_counter_ns() if flags.api else 0   # array creation: an API entry point
    shape, dtype = _shape(shape), _dtype(dtype)
    a = new_array(shape, dtype, _ctx(ctx), "empty")
    a._data = _np.empty(shape, dtype)
    if t0:
        observer.api("empty", t0)
    return a


def arange(start, stop=None, step=1.0, repeat=1, ctx=None, dtype=None, **kwargs):
    from .ndarray import _dtype
    if step == 0:
        raise ValueError("arange: step=0 is not allowed")
    return invoke("_arange", (), {"start": start, "stop": stop, "step": step,
                                  "repeat": repeat, "dtype": _dtype(dtype).name},
                  ctx=_ctx(ctx))


def zeros_like(data, **kwargs):
    return invoke("zeros_like", (data,), {}, out=kwargs.get("out"))


def ones_like(data, **kwargs):
    return invoke("ones_like", (data,), {}, out=kwargs.get("out"))


def concatenate(arrays, axis=0, always_copy=True):
    return invoke("concat", tuple(arrays), {"dim": axis})


_custom = None   # operator.Custom, bound on first use (operator imports this package)


def Custom(*inputs, **kwargs):
    """Apply a registered custom operator: ``mx.nd.Custom(x, op_type="MyOp")``."""
    global _custom
    if _custom is None:
        from ..operator import Custom as found
        _custom = found
    return _custom(*inputs, **kwargs)


def _populate():
    g = globals()
    for name, op in _registry.registry.items():     # aliases too (flatten, Concat...)
        if name not in g:
            g[name] = _make_function(op, name)


_populate()


# ``mx.nd`` names whose code lives above the NDArray layer (it must not import them):
# name -> (module under xprof.runtime, attribute), resolved on first use.
LAZY_NAMES = {"CachedOp": ("gluon.cached_op", "CachedOp"),
              # MXNet 1.x's mx.nd.np / mx.nd.npx: the NumPy interface on arrays (a
              # block's ``F.np`` when F is mx.nd)
              "np": ("numpy", None), "numpy": ("numpy", None),
              "npx": ("numpy_extension", None), "numpy_extension": ("numpy_extension", None)}


def __getattr__(name):
    # Operators registered after this module was imported (as mx.sym does).
    op = _registry.registry.get(name)
    if op is not None:
        fn = globals()[name] = _make_function(op, name)
        return fn
    return _lazy.resolve(globals(), LAZY_NAMES, name, __name__)


_python_level.install(globals(), _FRONTEND)

random_uniform = uniform = random.uniform
random_normal = normal = random.normal
(random_poisson, random_exponential, random_gamma, random_negative_binomial,   # MXNet 1.x
 random_generalized_negative_binomial, random_randint) = (
    random.poisson, random.exponential, random.gamma, random.negative_binomial,
    random.generalized_negative_binomial, random.randint)

from . import helpers as _helpers  # noqa: E402 - after the generated functions it overrides
from .helpers import (eye, from_dlpack, linspace, moveaxis,  # noqa: E402,F401
                      reset_arrays, to_dlpack_for_read, to_dlpack_for_write)
for _alias, _name in _helpers.ALIASES.items():   # unless the registry has the alias
    globals().setdefault(_alias, globals()[_name])


def choose_element_0index(lhs, rhs, out=None):
    """MXNet's legacy name: ``lhs[i, rhs[i]]`` for each row (``pick`` on axis 1)."""
    return invoke("pick", (lhs, rhs), {"axis": 1, "keepdims": False, "mode": "clip"}, out=out)


def _fill_rows(lhs, mhs, rhs):
    out = lhs.copy()
    out[_np.arange(lhs.shape[0]), rhs.astype(_np.int64)] = mhs.reshape(-1)
    return out


def _one_hot_rows(indices, out_shape=(), out_dtype="float32"):
    out = _np.zeros(out_shape, out_dtype)
    out[_np.arange(out_shape[0]), indices.astype(_np.int64)] = 1
    return out


# MXNet 1.x's legacy NDArray functions: engine ops of their own, named by their arity
# (src/ndarray/ndarray.cc pushes "TernaryOp"/"BinaryOp"), not recorded by autograd
_TERNARY = _registry.OpDef("TernaryOp", _fill_rows, arg_names=("lhs", "mhs", "rhs"),
                           infer=lambda shapes, dtypes, **_: ([tuple(shapes[0])], [dtypes[0]]))
_BINARY = _registry.OpDef("BinaryOp", _one_hot_rows, arg_names=("indices",),
                          infer=lambda shapes, dtypes, out_shape=(), out_dtype="float32":
                          ([tuple(out_shape)], [_np.dtype(out_dtype)]))


def fill_element_0index(lhs, mhs, rhs, out=None):
    """MXNet's legacy function: ``lhs`` with ``lhs[i, rhs[i]] = mhs[i]`` for each row."""
    outs = None if out is None else [out]
    res = push_op(_TERNARY, (lhs, mhs, rhs), {}, outs)[0]
    return res


def onehot_encode(indices, out):
    """MXNet's legacy function: write ``one_hot(indices, depth=out.shape[1])`` into
    ``out``."""
    push_op(_BINARY, (indices,), {"out_shape": out.shape, "out_dtype": out.dtype.__name__},
            [out])
    return out


def save(fname, data):
    """Write an NDArray, a list or a dict of them in MXNet 1.x's binary format."""
    serialization.save(fname, data)


def load(fname, ctx=None):
    """Arrays saved by ``save`` (here or by MXNet): a list, or a dict by name."""
    loaded = serialization.load(fname)
    if isinstance(loaded, dict):
        return {k: array(v, ctx=ctx, dtype=v.dtype) for k, v in loaded.items()}
    return [array(v, ctx=ctx, dtype=v.dtype) for v in loaded]


def load_frombuffer(buf, ctx=None):
    loaded = serialization.load_bytes(buf)
    if isinstance(loaded, dict):
        return {k: array(v, ctx=ctx, dtype=v.dtype) for k, v in loaded.items()}
    return [array(v, ctx=ctx, dtype=v.dtype) for v in loaded]


cast_storage = sparse.cast_storage   # the result's class is the parameter's
methods.attach(globals())
_helpers.attach_methods(NDArray)
_internal = _helpers.internal_namespace(globals())

from . import contrib, image, linalg  # noqa: E402,F401 - mx.nd.contrib, .image, .linalg
