"""Sparse arrays (values kept dense, storage type reported): constructors and their
structure, ``tostype``, and the storage type of results by MXNet 1.9.1's rules."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.ndarray.sparse import CSRNDArray, RowSparseNDArray

DENSE = np.array([[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]], np.float32)


def test_csr_structure_is_mxnets_layout():
    x = mx.nd.array(DENSE).tostype("csr")
    assert isinstance(x, CSRNDArray) and x.stype == "csr" and x.shape == (3, 4)
    np.testing.assert_array_equal(x.data.asnumpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(x.indices.asnumpy(), [1, 3, 0, 3])
    np.testing.assert_array_equal(x.indptr.asnumpy(), [0, 2, 2, 4])
    assert x.indices.dtype == np.int64
    np.testing.assert_array_equal(x.asnumpy(), DENSE)
    np.testing.assert_array_equal(x[2].asnumpy(), DENSE[2:3])
    assert x[0:2].stype == "csr"


def test_made_from_arrays_keeps_them_until_written():
    # an explicit zero stays stored, as in MXNet, until the array is written
    x = mx.nd.sparse.csr_matrix(([0.0, 5.0], [0, 2], [0, 1, 2]), shape=(2, 3))
    np.testing.assert_array_equal(x.data.asnumpy(), [0, 5])
    np.testing.assert_array_equal(x.asnumpy(), [[0, 0, 0], [0, 0, 5]])
    x[:] = mx.nd.array([[1, 0, 0], [0, 0, 0]]).tostype("csr")
    np.testing.assert_array_equal(x.data.asnumpy(), [1])
    r = mx.nd.sparse.row_sparse_array(([[1.0, 2.0], [0.0, 0.0]], [1, 3]), shape=(5, 2))
    assert isinstance(r, RowSparseNDArray)
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(r.asnumpy()[1], [1, 2])
    bad = mx.nd.sparse.csr_matrix(([1.0], [7], [0, 1]), shape=(1, 3))
    with pytest.raises(mx.MXNetError, match="out of range"):
        bad.check_format()


@pytest.mark.parametrize("expr, stype", [
    (lambda c, d: c * 2, "csr"),
    (lambda c, d: c + 1, "default"),
    (lambda c, d: c == 1, "csr"),
    (lambda c, d: c == 0, "default"),
    (lambda c, d: mx.nd.sqrt(c), "csr"),
    (lambda c, d: mx.nd.exp(c), "default"),
    (lambda c, d: c + c, "csr"),
    (lambda c, d: c + d, "default"),
    (lambda c, d: mx.nd.sparse.elemwise_mul(c, d), "csr"),
    (lambda c, d: mx.nd.dot(c, d.T), "default"),
    (lambda c, d: mx.nd.dot(c, d, transpose_a=True), "row_sparse"),
    (lambda c, d: mx.nd.dot(d.T, c), "csr"),
    (lambda c, d: mx.nd.sum(c, axis=0), "default"),
    # elemwise_div's result is dense whatever its inputs (SparseSparseWithDenseResult)
    (lambda c, d: mx.nd.elemwise_div(c, c + 1), "default"),
    (lambda c, d: mx.nd._internal._maximum(c, c * 2), "csr"),
    (lambda c, d: mx.nd._internal._minimum(c, c), "csr"),
    (lambda c, d: mx.nd._internal._hypot(c, c), "csr"),
    (lambda c, d: mx.nd._internal._maximum(c, d), "default"),
])
def test_result_storage_types_follow_mxnet(expr, stype):
    c = mx.nd.array(DENSE).tostype("csr")
    d = mx.nd.array(np.ones_like(DENSE))
    out = expr(c, d)
    assert out.stype == stype
    want = expr(mx.nd.array(DENSE), d)        # the values are the dense computation's
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy())


def test_sparse_front_doors_accept_dense_arrays():
    a, b = mx.nd.array(DENSE), mx.nd.array(DENSE + 1)
    out = mx.nd.sparse.elemwise_mul(a, b)                 # MXNet accepts dense inputs
    assert out.stype == "default"
    np.testing.assert_array_equal(out.asnumpy(), DENSE * (DENSE + 1))
    rsp = mx.nd.sparse.retain(a.tostype("row_sparse"), mx.nd.array([2]))
    assert rsp.stype == "row_sparse"
    np.testing.assert_array_equal(rsp.asnumpy(), [[0] * 4, [0] * 4, DENSE[2]])
    z = mx.nd.zeros((2, 3), stype="row_sparse")
    assert z.stype == "row_sparse" and z.indices.shape == (0,)
    g = mx.nd.ones((2, 2))
    g.attach_grad(stype="csr")
    assert g.grad.stype == "csr"


def test_batch_norm_with_fix_gamma_refuses_sparse_inputs_as_mxnet():
    # MXNet's BatchNorm storage inference: fix_gamma=True (its default) with any sparse
    # input is an MXNetError, imperatively and at bind; fix_gamma=False falls back
    data = mx.nd.array(DENSE).tostype("row_sparse")
    stats = [mx.nd.ones((4,)) for _ in range(4)]
    with pytest.raises(mx.MXNetError, match="fix_gamma=True"):
        mx.nd.BatchNorm(data, *stats)
    sym = mx.sym.BatchNorm(mx.sym.var("data", stype="row_sparse"))
    with pytest.raises(mx.MXNetError, match="fix_gamma=True"):
        sym.bind(mx.cpu(), args=[data] + stats[:2], aux_states=stats[2:])
    out = mx.nd.BatchNorm(data, *stats, fix_gamma=False, use_global_stats=True, eps=1e-5)
    want = mx.nd.BatchNorm(mx.nd.array(DENSE), *stats, fix_gamma=False,
                           use_global_stats=True, eps=1e-5)
    assert out.stype == "default"
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy())
