"""Partial variable shapes (a 0 dimension is unknown), resolved from the consumers."""
import pytest

import xprof.runtime as mx


def test_begin_state_variables_take_the_batch_from_the_graph():
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=6, prefix=f"l{i}_"))
    begin = stack.begin_state(func=mx.sym.Variable)
    _, states = stack.unroll(3, begin_state=begin, inputs=mx.sym.Variable("data"))
    group = mx.sym.Group(states)
    args, outs, _ = group.infer_shape(data=(4, 3, 5))
    shapes = dict(zip(group.list_arguments(), args))
    assert [shapes[b.name] for b in begin] == [(4, 6)] * 4
    assert shapes["l0_h2h_weight"] == (24, 6) and shapes["l0_i2h_weight"] == (24, 5)
    assert outs == [(4, 6)] * 4


def test_partial_shape_through_elementwise_and_unresolved():
    a = mx.sym.Variable("a", shape=(0, 3))
    b = mx.sym.Variable("b")
    args, outs, _ = (mx.sym.FullyConnected(a, num_hidden=3, no_bias=True, name="fc") + b) \
        .infer_shape(b=(7, 3))
    assert args[0] == (7, 3) and outs == [(7, 3)]
    with pytest.warns(UserWarning, match="'a'"):
        assert mx.sym.relu(a).infer_shape() == (None, None, None)
