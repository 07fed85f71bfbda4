"""``mx.sym.np``/``mx.sym.npx``: np symbols composing the operators ``mx.np`` pushes,
bound and run by the executor (as MXNet 1.x's tests use them with
``check_numeric_gradient``)."""
import numpy as onp
import pytest

import xprof.runtime as mx


def _bind(sym, **arrays):
    ex = sym.as_nd_ndarray().bind(mx.cpu(), {k: mx.nd.array(v, dtype="float64")
                                             for k, v in arrays.items()},
                                  args_grad={k: mx.nd.zeros(v.shape, dtype="float64")
                                             for k, v in arrays.items()})
    return ex


def test_conversions_keep_the_graph():
    a = mx.sym.var("a")
    s = a.as_np_ndarray()
    assert type(s) is mx.sym.np._Symbol and s.as_nd_ndarray().list_arguments() == ["a"]
    assert type(s.as_nd_ndarray()) is mx.sym.Symbol
    assert type(mx.sym.np.stack([s, s])) is mx.sym.np._Symbol


def test_functions_operators_and_slicing_compute_numpys_values():
    rng = onp.random.default_rng(0)
    a, b = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 2))
    x, y = mx.sym.var("x").as_np_ndarray(), mx.sym.var("y").as_np_ndarray()
    cases = [
        (mx.sym.np.tensordot(x, y, 1), a @ b),
        (mx.sym.np.sum(x, axis=1, keepdims=True) * 2 + 1, a.sum(1, keepdims=True) * 2 + 1),
        (mx.sym.np.roll(x, 1, axis=0), onp.roll(a, 1, axis=0)),
        (x[1:, None, ::2] - x[0, ::2], a[1:, None, ::2] - a[0, ::2]),
        (mx.sym.npx.relu(x), onp.maximum(a, 0)),
        (mx.sym.np.linalg.det(mx.sym.np.dot(x, x.T)), onp.linalg.det(a @ a.T)),
        (x.T @ x, a.T @ a),
    ]
    for sym, want in cases:
        out = _bind(sym, x=a, y=b).forward()[0]
        onp.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, atol=1e-9)


def test_gradients_through_the_executor():
    rng = onp.random.default_rng(1)
    a = rng.uniform(-1, 1, (3, 4))
    x = mx.sym.var("x").as_np_ndarray()
    ex = _bind(mx.sym.np.mean(x * x), x=a)
    ex.forward(is_train=True)
    ex.backward()
    onp.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), 2 * a / a.size, rtol=1e-6)


def test_names_of_the_nodes_are_mxnet_2s_ops():
    import json
    x = mx.sym.var("x").as_np_ndarray()
    s = mx.sym.np.sum(mx.sym.np.exp(x) + 1)
    ops = [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["_npi_exp", "_npi_add_scalar", "_npi_sum"]


def test_shape_dependent_index_is_a_clear_error():
    x = mx.sym.var("x").as_np_ndarray()
    with pytest.raises(TypeError, match="not supported on a symbol"):
        x[[0, 1]]
