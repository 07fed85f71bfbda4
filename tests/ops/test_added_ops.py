"""Operators added for MXNet 1.x programs: rearrange.py, sorting.py, unary_math.py and the
reductions prod/nansum/nanprod/norm/exclude (reduce.py): numpy results, gradients by
central differences, infer() agreeing with the kernels."""
import numpy as np
import pytest

import xprof.runtime as mx
from test_matrix_ops import check_grad, check_infer, run

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3, 4))


@pytest.mark.parametrize("name, params, expect", [
    ("squeeze", {}, lambda x: x.reshape(2, 3, 4)),
    ("tile", {"reps": (2, 1, 1, 2)}, lambda x: np.tile(x, (2, 1, 1, 2))),
    ("repeat", {"repeats": 2, "axis": 1}, lambda x: np.repeat(x, 2, axis=1)),
    ("repeat", {"repeats": 3}, lambda x: np.repeat(x, 3)),
    ("flip", {"axis": (0, 2)}, lambda x: x[::-1, :, ::-1]),
    ("swapaxes", {"dim1": 0, "dim2": 2}, lambda x: np.swapaxes(x, 0, 2)),
    ("diag", {"k": 1, "axis1": 1, "axis2": 2}, lambda x: np.diagonal(x, 1, 1, 2)),
    ("Pad", {"mode": "constant", "pad_width": (0, 0, 1, 1, 2, 0), "constant_value": 2.0},
     lambda x: np.pad(x, [(0, 0), (1, 1), (2, 0)], constant_values=2.0)),
    ("Pad", {"mode": "edge", "pad_width": (0, 0, 1, 1, 2, 0)},
     lambda x: np.pad(x, [(0, 0), (1, 1), (2, 0)], mode="edge")),
    ("sort", {"axis": 1, "is_ascend": False}, lambda x: -np.sort(-x, axis=1)),
    ("topk", {"axis": 2, "k": 2, "ret_typ": "value"}, lambda x: -np.sort(-x, axis=2)[..., :2]),
    ("prod", {"axis": (0, 2)}, lambda x: x.prod(axis=(0, 2))),
    ("sum", {"axis": 1, "exclude": True}, lambda x: x.sum(axis=(0, 2))),
    ("norm", {"ord": 2, "axis": 1}, lambda x: np.sqrt((x * x).sum(axis=1))),
    ("norm", {"ord": 1, "axis": (1, 2), "keepdims": True},
     lambda x: np.abs(x).sum(axis=(1, 2), keepdims=True)),
    ("floor", {}, np.floor), ("log1p", {}, lambda x: np.log1p(np.abs(x))),
])
def test_kernel_matches_numpy_and_gradient(name, params, expect):
    x = np.abs(X) if name == "log1p" else X
    (out,) = run(name, x, **params)
    np.testing.assert_allclose(out, expect(x), rtol=1e-12)
    check_infer(name, [x], params)
    if name not in ("floor",):
        check_grad(name, [x], params, rtol=1e-4, atol=1e-6)


def test_topk_indices_mask_both_and_argsort():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    (idx,) = run("topk", x, k=2)
    np.testing.assert_array_equal(idx, [[0, 2], [1, 2]])
    (mask,) = run("topk", x, k=1, ret_typ="mask")
    np.testing.assert_array_equal(mask, [[1, 0, 0], [0, 1, 0]])
    values, indices = mx.nd.topk(mx.nd.array(x), k=2, ret_typ="both", is_ascend=True)
    np.testing.assert_array_equal(values.asnumpy(), [[1, 2], [0, 4]])
    np.testing.assert_array_equal(indices.asnumpy(), [[1, 2], [0, 2]])
    np.testing.assert_array_equal(mx.nd.argsort(mx.nd.array(x)).asnumpy(), [[1, 2, 0], [0, 2, 1]])
    with pytest.raises(ValueError, match="ret_typ"):
        mx.nd.topk(mx.nd.array(x), ret_typ="bad")


def test_round_is_half_away_from_zero_and_like_ops():
    np.testing.assert_array_equal(mx.nd.round(mx.nd.array([0.5, 1.5, -0.5, 2.4])).asnumpy(),
                                  [1, 2, -1, 2])
    a, b = np.arange(12.0).reshape(3, 4), np.zeros((2, 6))
    (r,) = run("reshape_like", a, b)
    assert r.shape == (2, 6)
    (s,) = run("slice_like", a, np.zeros((2, 3)), axes=(0, 1))
    np.testing.assert_array_equal(s, a[:2, :3])
    check_grad("slice_like", [a, np.zeros((2, 3))], {"axes": (1,)}, wrt=[0])
    d = RNG.standard_normal((1, 8, 2, 3))
    (up,) = run("depth_to_space", d, block_size=2)
    (down,) = run("space_to_depth", up, block_size=2)
    np.testing.assert_array_equal(down, d)
    check_grad("depth_to_space", [d], {"block_size": 2})


def test_ndarray_methods_and_functions():
    x = mx.nd.array(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(x.slice((0, 1), (2, 3)).asnumpy(), [[1, 2], [5, 6]])
    assert x.expand_dims(0).squeeze().shape == (3, 4)
    np.testing.assert_array_equal((x / 3).floor().asnumpy()[0], [0, 0, 0, 1])
    np.testing.assert_array_equal(mx.nd.maximum(x, 5).asnumpy()[0], [5, 5, 5, 5])
    np.testing.assert_array_equal(mx.nd.minimum(3, x).asnumpy()[0], [0, 1, 2, 3])
    np.testing.assert_array_equal(mx.nd.power(2, mx.nd.array([1.0, 3.0])).asnumpy(), [2, 8])
    assert x.tostype("default").asnumpy().sum() == 66
    assert x.tostype("row_sparse").stype == "row_sparse"      # tests/ndarray/test_sparse.py
    assert x.norm().asnumpy()[0] == pytest.approx(np.sqrt((np.arange(12.0) ** 2).sum()))


def test_legacy_element_0index_functions():
    lhs = mx.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = mx.nd.array([2, 0])
    assert mx.nd.choose_element_0index(lhs, idx).asnumpy().tolist() == [3.0, 4.0]
    filled = mx.nd.fill_element_0index(lhs, mx.nd.array([9.0, 8.0]), idx)
    assert filled.asnumpy().tolist() == [[1, 2, 9], [8, 5, 6]]
    out = mx.nd.zeros((2, 3))
    mx.nd.onehot_encode(idx, out)
    assert out.asnumpy().tolist() == [[0, 0, 1], [1, 0, 0]]
