"""A Module's memory, as MXNet's engine keeps it: each pass's intermediates released after
their last reader, a bucket left behind holding nothing, gradient parts summed as they
come (``_grad_add``), with the same values as keeping everything."""
import json

import numpy as np
import pytest

import xprof.runtime as mx


def _lstm_sym(seq_len, vocab=30, hidden=8):
    cell = mx.rnn.LSTMCell(num_hidden=hidden, prefix="lstm_")
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("softmax_label")
    embed = mx.sym.Embedding(data=data, input_dim=vocab, output_dim=6, name="embed")
    out = cell.unroll(seq_len, inputs=embed, merge_outputs=True)[0]
    pred = mx.sym.FullyConnected(mx.sym.Reshape(out, shape=(-1, hidden)), num_hidden=vocab,
                                 name="pred")
    return mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name="softmax")


def _batch(n, seq_len, vocab=30, seed=0):
    rng = np.random.default_rng(seed)
    x = mx.nd.array(rng.integers(0, vocab, (n, seq_len)))
    return mx.io.DataBatch([x], [mx.nd.array(rng.integers(0, vocab, (n, seq_len)))])


def _trained_grads(monkeypatch, cap):
    monkeypatch.setenv("MXNET_EXEC_INPLACE_GRAD_SUM_CAP", str(cap))
    mod = mx.mod.Module(_lstm_sym(12), data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=[("data", (4, 12))], label_shapes=[("softmax_label", (4, 12))])
    mx.random.seed(3)
    mod.init_params(mx.init.Uniform(0.3))
    grads = []
    for seed in (0, 1, 0):          # the third pass repeats the first on released arrays
        mod.forward(_batch(4, 12, seed=seed), is_train=True)
        mod.backward()
        grads.append({n: g[0].asnumpy().copy() for n, g in
                      zip(mod._exec_group.param_names, mod._exec_group.grad_arrays)})
    return mod, grads


def test_released_passes_give_the_same_gradients(monkeypatch):
    mod, grads = _trained_grads(monkeypatch, 8)        # 12 steps: chained weight grads
    _, plain = _trained_grads(monkeypatch, 10_000)     # one add_n at the end
    for name in grads[0]:
        np.testing.assert_allclose(grads[0][name], plain[0][name], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(grads[2][name], grads[0][name], rtol=1e-6, atol=1e-8)
    mx.nd.waitall()
    ex = mod._exec_group.execs[0]
    fwd, bwd = ex._temporaries()
    assert fwd and bwd and all(a._data is None for a in fwd + bwd)   # released
    assert all(o._data is not None for o in ex.outputs)              # still read


def test_the_step_weights_sum_as_a_grad_add_chain(monkeypatch, tmp_path):
    monkeypatch.delenv("MXNET_EXEC_INPLACE_GRAD_SUM_CAP", raising=False)
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_TRAIN", "0")      # one event per op
    mod = mx.mod.Module(_lstm_sym(12), data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=[("data", (4, 12))], label_shapes=[("softmax_label", (4, 12))])
    mod.init_params()
    trace = tmp_path / "t.json"
    mx.profiler.set_config(profile_all=True, filename=str(trace))
    mx.profiler.set_state("run")
    mod.forward(_batch(4, 12), is_train=True)
    mod.backward()
    mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    names = [e["name"] for e in json.loads(trace.read_text())["traceEvents"]
             if e.get("ph") == "X" and e.get("cat") == "operator"]
    # 12 steps x (i2h, h2h) weight and bias: 11 additions each into the first part
    assert names.count("_grad_add") == 4 * 11
    assert "DeleteVariable" not in names           # engine bookkeeping, not an operator


def _peak(tmp_path, buckets):
    """The memory counter's peak over one training pass per bucket of a bucketing LSTM."""
    def sym_gen(key):
        return _lstm_sym(key), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=max(buckets))
    mod.bind(data_shapes=[("data", (16, max(buckets)))],
             label_shapes=[("softmax_label", (16, max(buckets)))])
    mod.init_params()
    trace = tmp_path / f"b{len(buckets)}.json"
    mx.profiler.set_config(profile_memory=True, profile_all=False, filename=str(trace))
    mx.profiler.set_state("run")
    for _ in range(2):
        for key in buckets:
            batch = _batch(16, key)
            batch.bucket_key = key
            batch.provide_data = [mx.io.DataDesc("data", (16, key))]
            batch.provide_label = [mx.io.DataDesc("softmax_label", (16, key))]
            mod.forward(batch, is_train=True)
            mod.backward()
            mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    events = json.loads(trace.read_text())["traceEvents"]
    values = [v for e in events if e.get("ph") == "C" for v in e["args"].values()]
    return max(values)


def test_buckets_do_not_add_up(tmp_path):
    """Several buckets' executors hold about one pass's memory at a time (MXNet shares
    one pool between them), not the sum of every bucket's."""
    one = _peak(tmp_path, [24])
    many = _peak(tmp_path, [24, 20, 16, 12, 8])
    assert many < 1.5 * one, (many, one)
