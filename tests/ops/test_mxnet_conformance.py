"""Behaviours MXNet 1.x's own tests expect of existing operators: errors raised at the
call as MXNetError, soft labels, empty reps, None inputs, the operator listing."""
import numpy as np
import pytest

import xprof.runtime as mx


def test_tile_empty_reps_copies_and_zero_reps_need_np_shape():
    a = mx.nd.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(mx.nd.tile(a, ()).asnumpy(), a.asnumpy())
    with pytest.raises(mx.base.MXNetError, match="reps"):
        mx.nd.tile(a, (1, 0, 3))
    with pytest.raises(mx.base.MXNetError, match="negative"):
        mx.nd.tile(a, (1, -2))


def test_symbol_inference_errors_are_mxnet_errors():
    w = mx.sym.where(mx.sym.var("condition"), mx.sym.var("x"), mx.sym.var("y"))
    with pytest.raises(mx.base.MXNetError, match="where"):
        w.eval(x=mx.nd.ones((3, 2)), y=mx.nd.ones((3, 2)), condition=mx.nd.array([1, 0]))
    with pytest.raises(ValueError):      # still the Python type too
        w.infer_shape(x=(3, 2), y=(3, 2), condition=(2,))


@mx.use_np_shape   # as MXNet's test_zero_size_min_max: a 0 is a size only under np_shape
def test_max_and_min_of_an_empty_axis_are_refused_at_the_call():
    a = mx.nd.zeros((5, 0))
    for f in (a.max, a.min):
        with pytest.raises(mx.base.MXNetError, match="empty axis"):
            f()
    assert mx.nd.zeros((5, 0)).sum(axis=1).shape == (5,)


def test_softmax_output_takes_soft_labels_of_the_datas_shape():
    x = np.random.default_rng(0).random((3, 4))
    lab = np.full((3, 4), 0.25)
    grad = mx.nd.zeros((3, 4))
    ex = mx.sym.SoftmaxOutput(mx.sym.var("x"), mx.sym.var("l")).bind(
        mx.cpu(), {"x": mx.nd.array(x), "l": mx.nd.array(lab)}, args_grad={"x": grad})
    ex.forward(is_train=True)
    ex.backward()
    p = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    np.testing.assert_allclose(grad.asnumpy(), p - lab, rtol=1e-5, atol=1e-7)


def test_none_input_is_not_given_and_sym_arange_and_mod():
    s = mx.sym.SequenceReverse(data=mx.sym.var("seq"), sequence_length=None)
    assert s.list_arguments() == ["seq"]
    ex = mx.sym.arange(0, 5, 2).bind(mx.cpu(), {})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [0, 2, 4])
    a, b = mx.sym.var("a"), mx.sym.var("b")
    ex = (a % b).bind(mx.cpu(), {"a": mx.nd.array([5, -5]), "b": mx.nd.array([3, 3])})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [2, 1])
    ex = (7 % a).bind(mx.cpu(), {"a": mx.nd.array([4, 5])})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [3, 2])


def test_registered_operator_listing_has_native_and_custom_ops():
    names = mx.operator.get_all_registered_operators()
    assert "Activation" in names and "flatten" in names
    assert "Activation" not in mx.operator.custom_op_types()


def test_simple_bind_ignores_keywords_that_are_not_shapes():
    out = mx.sym.take(mx.sym.var("a"), mx.sym.var("indices"), axis=0)
    ex = out.simple_bind(mx.cpu(), a=(4, 3), indices=(2,), axis=0, mode="clip")
    assert ex.forward()[0].shape == (2, 3)
