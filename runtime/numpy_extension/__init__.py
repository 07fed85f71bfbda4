"""``mx.npx``: MXNet 2's NumPy extensions: the deep-learning operators on np arrays
(``relu``, ``sigmoid``, ``softmax``, ``fully_connected``, ``convolution``...), MXNet's
``reshape`` with its special codes, ``waitall``, and the switches of NumPy semantics
(``set_np``, ``reset_np``, ``is_np_array``..., kept in ``mx.util`` as in MXNet).

Each function is a thin front door over a registered operator: the 1.x operator where
MXNet 2 runs it too (``Convolution``, ``FullyConnected``, ``Pooling``, ``softmax``... keep
their names in MXNet 2's profiles), ``_npx_relu``/``_npx_sigmoid``/``_npx_reshape``
where MXNet 2 has its own. Results are np arrays.
"""
from ..ndarray.ndarray import invoke as _invoke, waitall  # noqa: F401 - npx.waitall
from ..numpy.multiarray import to_np as _to_np
from ..util import (is_np_array, is_np_default_dtype, is_np_shape, reset_np,  # noqa: F401
                    set_np, set_np_default_dtype, use_np, use_np_array,
                    use_np_default_dtype, use_np_shape)
from . import _ops, random  # noqa: F401 - npx.random
from ..context import cpu, cpu_pinned, current_context, gpu, num_gpus  # noqa: F401

__all__ = ["waitall", "relu", "sigmoid", "reshape", "set_np", "reset_np", "is_np_array",
           "is_np_shape", "is_np_default_dtype", "set_np_default_dtype", "use_np"]

current_device = current_context
_ops.install(globals())


def relu(data, **kwargs):
    """max(data, 0): op ``_npx_relu``."""
    return _invoke("_npx_relu", (_to_np(data),), {})


def sigmoid(data, **kwargs):
    """1 / (1 + exp(-data)): op ``_npx_sigmoid``."""
    return _invoke("_npx_sigmoid", (_to_np(data),), {})


def reshape(a, newshape, reverse=False, order="C"):
    """MXNet 2's reshape with its special codes (-1 infer, -2 copy, -3 drop a size-1
    dimension, -4 copy the rest, -5 merge two, -6 split one): op ``_npx_reshape``."""
    return _invoke("_npx_reshape", (_to_np(a),), {"newshape": tuple(newshape) if not
                                                isinstance(newshape, int) else (newshape,),
                                                "reverse": bool(reverse)})





def seed(seed=None, device="all", ctx=None):
    """Seed the generator every random op draws from (``mx.random.seed``)."""
    random.seed(seed, device, ctx)


def set_np_float64(default_float64=True):
    """MXNet 2.0.0b1's name for ``set_np_default_dtype``."""
    return set_np_default_dtype(default_float64)


def from_numpy(ndarray_values, zero_copy=True):
    """An np array holding ``ndarray_values`` (copied; ready at once)."""
    return _to_np(ndarray_values, dtype=ndarray_values.dtype)


def _as_nd(values):
    if isinstance(values, dict):
        return {k: v.as_nd_ndarray() for k, v in values.items()}
    if isinstance(values, (list, tuple)):
        return [v.as_nd_ndarray() for v in values]
    return [values.as_nd_ndarray()]


def load(file):
    """Arrays saved by ``npx.save``/``savez`` (MXNet's format): a dict or a list of np
    arrays."""
    from ..ndarray import load as _load
    loaded = _load(file)
    if isinstance(loaded, dict):
        return {k: v.as_np_ndarray() for k, v in loaded.items()}
    return [v.as_np_ndarray() for v in loaded]


def save(file, arr):
    """MXNet's format: one array, a list or a dict of them."""
    from ..ndarray import save as _save
    _save(file, _as_nd(arr))


def savez(file, *args, **kwds):
    """Several arrays in one file, positional ones named ``arr_0``..., as numpy's."""
    from ..ndarray import save as _save
    named = {f"arr_{i}": a for i, a in enumerate(args)}
    named.update(kwds)
    _save(file, _as_nd(named))


def to_dlpack_for_read(data):
    from ..ndarray import to_dlpack_for_read as _read
    return _read(data.as_nd_ndarray())


def to_dlpack_for_write(data):
    from ..ndarray import to_dlpack_for_write as _write
    return _write(data.as_nd_ndarray())


def from_dlpack(dlpack):
    from ..ndarray import from_dlpack as _from
    return _from(dlpack).as_np_ndarray()


def slice(data, begin, end, step=None):    # noqa: A001 - MXNet's name
    """``data[begin:end:step]`` per axis (``None``: the axis's default): op ``slice``."""
    begin, end = tuple(begin), tuple(end)
    step = tuple(step) if step else ()
    if not begin and not end:
        return _invoke("_npi_copy", (_to_np(data),), {})
    return _invoke("slice", (_to_np(data),), {"begin": begin, "end": end,
                                              "step": step or None, "np_shape": True})


def constraint_check(input, msg="Constraint violated!"):    # noqa: A002
    """True when every element of the bool array ``input`` is; else ``ValueError(msg)``
    at the next sync point: op ``_npx_constraint_check``."""
    return _invoke("_npx_constraint_check", (_to_np(input),), {"msg": str(msg)})


def index_update(a, ind, val):
    """``a`` with the positions ``ind[:, i]`` set to ``val``: op ``_npx_index_update``."""
    a = _to_np(a)
    return _invoke("_npx_index_update", (a, _to_np(ind, a), _to_np(val, a)), {})


def index_add(a, ind, val):
    """``a`` with ``val`` added at the positions ``ind[:, i]``: op ``_npx_index_add``."""
    a = _to_np(a)
    return _invoke("_npx_index_add", (a, _to_np(ind, a), _to_np(val, a)), {})


def round_ste(x):
    """Rounds; its gradient passes through unchanged: op ``_contrib_round_ste``."""
    return _invoke("_contrib_round_ste", (_to_np(x),), {})


def sign_ste(x):
    """Signs; its gradient passes through unchanged: op ``_contrib_sign_ste``."""
    return _invoke("_contrib_sign_ste", (_to_np(x),), {})


def _contrib_forward(opname):
    def fn(*args, **kwargs):
        return _invoke(opname, tuple(_to_np(a) for a in args), kwargs)
    fn.__name__ = fn.__qualname__ = opname[len("_contrib_"):]
    fn.__doc__ = f"Op ``{opname}`` (MXNet 2 profiles it under this name)."
    return fn


for _n in ("interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt"):
    globals()[_n] = _contrib_forward("_contrib_" + _n)
