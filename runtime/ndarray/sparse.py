"""``mx.nd.sparse``: MXNet 1.x's sparse arrays (``csr``, ``row_sparse``) with their storage
type reported and their values kept dense.

A ``CSRNDArray`` or ``RowSparseNDArray`` is an NDArray whose values every operator
computes densely (the same kernels, results, profile events); what makes it sparse is
what MXNet's API shows of it: ``stype``, ``data``/``indices``/``indptr`` (the nonzeros
in MXNet's layout, worked out from the values when asked, or the arrays it was made
from, explicit zeros included, until it is written), ``tostype``, ``check_format``,
``asscipy``, and the storage type of every operator's result, inferred by MXNet's rules
(:mod:`.sparse_rules`: ``dot(csr.T, dns)`` is row_sparse, ``csr * 2`` stays csr,
``csr + 1`` is dense...). The choice (rather than compressed storage) is measured by
MXNet's ``test_sparse_ndarray.py``/``test_sparse_operator.py``
(docs/mxnet-compatibility.md); the cost is memory: a sparse array takes its dense size.
"""
import numbers

import numpy as np

from . import sparse_rules
from .ndarray import NDArray, from_numpy, invoke, new_array

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "csr_matrix",
           "row_sparse_array", "zeros", "empty", "array", "add", "subtract", "multiply",
           "divide", "unsupported", "cast_storage"]

_AUX_TYPES = {"csr": (np.int64, np.int64), "row_sparse": (np.int64,)}


def unsupported(what):
    """The error for a sparse feature xprof does not have."""
    return NotImplementedError(f"{what}: not supported for sparse arrays by xprof")


class BaseSparseNDArray(NDArray):
    """What CSR and row-sparse arrays share (see the module docstring)."""

    _STYPE = None

    @property
    def stype(self):
        return self._STYPE

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    def _structure(self):
        """The arrays it was made from while its values are those, else None."""
        aux = self.__dict__.get("_aux")
        if aux is not None and aux[0] is self._data:
            return aux[1]
        return None

    @property
    def _num_aux(self):
        return len(_AUX_TYPES[self._STYPE])

    @property
    def _aux_types(self):
        return [np.dtype(t) for t in _AUX_TYPES[self._STYPE]]

    @property
    def size(self):
        raise NotImplementedError("size is ambiguous for a sparse array")

    def reshape(self, *shape, **kwargs):
        raise unsupported(f"{type(self).__name__}.reshape")

    def _binary(self, other, names, out=None):
        # MXNet's sparse arithmetic: elementwise on equal shapes, else broadcasting
        if isinstance(other, NDArray) and other.shape == self.shape:
            return invoke(names[0], (self, other), {}, out=out)
        return NDArray._binary(self, other, names, out)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self._dtype:
            return self
        return invoke("Cast", (self,), {"dtype": np.dtype(dtype).name})

    def copyto(self, other):
        if isinstance(other, NDArray):
            if other is self:
                import warnings
                warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
                return False
            return invoke("CopyCPU2CPU", (self,), {}, out=other)
        out = new_array(self.shape, self._dtype, other, "copyto", type(self))
        return invoke("CopyCPU2CPU", (self,), {}, out=out)

    def tostype(self, stype):
        return cast_storage(self, stype)

    def asnumpy(self):
        return NDArray.asnumpy(self)

    def check_format(self, full_check=True):
        """Raise when the arrays it was made from are not a valid array of its type."""
        aux = self._structure()
        if aux is not None:
            _check(self._STYPE, self.shape, aux, full_check)

    def _sync_copyfrom(self, source_array):
        raise unsupported(f"{type(self).__name__}._sync_copyfrom")

    def __setitem__(self, key, value):
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError(f"{type(self).__name__} supports only x[:] = value")
        if isinstance(value, numbers.Number):
            if self._STYPE == "csr":
                raise ValueError("x[:] = scalar is not supported for csr arrays")
            invoke("_full", (), {"shape": self.shape, "dtype": self._dtype.name,
                                 "value": value}, out=self)
            return
        if not isinstance(value, NDArray):
            value = from_numpy(np.asarray(value, dtype=self._dtype), self.context)
        if value is not self:
            invoke("CopyCPU2CPU", (value,), {}, out=self)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row storage (``data``, ``indices``, ``indptr``)."""

    _STYPE = "csr"

    def _csr(self):
        aux = self._structure()
        if aux is not None:
            return aux
        dense = self.asnumpy()
        rows, cols = np.nonzero(dense)
        indptr = np.zeros(self.shape[0] + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=self.shape[0]), out=indptr[1:])
        return dense[rows, cols], cols.astype(np.int64), indptr

    @property
    def data(self):
        return from_numpy(self._csr()[0].astype(self._dtype, copy=False), self.context)

    @property
    def indices(self):
        return from_numpy(self._csr()[1], self.context)

    @property
    def indptr(self):
        return from_numpy(self._csr()[2], self.context)

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, numbers.Integral):
            n = self.shape[0]
            if not -n <= key < n:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
            key = slice(key % n, key % n + 1)
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError("CSRNDArray supports only slices of step 1")
            begin, end, _ = key.indices(self.shape[0])
            return invoke("slice", (self,), {"begin": (begin,), "end": (end,),
                                            "step": None})
        raise ValueError(f"CSRNDArray: index {key!r} is not supported (an int or a slice)")

    def asscipy(self):
        """The values as a ``scipy.sparse.csr_matrix``."""
        import scipy.sparse as spsp
        data, indices, indptr = self._csr()
        return spsp.csr_matrix((data, indices, indptr), shape=self.shape, dtype=self._dtype)


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows are stored (``data``: those rows, ``indices``)."""

    _STYPE = "row_sparse"

    def _rsp(self):
        aux = self._structure()
        if aux is not None:
            return aux
        dense = self.asnumpy()
        rows = np.flatnonzero(dense.reshape(dense.shape[0], -1).any(axis=1)) \
            if dense.size else np.zeros(0, np.int64)
        return dense[rows], rows.astype(np.int64)

    @property
    def data(self):
        return from_numpy(self._rsp()[0].astype(self._dtype, copy=False), self.context)

    @property
    def indices(self):
        return from_numpy(self._rsp()[1], self.context)

    def __getitem__(self, key):
        if isinstance(key, slice) and key == slice(None):
            return self
        raise ValueError("RowSparseNDArray supports only x[:]")

    def retain(self, indices):
        """The rows whose indices are given; the others zero."""
        return invoke("_sparse_retain", (self, indices), {})


_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}
sparse_rules.CLASSES.update(_CLASSES, default=NDArray)
class_of = sparse_rules.class_of


def _made(stype, dense, ctx, aux=None):
    """A sparse array holding ``dense`` (numpy), with the arrays it was made from."""
    from ..context import current_context
    sparse_rules.activate()
    ctx = ctx or current_context()
    a = new_array(dense.shape, dense.dtype, ctx, "sparse", _CLASSES[stype])
    a._data = np.ascontiguousarray(dense)
    if aux is not None:
        a.__dict__["_aux"] = (a._data, aux)
    return a


def _check(stype, shape, aux, full_check):
    from ..base import MXNetError
    if stype == "csr":
        data, indices, indptr = aux
        if len(indptr) != shape[0] + 1 or indptr[0] != 0 or \
                (len(indptr) and indptr[-1] != len(indices)) or len(data) != len(indices):
            raise MXNetError("csr: indptr, indices and data do not agree with the shape")
        if full_check:
            if np.any(np.diff(indptr) < 0):
                raise MXNetError("csr: indptr is not non-decreasing")
            for r in range(shape[0]):
                cols = indices[indptr[r]:indptr[r + 1]]
                if np.any(cols < 0) or np.any(cols >= shape[1]) or np.any(np.diff(cols) <= 0):
                    raise MXNetError(f"csr: the column indices of row {r} are out of range "
                                     "or not increasing")
    else:
        data, indices = aux
        if len(data) != len(indices):
            raise MXNetError("row_sparse: data and indices do not agree")
        if full_check and (np.any(indices < 0) or np.any(indices >= shape[0])
                           or np.any(np.diff(indices) <= 0)):
            raise MXNetError("row_sparse: indices are out of range or not increasing")


def _same_shape(who, given, shape):
    if shape is not None and tuple(int(d) for d in shape) != tuple(int(d) for d in given):
        raise ValueError(f"{who}: shape {tuple(shape)} does not match {tuple(given)}")


def _values(x, dtype=None):
    if isinstance(x, NDArray):
        return x.asnumpy()
    return np.asarray(x, dtype=dtype)


def _dtype_of(src, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(src, (NDArray, np.ndarray)) or _is_scipy(src):
        return np.dtype(src.dtype)
    return np.dtype(np.float32)


def _is_scipy(x):
    return type(x).__module__.startswith("scipy.sparse")


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))``, a dense
    array (NDArray or numpy), a scipy sparse matrix, a CSRNDArray, or a shape (zeros)."""
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        dt = _dtype_of(data, dtype)
        data = _values(data, dt).astype(dt, copy=False).ravel()
        indices = _values(indices).astype(np.int64).ravel()
        indptr = _values(indptr).astype(np.int64).ravel()
        if shape is None:
            if not indices.size:
                raise ValueError("csr_matrix: cannot infer the shape of an array with no "
                                 "stored values; give shape")
            shape = (len(indptr) - 1, int(indices.max()) + 1)
        shape = tuple(int(s) for s in shape)
        dense = np.zeros(shape, dt)
        ok = (len(indptr) == shape[0] + 1 and len(data) == len(indices)
              and (not indices.size or (indices.min() >= 0 and indices.max() < shape[1]))
              and indptr[0] == 0 and indptr[-1] == len(indices) and np.all(np.diff(indptr) >= 0))
        if ok:
            rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
            np.add.at(dense, (rows, indices), data)
        return _made("csr", dense, ctx, (data, indices, indptr))
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        import scipy.sparse as spsp
        return csr_matrix(spsp.coo_matrix(arg1, shape=shape).tocsr(), ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and all(isinstance(d, numbers.Integral) for d in arg1):
        _same_shape("csr_matrix", arg1, shape)
        return zeros("csr", arg1, ctx=ctx, dtype=dtype)
    if _is_scipy(arg1):
        m = arg1.tocsr(copy=True)
        m.sum_duplicates()           # canonical, as MXNet makes it
        m.sort_indices()
        dt = _dtype_of(m, dtype)
        return csr_matrix((m.data.astype(dt), m.indices, m.indptr), shape=m.shape, ctx=ctx,
                          dtype=dt)
    dt = _dtype_of(arg1, dtype)
    dense = _values(arg1, dt).astype(dt, copy=False)
    if dense.ndim != 2:
        raise ValueError(f"csr_matrix: a csr array is 2-D, got shape {dense.shape}")
    if shape is not None and tuple(shape) != dense.shape:
        raise ValueError(f"csr_matrix: shape {tuple(shape)} does not match {dense.shape}")
    return _made("csr", dense.copy(), ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)``, a dense array, a RowSparseNDArray or
    a shape (zeros)."""
    if isinstance(arg1, tuple) and len(arg1) == 2 and not all(
            isinstance(d, numbers.Integral) for d in arg1):
        data, indices = arg1
        dt = _dtype_of(data, dtype)
        data = _values(data, dt).astype(dt, copy=False)
        indices = _values(indices).astype(np.int64).ravel()
        if shape is None:
            if not indices.size:
                raise ValueError("row_sparse_array: cannot infer the shape of an array with "
                                 "no stored rows; give shape")
            shape = (int(indices.max()) + 1,) + data.shape[1:]
        shape = tuple(int(s) for s in shape)
        data = data.reshape((len(indices),) + shape[1:])
        dense = np.zeros(shape, dt)
        if indices.size and indices.min() >= 0 and indices.max() < shape[0]:
            dense[indices] = data
        return _made("row_sparse", dense, ctx, (data, indices))
    if isinstance(arg1, tuple):
        _same_shape("row_sparse_array", arg1, shape)
        return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
    dt = _dtype_of(arg1, dtype)
    dense = _values(arg1, dt).astype(dt, copy=False)
    if shape is not None and tuple(shape) != dense.shape:
        raise ValueError(f"row_sparse_array: shape {tuple(shape)} does not match "
                         f"{dense.shape}")
    return _made("row_sparse", dense.copy(), ctx)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """Zeros of storage type ``stype``."""
    if stype == "default":
        from ..context import current_context
        return invoke("_zeros", (), {"shape": tuple(np.atleast_1d(shape).tolist()),
                                     "dtype": np.dtype(dtype or np.float32).name},
                      ctx=ctx or current_context())
    class_of(stype)
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if stype == "csr" and len(shape) != 2:
        raise ValueError(f"zeros: a csr array is 2-D, got shape {tuple(shape)}")
    return _made(stype, np.zeros(tuple(shape), np.dtype(dtype or np.float32)), ctx)


def empty(stype, shape, ctx=None, dtype=None):
    """An empty (all-zero) array of storage type ``stype``."""
    return zeros(stype, shape, ctx, dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a scipy sparse matrix or a sparse NDArray (a copy)."""
    if isinstance(source_array, BaseSparseNDArray):
        out = source_array.astype(dtype or source_array.dtype)
        return out if ctx is None else out.copyto(ctx)
    if _is_scipy(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise ValueError("array: the source must be a scipy.sparse matrix or a sparse "
                     f"NDArray, got {type(source_array).__name__}")


def cast_storage(data, stype, out=None):
    """``data`` as storage type ``stype`` (the ``cast_storage`` operator)."""
    cls = class_of(stype)
    if cls is not NDArray:
        sparse_rules.activate()
        if len(data.shape) != 2 and stype == "csr":
            raise ValueError(f"cast_storage: a csr array is 2-D, got shape {data.shape}")
    return invoke("cast_storage", (data,), {"stype": stype}, out=out, cls=cls)


def _helper(names):
    def fn(lhs, rhs):
        if isinstance(lhs, NDArray):
            return lhs._binary(rhs, names)
        if isinstance(rhs, NDArray):
            return rhs._reflected(lhs, names)
        return getattr(np, {"elemwise_add": "add", "elemwise_sub": "subtract",
                            "elemwise_mul": "multiply"}.get(names[0], "divide"))(lhs, rhs)
    return fn


def _names(op):
    from ..ops.python_level import OPERATORS
    return OPERATORS[op]


add = _helper(_names("add"))
subtract = _helper(_names("sub"))
multiply = _helper(_names("mul"))
divide = _helper(_names("truediv"))


def __getattr__(name):
    """``mx.nd.sparse.<op>``: every operator of ``mx.nd`` (``elemwise_mul``, ``dot``,
    ``retain``, ``sum``...), dense inputs accepted as MXNet's are; the result's storage
    type follows MXNet's rules."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..ops import registry
    from .functions import _make_function
    target = {"retain": "_sparse_retain"}.get(name, name)
    op = registry.registry.get(target)
    if op is None:
        raise AttributeError(f"module 'mx.nd.sparse' has no attribute {name!r}")
    fn = globals()[name] = _make_function(op, target)
    return fn


from ..ops.python_level import attach_operators as _attach  # noqa: E402

_attach(BaseSparseNDArray, BaseSparseNDArray._binary, NDArray._reflected, inplace=True)
