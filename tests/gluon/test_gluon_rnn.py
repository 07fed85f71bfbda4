"""``gluon.rnn``: fused layers against stacks of cells (two independent code paths),
layouts, states, hybridize, training, and the cell combinators."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, gluon

rnn = gluon.rnn


def _cell_stack(mode, hidden, layers, bidirectional):
    make = {"lstm": rnn.LSTMCell, "gru": rnn.GRUCell,
            "rnn_tanh": lambda h, prefix: rnn.RNNCell(h, "tanh", prefix=prefix)}[mode]
    stack = rnn.HybridSequentialRNNCell(prefix="stack_")
    with stack.name_scope():
        for i in range(layers):
            if bidirectional:
                stack.add(rnn.BidirectionalCell(make(hidden, prefix=f"l{i}_"),
                                                make(hidden, prefix=f"r{i}_")))
            else:
                stack.add(make(hidden, prefix=f"l{i}_"))
    return stack


@pytest.mark.parametrize("mode,layer", [("lstm", rnn.LSTM), ("gru", rnn.GRU),
                                        ("rnn_tanh", lambda h, **k: rnn.RNN(h, activation="tanh", **k))])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_fused_layer_matches_unrolled_cells(mode, layer, bidirectional):
    T, N, C, H, L = 4, 3, 5, 6, 2
    fused = layer(H, num_layers=L, bidirectional=bidirectional, input_size=C,
                  prefix="fused_")
    fused.initialize(mx.init.Uniform(0.3))
    stack = _cell_stack(mode, H, L, bidirectional)
    stack.initialize()
    cells = stack.collect_params()
    for name, p in fused.collect_params().items():
        cells["stack_" + name[len("fused_"):]].set_data(p.data())
    x = mx.nd.random.uniform(-1, 1, shape=(T, N, C))
    states = fused.begin_state(N)
    out, new_states = fused(x, states)
    ref, ref_states = stack.unroll(T, x, layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-4, atol=1e-5)
    # the fused states are (layers * directions, N, H): cell states per layer, direction
    per = 2 if mode == "lstm" else 1
    for k, fs in enumerate(new_states):
        np.testing.assert_allclose(fs.asnumpy(),
                                   np.stack([s.asnumpy() for s in ref_states[k::per]]),
                                   rtol=1e-4, atol=1e-5)


def test_layouts_states_and_errors():
    layer = rnn.LSTM(4, layout="NTC")
    layer.initialize()
    x = mx.nd.random.uniform(shape=(2, 5, 3))
    out = layer(x)
    assert out.shape == (2, 5, 4)
    assert layer.l0_i2h_weight.shape == (16, 3)        # deferred input size
    tnc = rnn.LSTM(4, layout="TNC", input_size=3, params=layer.collect_params(),
                   prefix=layer.prefix)
    np.testing.assert_allclose(tnc(x.swapaxes(0, 1)).swapaxes(0, 1).asnumpy(), out.asnumpy(),
                               rtol=1e-5)
    out2, states = layer(x, layer.begin_state(2))
    assert [s.shape for s in states] == [(1, 2, 4), (1, 2, 4)]
    assert layer.state_info(2)[0]["shape"] == (1, 2, 4)
    with pytest.raises(ValueError, match="state has shape"):
        layer(x, layer.begin_state(3))
    with pytest.raises(ValueError, match="layout='CTN'"):
        rnn.GRU(3, layout="CTN")
    assert repr(layer) == "LSTM(3 -> 4, NTC)"


def test_hybridized_layer_gives_the_same_output_and_gradients():
    x = mx.nd.random.uniform(shape=(3, 2, 4))
    grads, outs = [], []
    for hybrid in (False, True):
        mx.random.seed(7)
        layer = rnn.GRU(5, num_layers=2, bidirectional=True, prefix="g_")
        layer.initialize(mx.init.Uniform(0.5))
        if hybrid:
            layer.hybridize()
        with autograd.record():
            out = layer(x)
            loss = (out * out).sum()
        loss.backward()
        outs.append(out.asnumpy())
        grads.append({k: p.grad().asnumpy() for k, p in layer.collect_params().items()})
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5)
    for k in grads[0]:
        np.testing.assert_allclose(grads[0][k], grads[1][k], rtol=1e-4, atol=1e-6)


def test_lstm_layer_trains():
    mx.random.seed(0)
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(rnn.LSTM(8, layout="NTC"))
        net.add(gluon.nn.Dense(1, flatten=True))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.random.uniform(-1, 1, shape=(16, 5, 2))
    y = x.sum(axis=(1, 2)).reshape((16, 1))
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
    losses = []
    for _ in range(30):
        with autograd.record():
            loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    assert losses[-1] < 0.3 * losses[0]


@pytest.mark.parametrize("cell,n_states", [(rnn.RNNCell, 1), (rnn.LSTMCell, 2),
                                           (rnn.GRUCell, 1)])
def test_cell_unroll_shapes_and_symbol_names(cell, n_states):
    c = cell(6, prefix="rnn_")
    c.initialize()
    outs, states = c.unroll(3, mx.nd.ones((2, 3, 4)), merge_outputs=True)
    assert outs.shape == (2, 3, 6) and len(states) == n_states
    steps, _ = c.unroll(3, mx.nd.ones((3, 2, 4)), layout="TNC", merge_outputs=False)
    assert [s.shape for s in steps] == [(2, 6)] * 3
    assert c.state_info(2) == [{"shape": (2, 6), "__layout__": "NC"}] * n_states
    sym_outs, _ = c.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)])
    group = mx.sym.Group(sym_outs)
    assert group.list_outputs() == [f"rnn_t{i}_out_output" for i in range(3)]
    assert group.infer_shape(**{f"rnn_t{i}_data": (5, 4) for i in range(3)})[1] == \
        [(5, 6)] * 3


def test_cell_combinators():
    seq = rnn.SequentialRNNCell()
    with seq.name_scope():
        seq.add(rnn.LSTMCell(4))
        seq.add(rnn.DropoutCell(0.5))
        seq.add(rnn.GRUCell(4))
    seq.initialize()
    assert len(seq.state_info(2)) == 3 and len(seq.begin_state(batch_size=2)) == 3
    out, states = seq(mx.nd.ones((2, 3)), seq.begin_state(batch_size=2))
    assert out.shape == (2, 4) and len(states) == 3

    res = rnn.ResidualCell(rnn.GRUCell(3, prefix="res_"))
    res.initialize(mx.init.Zero())
    x = mx.nd.random.uniform(shape=(2, 4, 3))
    outs, _ = res.unroll(4, x, merge_outputs=True)
    # zero weights: the GRU step is 0.5 * previous state = 0, so output == input
    np.testing.assert_allclose(outs.asnumpy(), x.asnumpy(), rtol=1e-6)

    bi = rnn.BidirectionalCell(rnn.RNNCell(3, prefix="l_"), rnn.RNNCell(3, prefix="r_"))
    bi.initialize()
    outs, states = bi.unroll(4, x, merge_outputs=True)
    assert outs.shape == (2, 4, 6) and len(states) == 2
    with pytest.raises(ValueError, match="cannot be stepped"):
        bi(x[:, 0], bi.begin_state(batch_size=2))

    base = rnn.RNNCell(3, prefix="z_")
    zone = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    zone.initialize()
    got, _ = zone.unroll(4, x, merge_outputs=True)           # inference: no zoneout
    plain = rnn.RNNCell(3, prefix="z_", params=base.params, input_size=3)
    want, _ = plain.unroll(4, x, merge_outputs=True)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="modifier"):
        base.begin_state(batch_size=2)


def test_lstm_bias_initializer_opens_the_forget_gate():
    cell = rnn.LSTMCell(3, input_size=2, i2h_bias_initializer=mx.init.LSTMBias(2.0))
    cell.initialize()
    np.testing.assert_array_equal(cell.i2h_bias.data().asnumpy(),
                                  [0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="multiple of 4"):
        mx.init.LSTMBias()("b_bias", mx.nd.zeros((6,)))


def test_unfused_stack_shares_parameters_and_matches_mxnet_numbers():
    """All-ones weights, 6 bidirectional LSTM layers: MXNet 1.9.1 gives 0.72045636 and
    0.95215213 (forward/backward halves swap between the two steps)."""
    x = mx.nd.ones((2, 2, 2))
    layer = rnn.LSTM(2, num_layers=6, bidirectional=True)
    cells = layer._unfuse()
    layer.initialize(mx.init.One())
    fused = layer(x).asnumpy()
    unrolled = cells.unroll(2, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    a, b = 0.72045636, 0.95215213
    want = np.array([[[a, a, b, b]] * 2, [[b, b, a, a]] * 2])
    np.testing.assert_allclose(fused, want, rtol=1e-5)
    np.testing.assert_allclose(unrolled, want, rtol=1e-5)
    assert set(cells.collect_params()) == set(layer.collect_params())


# -- unroll(valid_length=...): per-sequence lengths -----------------------------------------
def _cells():
    from xprof.runtime.gluon.contrib.rnn import VariationalDropoutCell
    res = gluon.rnn.SequentialRNNCell()
    res.add(gluon.rnn.ResidualCell(gluon.rnn.RNNCell(6)))
    return [gluon.rnn.LSTMCell(6),
            gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(6), gluon.rnn.GRUCell(6)),
            VariationalDropoutCell(gluon.rnn.RNNCell(6)), res]


@pytest.mark.parametrize("k", range(4))
def test_valid_length_unroll_equals_each_sequence_unrolled_alone(k):
    cell = _cells()[k]
    cell.collect_params().initialize()
    lengths = [3, 5, 1, 4]
    data = mx.nd.random.normal(0, 1, shape=(4, 5, 6))
    outs, states = cell.unroll(5, data, valid_length=mx.nd.array(lengths), layout="NTC")
    assert outs.shape[:2] == (4, 5)          # merged, as MXNet gives masked outputs
    for i, n in enumerate(lengths):
        one, one_states = cell.unroll(n, data[i:i + 1, :n], layout="NTC",
                                      merge_outputs=True)
        np.testing.assert_allclose(outs[i:i + 1, :n].asnumpy(), one.asnumpy(), rtol=1e-4,
                                   atol=1e-5)
        assert not outs[i, n:].asnumpy().any()
        for s, s1 in zip(states, one_states):
            np.testing.assert_allclose(s[i:i + 1].asnumpy(), s1.asnumpy(), rtol=1e-4,
                                       atol=1e-5)


def test_valid_length_unroll_builds_a_graph_with_the_same_values():
    cell = gluon.rnn.RNNCell(4, prefix="r_")
    cell.collect_params().initialize()
    x = mx.nd.random.normal(0, 1, shape=(3, 4, 2))
    lengths = mx.nd.array([2, 4, 1])
    want_out, want_states = cell.unroll(4, x, valid_length=lengths, merge_outputs=True)
    outs, states = cell.unroll(4, mx.sym.var("data"), valid_length=mx.sym.var("vl"),
                               merge_outputs=True)
    args = {"data": x, "vl": lengths,
            **{k: p.data() for k, p in cell.collect_params().items()}}
    got = mx.sym.Group([outs, states[0]]).bind(mx.cpu(), args).forward()
    np.testing.assert_allclose(got[0].asnumpy(), want_out.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), want_states[0].asnumpy(), rtol=1e-5,
                               atol=1e-6)


def test_variational_dropout_keeps_one_mask_per_sequence():
    from xprof.runtime.gluon.contrib.rnn import VariationalDropoutCell

    class Echo(gluon.rnn.HybridRecurrentCell):      # output = input: shows the mask
        def state_info(self, batch_size=0):
            return [{"shape": (batch_size, 8), "__layout__": "NC"}]

        def hybrid_forward(self, F, inputs, states):
            return inputs, states
    cell = VariationalDropoutCell(Echo(), drop_inputs=0.5)
    with autograd.train_mode():
        outs, _ = cell.unroll(6, mx.nd.ones((2, 6, 8)), merge_outputs=True)
    o = outs.asnumpy()
    assert set(np.unique(o)) <= {0.0, 2.0} and 0 < (o == 0).mean() < 1
    for t in range(1, 6):
        np.testing.assert_array_equal(o[:, t], o[:, 0])     # the same mask every step
    with pytest.raises(ValueError, match="drop_states=1.0"):
        VariationalDropoutCell(Echo(), drop_states=1.0)
