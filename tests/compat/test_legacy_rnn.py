"""``mx.rnn``: legacy symbolic cells; a FusedRNNCell and a stack of cells given the
same weights (unpack_weights/pack_weights) compute the same outputs."""
import numpy as np
import pytest

import xprof.runtime as mx


@pytest.mark.parametrize("mode,bidirectional", [("lstm", False), ("gru", True),
                                                ("rnn_tanh", False)])
def test_fused_cell_matches_stacked_cells(mode, bidirectional):
    T, N, I, H = 3, 2, 4, 5
    make = {"lstm": lambda p: mx.rnn.LSTMCell(H, prefix=p),
            "gru": lambda p: mx.rnn.GRUCell(H, prefix=p),
            "rnn_tanh": lambda p: mx.rnn.RNNCell(H, prefix=p)}[mode]
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=bidirectional,
                                get_next_state=True, prefix="")
    stack = mx.rnn.SequentialRNNCell()
    for layer in range(2):
        if bidirectional:
            stack.add(mx.rnn.BidirectionalCell(make(f"l{layer}_"), make(f"r{layer}_"),
                                               output_prefix=f"bi{layer}_"))
        else:
            stack.add(make(f"l{layer}_"))
    data = mx.sym.Variable("data")
    y1, states = fused.unroll(T, data, layout="NTC", merge_outputs=True)
    y2, _ = stack.unroll(T, data, layout="NTC", merge_outputs=True)
    assert len(states) == (2 if mode == "lstm" else 1)
    e1 = y1.simple_bind(mx.cpu(), data=(N, T, I))
    e2 = y2.simple_bind(mx.cpu(), data=(N, T, I))
    flat = mx.nd.random.uniform(-0.5, 0.5, shape=e1.arg_dict["parameters"].shape)
    args = stack.pack_weights(fused.unpack_weights({"parameters": flat}))
    for k, v in args.items():
        e2.arg_dict[k][:] = v
    e1.arg_dict["parameters"][:] = flat
    x = mx.nd.random.uniform(shape=(N, T, I))
    e1.forward(data=x)
    e2.forward(data=x)
    assert e1.outputs[0].shape == (N, T, H * (2 if bidirectional else 1))
    np.testing.assert_allclose(e1.outputs[0].asnumpy(), e2.outputs[0].asnumpy(),
                               rtol=1e-5, atol=1e-6)
    back = fused.pack_weights(stack.unpack_weights(args))["parameters"]
    np.testing.assert_array_equal(back.asnumpy(), flat.asnumpy())


def test_cell_names_states_and_errors():
    cell = mx.rnn.LSTMCell(4, prefix="lstm_")
    outs, states = cell.unroll(2, [mx.sym.var("t0"), mx.sym.var("t1")])
    assert mx.sym.Group(outs).list_outputs() == ["lstm_t0_out_output", "lstm_t1_out_output"]
    assert cell.state_shape == [(0, 4), (0, 4)] and len(states) == 2
    assert sorted(a for a in outs[1].list_arguments() if a.startswith("lstm_")) == \
        ["lstm_h2h_bias", "lstm_h2h_weight", "lstm_i2h_bias", "lstm_i2h_weight"]
    with pytest.raises(ValueError, match="cannot be stepped"):
        mx.rnn.FusedRNNCell(4)(mx.sym.var("x"), [])
    with pytest.raises(ValueError, match="mode='lstmx'"):
        mx.rnn.FusedRNNCell(4, mode="lstmx")


def test_fused_rnn_parameters_initialize_per_gate():
    """mx.init.FusedRNN (attached to FusedRNNCell's parameters): weights by the global
    initializer, biases zero, the LSTM forget-gate biases forget_bias."""
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True,
                               forget_bias=2.5, prefix="")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[("data", (4, 2, 5))])
    mod.init_params(initializer=mx.init.One())
    parts = cell.unpack_weights(mod.get_params()[0])
    assert parts["l0_i2h_i_weight"].shape == (3, 5) and parts["r1_h2h_o_weight"].shape == (3, 3)
    for name, arr in parts.items():
        value = arr.asnumpy()
        if name.endswith("_f_bias"):
            assert (value == 2.5).all(), name
        elif name.endswith("bias"):
            assert (value == 0).all(), name
        else:
            assert (value == 1).all(), name


def test_fused_rnn_initializer_roundtrips_through_its_json_dump():
    init = mx.init.FusedRNN(mx.init.One(), 2, 1, "gru")
    again = mx.init.create(init.dumps())      # its own kwargs include init=
    assert isinstance(again, mx.init.FusedRNN) and again == init
    assert isinstance(again._init, mx.init.One)
