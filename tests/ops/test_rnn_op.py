"""The fused ``RNN`` operator: MXNet 1.x's packed parameter layout checked against cells
written out by hand, gradients against central differences, shapes, errors, profiling."""
import json

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.ops import rnn

from gradcheck import numeric_grad

MODES = ["rnn_relu", "rnn_tanh", "lstm", "gru"]


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _cell(mode, x, h, c, wx, wh, bx, bh):
    """One step written from the textbook formulas (gates i,f,g,o / r,z,n)."""
    H = h.shape[1]
    if mode == "lstm":
        i = _sig(x @ wx[:H].T + bx[:H] + h @ wh[:H].T + bh[:H])
        f = _sig(x @ wx[H:2 * H].T + bx[H:2 * H] + h @ wh[H:2 * H].T + bh[H:2 * H])
        g = np.tanh(x @ wx[2 * H:3 * H].T + bx[2 * H:3 * H] + h @ wh[2 * H:3 * H].T
                    + bh[2 * H:3 * H])
        o = _sig(x @ wx[3 * H:].T + bx[3 * H:] + h @ wh[3 * H:].T + bh[3 * H:])
        c = f * c + i * g
        return o * np.tanh(c), c
    if mode == "gru":
        r = _sig(x @ wx[:H].T + bx[:H] + h @ wh[:H].T + bh[:H])
        z = _sig(x @ wx[H:2 * H].T + bx[H:2 * H] + h @ wh[H:2 * H].T + bh[H:2 * H])
        n = np.tanh(x @ wx[2 * H:].T + bx[2 * H:] + r * (h @ wh[2 * H:].T + bh[2 * H:]))
        return (1 - z) * n + z * h, c
    a = x @ wx.T + bx + h @ wh.T + bh
    return (np.maximum(a, 0) if mode == "rnn_relu" else np.tanh(a)), c


def _reference(mode, x, layers_w, h0, c0, bidirectional, cell=None):
    """Stacked (bi)directional unroll of ``cell`` (default ``_cell``); layers_w[k] =
    (wx, wh, bx, bh) or what ``cell`` takes."""
    cell = cell or (lambda x, h, c, *w: _cell(mode, x, h, c, *w))
    dirs = 2 if bidirectional else 1
    hy, cy = [], []
    for layer in range(len(layers_w) // dirs):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            h, c = h0[k], c0[k]
            seq = [None] * len(x)
            for t in (reversed(range(len(x))) if d else range(len(x))):
                h, c = cell(x[t], h, c, *layers_w[k])
                seq[t] = h
            outs.append(np.stack(seq))
            hy.append(h)
            cy.append(c)
        x = np.concatenate(outs, axis=2)
    return x, np.stack(hy), np.stack(cy)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_forward_matches_cells_in_mxnet_layout(mode, bidirectional):
    rng = np.random.default_rng(1)
    T, N, C, H, L = 4, 3, 5, 2, 2
    D = 2 if bidirectional else 1
    G = rnn.GATES[mode]
    ws, bs = [], []
    for layer in range(L):
        ni = C if layer == 0 else D * H
        for _ in range(D):
            ws.append((rng.standard_normal((G * H, ni)), rng.standard_normal((G * H, H))))
            bs.append((rng.standard_normal(G * H), rng.standard_normal(G * H)))
    flat = np.concatenate([a.ravel() for w in ws for a in w] + [b for pair in bs for b in pair])
    assert flat.size == rnn.param_size(C, H, L, bidirectional, mode)
    x = rng.standard_normal((T, N, C))
    h0 = rng.standard_normal((L * D, N, H))
    c0 = rng.standard_normal((L * D, N, H))
    args = [mx.nd.array(x), mx.nd.array(flat), mx.nd.array(h0)]
    if mode == "lstm":
        args.append(mx.nd.array(c0))
    outs = mx.nd.RNN(*args, state_size=H, num_layers=L, bidirectional=bidirectional,
                     mode=mode, state_outputs=True)
    want = _reference(mode, x, [w + b for w, b in zip(ws, bs)], h0, c0, bidirectional)
    assert len(outs) == (3 if mode == "lstm" else 2)
    for got, exp in zip(outs, want):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_gradient_matches_central_differences(mode, bidirectional):
    rng = np.random.default_rng(2)
    T, N, C, H, L = 3, 2, 3, 2, 2
    D = 2 if bidirectional else 1
    kw = dict(state_size=H, num_layers=L, bidirectional=bidirectional, mode=mode,
              state_outputs=True)
    ins = [rng.standard_normal((T, N, C)),
           0.5 * rng.standard_normal(rnn.param_size(C, H, L, bidirectional, mode)),
           rng.standard_normal((L * D, N, H))]
    if mode == "lstm":
        ins.append(rng.standard_normal((L * D, N, H)))
    _check_gradients(rng, ins, kw)


def _check_gradients(rng, ins, kw):
    """Every input's analytic gradient against central differences, for random heads."""
    outs = rnn._rnn(*ins, **kw)
    heads = [rng.standard_normal(o.shape) for o in outs]

    def loss():
        return sum((o * g).sum() for o, g in zip(rnn._rnn(*ins, **kw), heads))

    analytic = rnn._rnn_grad(heads, ins, list(outs), **kw)
    for i, x in enumerate(ins):
        np.testing.assert_allclose(analytic[i], numeric_grad(loss, x), rtol=1e-4, atol=1e-6)
    return outs


def test_lstm_cell_clip_bounds_the_cell_state_and_its_gradient():
    rng = np.random.default_rng(3)
    kw = dict(state_size=2, num_layers=1, mode="lstm", state_outputs=True,
              lstm_state_clip_min=-0.2, lstm_state_clip_max=0.2)
    ins = [rng.standard_normal((3, 2, 3)), rng.standard_normal(rnn.param_size(3, 2, 1, 0, "lstm")),
           rng.standard_normal((1, 2, 2)), rng.standard_normal((1, 2, 2))]
    outs = rnn._rnn(*ins, **kw)
    assert np.abs(outs[2]).max() <= 0.2 + 1e-12
    heads = [rng.standard_normal(o.shape) for o in outs]

    def loss():
        return sum((o * g).sum() for o, g in zip(rnn._rnn(*ins, **kw), heads))

    analytic = rnn._rnn_grad(heads, ins, list(outs), **kw)
    np.testing.assert_allclose(analytic[1], numeric_grad(loss, ins[1]), rtol=1e-4, atol=1e-6)


def test_autograd_through_nd_rnn_and_single_output():
    x = mx.nd.random.uniform(shape=(5, 2, 4))
    params = mx.nd.random.uniform(-0.1, 0.1, shape=(rnn.param_size(4, 3, 1, False, "gru"),))
    state = mx.nd.zeros((1, 2, 3))
    params.attach_grad()
    with mx.autograd.record():
        out = mx.nd.RNN(x, params, state, state_size=3, num_layers=1, mode="gru")
        loss = out.sum()
    loss.backward()
    assert out.shape == (5, 2, 3)
    assert params.grad.shape == params.shape and np.abs(params.grad.asnumpy()).sum() > 0


def test_symbol_infers_parameter_and_state_shapes_and_trains():
    data = mx.sym.Variable("data")
    net = mx.sym.RNN(data, state_size=3, num_layers=2, mode="lstm", bidirectional=True,
                     name="rnn")
    assert net.list_arguments() == ["data", "rnn_parameters", "rnn_state", "rnn_state_cell"]
    args, outs, _ = net.infer_shape(data=(5, 2, 4))
    assert args == [(5, 2, 4), (rnn.param_size(4, 3, 2, True, "lstm"),), (4, 2, 3), (4, 2, 3)]
    assert outs == [(5, 2, 6)]
    ex = net.simple_bind(mx.cpu(), data=(5, 2, 4))
    ex.arg_dict["rnn_parameters"][:] = 0.1
    ex.forward(is_train=True, data=mx.nd.ones((5, 2, 4)))
    ex.backward(mx.nd.ones((5, 2, 6)))
    assert np.abs(ex.grad_dict["rnn_parameters"].asnumpy()).sum() > 0


def test_bad_input_is_one_clear_error():
    x, s = mx.nd.zeros((2, 1, 3)), mx.nd.zeros((1, 1, 2))
    with pytest.raises(ValueError, match="mode='lstmx' must be one of"):
        mx.nd.RNN(x, mx.nd.zeros((10,)), s, state_size=2, mode="lstmx")
    with pytest.raises(ValueError, match="parameters has shape"):
        mx.nd.RNN(x, mx.nd.zeros((10,)), s, state_size=2, mode="rnn_tanh")
    with pytest.raises(ValueError, match="data must be 3-D"):
        mx.nd.RNN(mx.nd.zeros((2, 3)), mx.nd.zeros((10,)), s, state_size=2, mode="gru")
    with pytest.raises(ValueError, match="use_sequence_length"):
        mx.nd.RNN(x, mx.nd.zeros((16,)), s, state_size=2, mode="rnn_tanh",
                  use_sequence_length=True)


def test_rnn_is_profiled_under_its_mxnet_name(tmp_path):
    trace = tmp_path / "p.json"
    mx.profiler.set_config(filename=str(trace), profile_imperative=True)
    mx.profiler.set_state("run")
    x = mx.nd.ones((2, 1, 3))
    params = mx.nd.ones((rnn.param_size(3, 2, 1, False, "rnn_tanh"),))
    params.attach_grad()
    with mx.autograd.record():
        y = mx.nd.RNN(x, params, mx.nd.zeros((1, 1, 2)), state_size=2, mode="rnn_tanh")
    y.backward()
    params.grad.wait_to_read()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    names = {e.get("name") for e in json.loads(trace.read_text())["traceEvents"]}
    assert {"RNN", "_backward_RNN"} <= names


# -- LSTM with projection_size (LSTMP) ---------------------------------------------------
def _lstmp_reference(x, flat, h0, c0, H, P, L, D):
    """Textbook LSTMP over the MXNet layout: per (layer, dir) Wx, Wh (4H, P), Wr (P, H),
    then the biases."""
    C = x.shape[2]
    ws, off = [], 0
    for layer in range(L):
        ni = C if layer == 0 else P * D
        for _ in range(D):
            wx = flat[off:off + 4 * H * ni].reshape(4 * H, ni)
            off += 4 * H * ni
            wh = flat[off:off + 4 * H * P].reshape(4 * H, P)
            off += 4 * H * P
            wr = flat[off:off + P * H].reshape(P, H)
            off += P * H
            ws.append([wx, wh, wr])
    for k in range(L * D):
        ws[k] += [flat[off:off + 4 * H], flat[off + 4 * H:off + 8 * H]]
        off += 8 * H
    assert off == flat.size

    def lstmp(x, h, c, wx, wh, wr, bx, bh):
        pre = x @ wx.T + bx + h @ wh.T + bh
        i, f = _sig(pre[:, :H]), _sig(pre[:, H:2 * H])
        g, o = np.tanh(pre[:, 2 * H:3 * H]), _sig(pre[:, 3 * H:])
        c = f * c + i * g
        return (o * np.tanh(c)) @ wr.T, c
    return _reference("lstm", x, ws, h0, c0, D == 2, cell=lstmp)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_projection_forward_and_gradient(bidirectional):
    rng = np.random.default_rng(5)
    T, N, C, H, P, L = 3, 2, 3, 3, 2, 2
    D = 2 if bidirectional else 1
    kw = dict(state_size=H, num_layers=L, bidirectional=bidirectional, mode="lstm",
              state_outputs=True, projection_size=P)
    n = rnn.param_size(C, H, L, bidirectional, "lstm", P)
    ins = [rng.standard_normal((T, N, C)), 0.5 * rng.standard_normal(n),
           rng.standard_normal((L * D, N, P)), rng.standard_normal((L * D, N, H))]
    outs = rnn._rnn(*ins, **kw)
    for got, want in zip(outs, _lstmp_reference(*ins, H, P, L, D)):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    assert outs[0].shape == (T, N, D * P)
    shapes, _ = mx.ops.registry.get("RNN").infer([(T, N, C), (n,), (L * D, N, P),
                                                  (L * D, N, H)], [np.float64] * 4, **kw)
    assert shapes == [(T, N, D * P), (L * D, N, P), (L * D, N, H)]
    _check_gradients(rng, ins, kw)
    with pytest.raises(ValueError, match="needs mode='lstm'"):
        rnn.param_size(C, H, L, bidirectional, "gru", P)


def test_lstm_layer_with_projection_equals_stacked_lstmp_cells():
    from xprof.runtime.gluon.contrib.rnn import LSTMPCell
    fused = mx.gluon.rnn.LSTM(4, projection_size=3, num_layers=2, prefix="p_")
    stack = mx.gluon.rnn.HybridSequentialRNNCell(prefix="p_")
    with stack.name_scope():
        for i in range(2):
            stack.add(LSTMPCell(4, projection_size=3, prefix=f"l{i}_"))
    x = mx.nd.random.uniform(shape=(5, 2, 6))
    fused.initialize()
    stack.initialize()
    states = fused.begin_state(2)
    assert [s.shape for s in states] == [(2, 2, 3), (2, 2, 4)]
    fused.infer_shape(x, states)
    for name, p in fused.collect_params().items():
        value = mx.nd.random.uniform(shape=p.shape)
        p.set_data(value)
        stack.collect_params()[name].set_data(value)
    out, st = fused(x, states)
    ref, ref_st = stack.unroll(5, x, begin_state=stack.begin_state(batch_size=2),
                               layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(st[0].asnumpy()[1], ref_st[2].asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(st[1].asnumpy()[1], ref_st[3].asnumpy(), rtol=1e-4, atol=1e-5)
