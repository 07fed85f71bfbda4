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
    """An np array holding ``ndarray_values``, ready at once. ``zero_copy`` (MXNet 2's
    default): the array's buffer is ``ndarray_values`` itself, which becomes read-only
    (it must be C-contiguous); otherwise a copy."""
    import numpy as _onp
    if not zero_copy:
        return _to_np(ndarray_values, dtype=ndarray_values.dtype)
    if not isinstance(ndarray_values, _onp.ndarray) or \
            not ndarray_values.flags["C_CONTIGUOUS"]:
        raise ValueError("npx.from_numpy(zero_copy=True) needs a C-contiguous numpy array")
    from ..context import current_context
    from ..ndarray.ndarray import new_array
    from ..numpy.multiarray import ndarray
    ndarray_values.flags.writeable = False     # the engine's array now: no writes beside it
    a = new_array(ndarray_values.shape, ndarray_values.dtype, current_context(), "array",
                  ndarray)
    a._data = ndarray_values
    return a


def _write(file, write):
    """Write through a temporary file beside ``file`` (never a half-written file)."""
    import os
    import tempfile
    file = os.fspath(file)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(file)) or ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, file)
    except BaseException:
        os.unlink(tmp)
        raise


def load(file):
    """Arrays saved by ``npx.save`` (NumPy's ``.npy``: one np array), ``npx.savez``
    (``.npz``: a dict of np arrays) or MXNet's own format (``mx.nd.save``: a list or a
    dict), as MXNet 2 reads them."""
    import numpy as _onp
    with open(file, "rb") as f:
        magic = f.read(6)
    if magic.startswith(b"\x93NUMPY"):
        return _to_np(_onp.load(file, allow_pickle=False))
    if magic.startswith(b"PK"):
        with _onp.load(file, allow_pickle=False) as z:
            return {k: _to_np(z[k]) for k in z.files}
    from ..ndarray import load as _load
    loaded = _load(file)
    if isinstance(loaded, dict):
        return {k: v.as_np_ndarray() for k, v in loaded.items()}
    return [v.as_np_ndarray() for v in loaded]


def save(file, arr):
    """One array in NumPy's ``.npy`` format (MXNet 2's ``npx.save``)."""
    import numpy as _onp
    from ..ndarray.ndarray import NDArray
    if not isinstance(arr, NDArray):
        raise ValueError(f"npx.save: data needs to be an MXNet ndarray, got "
                         f"{type(arr).__name__}")
    values = arr.asnumpy()
    _write(file, lambda f: _onp.save(f, values, allow_pickle=False))


def savez(file, *args, **kwds):
    """Several arrays in one uncompressed ``.npz`` file, positional ones named ``arr_0``...
    (MXNet 2's ``npx.savez``)."""
    import numpy as _onp
    named = {f"arr_{i}": a for i, a in enumerate(args)}
    for k in kwds:
        if k in named:
            raise ValueError(f"npx.savez: cannot use un-named variables and keyword {k}")
    named.update(kwds)
    values = {k: v.asnumpy() for k, v in named.items()}
    _write(file, lambda f: _onp.savez(f, **values))


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
