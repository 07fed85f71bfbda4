"""``mx.test_utils``' random arrays of a storage type, as MXNet's tests draw them:
``rand_ndarray(shape, stype, density)``, ``rand_sparse_ndarray`` (the array and the
numpy parts it was made from), ``create_sparse_array(_zd)``. Values come from numpy's
global generator (``np.random``), so MXNet's ``with_seed`` makes them repeatable. CSR
parts are drawn with numpy alone (MXNet uses ``scipy.sparse``; xprof does not depend on
scipy): the same law, uniform positions without replacement, uniform values."""
import numpy as np
import numpy.random as rnd

__all__ = ["rand_ndarray", "rand_sparse_ndarray", "create_sparse_array",
           "create_sparse_array_zd", "shuffle_csr_column_indices", "assign_each", "assign_each2"]


def _defaults(density, dtype, ctx):
    from .context import current_context
    return (rnd.rand() if density is None else density,
            np.float32 if dtype is None else dtype, ctx or current_context())


def assign_each(values, function):
    """``function`` applied to each value: a new float64 array of ``values``' shape, as
    MXNet's (empty arrays included); a copy when ``function`` is None."""
    return assign_each2(values, None, function and (lambda v, _: function(v)))


def assign_each2(values1, values2, function):
    """``function`` of each pair of values (``values2`` None: of each value alone), into a
    new float64 array of ``values1``' shape; a copy of ``values1`` when it is None."""
    if function is None:
        return np.array(values1)
    first = np.asarray(values1)
    second = None if values2 is None else np.asarray(values2).reshape(-1)
    out = np.zeros(first.shape)
    flat = out.reshape(-1)
    for i, v in enumerate(first.reshape(-1)):
        flat[i] = function(v, None if second is None else second[i])
    return out


def shuffle_csr_column_indices(csr):
    """A CSR matrix (its parts) with each row's column indices (and values) shuffled."""
    for r in range(csr.shape[0]):
        lo, hi = csr.indptr[r], csr.indptr[r + 1]
        order = rnd.permutation(hi - lo)
        csr.indices[lo:hi] = csr.indices[lo:hi][order]
        csr.data[lo:hi] = csr.data[lo:hi][order]
    return csr


class _CsrParts:
    """A CSR matrix's three arrays (``data``, ``indices``, ``indptr``) and its shape."""

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, shape

    @classmethod
    def of_positions(cls, rows, cols, flat, data):
        """From the row-major positions (sorted) of the stored values."""
        r = flat // cols
        indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=rows))])
        return cls(data, (flat % cols).astype(np.int64), indptr.astype(np.int64),
                   (rows, cols))


def _uniform_csr(rows, cols, density, dtype, data_init, shuffle):
    """``round(density * rows * cols)`` positions drawn uniformly without replacement,
    uniform values in [0, 1) (as ``scipy.sparse.random``)."""
    k = int(round(density * rows * cols))
    flat = np.sort(rnd.choice(rows * cols, size=k, replace=False)) if k else \
        np.zeros(0, np.int64)
    data = rnd.uniform(size=k).astype(dtype)
    m = _CsrParts.of_positions(rows, cols, flat, data)
    if data_init is not None:
        m.data.fill(data_init)
    if shuffle:
        m = shuffle_csr_column_indices(m)
    return m


def _powerlaw_csr(rows, cols, density, dtype):
    """Row i holds twice row i-1's nonzeros (from 1), until density's count is used."""
    left = int(round(rows * cols * density))
    dense = np.zeros((rows, cols), dtype)
    per_row = 1
    for r in range(rows):
        if left <= 0:
            break
        k = min(per_row, cols, left)
        dense[r, :k] = rnd.uniform(size=k)
        left -= k
        per_row *= 2
    flat = np.flatnonzero(dense)
    return _CsrParts.of_positions(rows, cols, flat, dense.reshape(-1)[flat])


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """(array, parts): a random ``row_sparse`` array and (values, row indices), or a
    ``csr`` array and (indptr, indices, data) NDArrays; ``density`` the fraction of rows
    (row_sparse) or values (csr) stored."""
    from .ndarray import sparse
    density, dtype, ctx = _defaults(density, dtype, ctx)
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        if distribution != "uniform":
            raise ValueError(f"rand_sparse_ndarray: distribution={distribution!r} is not "
                             "supported for row_sparse")
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            arr = sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype)
            return arr, (np.array([], dtype=dtype), np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        arr = sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"rand_sparse_ndarray: a csr array is 2-D, got {shape}")
        if distribution == "uniform":
            m = _uniform_csr(shape[0], shape[1], density, dtype, data_init,
                             shuffle_csr_indices)
        elif distribution == "powerlaw":
            m = _powerlaw_csr(shape[0], shape[1], density, dtype)
        else:
            raise ValueError(f"rand_sparse_ndarray: distribution={distribution!r} is not "
                             "uniform or powerlaw")
        if modifier_func is not None:
            m.data = assign_each(m.data, modifier_func).astype(dtype)
        arr = sparse.csr_matrix((m.data, m.indices, m.indptr), shape=shape, dtype=dtype,
                                ctx=ctx)
        return arr, (arr.indptr, arr.indices, arr.data)
    raise ValueError(f"rand_sparse_ndarray: stype={stype!r} is not row_sparse or csr")


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random array of storage type ``stype``: uniform values in [0, 1) (dense), or
    :func:`rand_sparse_ndarray`'s array."""
    from . import ndarray as nd
    if stype == "default":
        values = rnd.uniform(0, 1, size=shape)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        _, dtype, ctx = _defaults(0, dtype, ctx)
        return nd.array(values, ctx=ctx, dtype=dtype)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                               modifier_func=modifier_func,
                               shuffle_csr_indices=shuffle_csr_indices,
                               distribution=distribution, ctx=ctx)[0]


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=0.5, shuffle_csr_indices=False):
    """A random sparse array (``data_init`` fills its stored values)."""
    if stype == "row_sparse":
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                                   data_init=data_init, rsp_indices=rsp_indices,
                                   modifier_func=modifier_func)[0]
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                               data_init=data_init, modifier_func=modifier_func,
                               shuffle_csr_indices=shuffle_csr_indices)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """:func:`create_sparse_array` where ``density`` 0 gives an all-zero array."""
    if stype == "row_sparse" and rsp_indices is None:
        n = int(round(shape[0] * density))
        rsp_indices = np.sort(rnd.permutation(shape[0])[:n])
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)
