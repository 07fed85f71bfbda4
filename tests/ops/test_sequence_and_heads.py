"""ops/sequence.py (SequenceMask/Last/Reverse), ops/output_heads.py (regression and
SVM heads), ops/ctc.py (CTCLoss), softmax with length and softmin: numpy references,
known values, central-difference gradients."""
import numpy as np
import pytest

import xprof.runtime as mx
from test_matrix_ops import check_grad, check_infer, run

RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 3, 2))          # (T, B, feature)
LENS = np.array([1.0, 4.0, 2.0])


def _ref_mask(x, lens, value, axis):
    out = x.copy()
    for b, n in enumerate(lens.astype(int)):
        if axis == 0:
            out[n:, b] = value
        else:
            out[b, n:] = value
    return out


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask_and_last(axis):
    x = X if axis == 0 else np.swapaxes(X, 0, 1).copy()
    p = dict(use_sequence_length=True, value=-2.5, axis=axis)
    np.testing.assert_array_equal(run("SequenceMask", x, LENS, **p)[0],
                                  _ref_mask(x, LENS, -2.5, axis))
    check_grad("SequenceMask", [x, LENS], p, wrt=[0])
    check_infer("SequenceMask", [x, LENS], p)
    last = run("SequenceLast", x, LENS, use_sequence_length=True, axis=axis)[0]
    want = np.stack([(x[n - 1, b] if axis == 0 else x[b, n - 1])
                     for b, n in enumerate(LENS.astype(int))])
    np.testing.assert_array_equal(last, want)
    check_grad("SequenceLast", [x, LENS], dict(use_sequence_length=True, axis=axis), wrt=[0])
    # without lengths: every sequence is whole
    np.testing.assert_array_equal(run("SequenceLast", x, axis=axis)[0],
                                  x[-1] if axis == 0 else x[:, -1])


def test_sequence_reverse_reverses_each_prefix():
    out = run("SequenceReverse", X, LENS, use_sequence_length=True)[0]
    for b, n in enumerate(LENS.astype(int)):
        np.testing.assert_array_equal(out[:n, b], X[:n, b][::-1])
        np.testing.assert_array_equal(out[n:, b], X[n:, b])
    check_grad("SequenceReverse", [X, LENS], dict(use_sequence_length=True), wrt=[0])
    with pytest.raises(ValueError, match="axis=1"):
        run("SequenceReverse", X, axis=1)


def test_sequence_ops_take_lengths_only_when_asked():
    d = mx.sym.var("data")
    assert mx.sym.SequenceMask(d).list_arguments() == ["data"]
    assert mx.sym.SequenceMask(d, use_sequence_length=True, name="sm").list_arguments() == \
        ["data", "sm_sequence_length"]


@pytest.mark.parametrize("name, fwd, diff", [
    ("LinearRegressionOutput", lambda x: x, lambda d: d),
    ("LogisticRegressionOutput", lambda x: 1 / (1 + np.exp(-x)), lambda d: d),
    ("MAERegressionOutput", lambda x: x, np.sign)])
def test_regression_heads(name, fwd, diff):
    x, y = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    out = run(name, x, y, grad_scale=2.0)[0]
    np.testing.assert_allclose(out, fwd(x), rtol=1e-12)
    from xprof.runtime.ops import registry
    g = registry.get(name).grad([None], [x, y], [out], grad_scale=2.0)
    np.testing.assert_allclose(g[0], 2.0 / 3 * diff(out - y), rtol=1e-12)
    assert not g[1].any()
    check_infer(name, [x, y], {})


@pytest.mark.parametrize("use_linear", [True, False])
def test_svm_output_gradient(use_linear):
    from xprof.runtime.ops import registry
    x = RNG.uniform(-1, 2, (6, 4))
    label = np.array([0, 3, 1, 1, 2, 0], dtype=np.float64)
    np.testing.assert_array_equal(run("SVMOutput", x, label)[0], x)
    t = np.where(np.arange(4)[None] == label[:, None], 1.0, -1.0)
    want = (-t * (1 - t * x > 0)) if use_linear else (-2 * t * np.maximum(1 - t * x, 0))
    g = registry.get("SVMOutput").grad([None], [x, label], [x], use_linear=use_linear)
    np.testing.assert_allclose(g[0], want, rtol=1e-12)


ACTS = np.array([
    [[-5, -4, -3, -2, -1], [1.2, 3.4, 1.2, -0.1, -2.34]],
    [[-10, -9, -8, -7, -6], [0.1, 0.2, 0.3, 0.22, 0.123]],
    [[-15, -14, -13, -12, -11], [-15, -14.2, -13.5, -12.2, -11.22]]])


def test_ctc_loss_matches_warp_ctc_values_and_gradient():
    labels = np.array([[2, 3, 1], [2, 0, 0]], dtype=np.float64)
    (loss,) = run("CTCLoss", ACTS, labels)
    # the values Torch's warp-ctc gives for these inputs (MXNet's test_ctc_loss)
    np.testing.assert_allclose(loss, [7.3557, 5.4091], atol=1e-4)
    check_grad("CTCLoss", [ACTS, labels], wrt=[0], rtol=1e-4, atol=1e-6)
    # blank 'last' with -1 padding is the same problem with the classes rotated
    acts_last = np.roll(ACTS, -1, axis=2)
    loss_last = run("CTCLoss", acts_last, np.where(labels == 0, -1, labels - 1),
                    blank_label="last")[0]
    np.testing.assert_allclose(loss_last, loss, rtol=1e-10)
    assert mx.nd.contrib.ctc_loss is not None and mx.nd.ctc_loss is not None


def test_ctc_loss_lengths_ignore_steps_past_the_end():
    labels = np.array([[2, 3, 1], [2, 0, 0]], dtype=np.float64)
    padded = np.concatenate([ACTS, np.full((2, 2, 5), np.nan)])
    p = dict(use_data_lengths=True, use_label_lengths=True)
    loss = run("CTCLoss", padded, labels, np.array([3.0, 3.0]), np.array([3.0, 1.0]), **p)[0]
    np.testing.assert_allclose(loss, run("CTCLoss", ACTS, labels)[0], rtol=1e-12)
    from xprof.runtime.ops import registry
    g = registry.get("CTCLoss").grad([np.ones(2)], [padded, labels, np.array([3.0, 3.0]),
                                                    np.array([3.0, 1.0])], [loss], **p)
    assert np.isfinite(g[0]).all() and not g[0][3:].any()


def test_softmax_with_length_and_softmin():
    x = RNG.standard_normal((2, 4, 3))
    length = np.array([[1, 4, 2], [3, 2, 4]])
    out = run("softmax", x, length, axis=1, use_length=True)[0]
    for i in range(2):
        for j in range(3):
            n = length[i, j]
            e = np.exp(x[i, :n, j] - x[i, :n, j].max())
            np.testing.assert_allclose(out[i, :n, j], e / e.sum(), rtol=1e-12)
            assert not out[i, n:, j].any()
    check_grad("softmax", [x, length], dict(axis=1, use_length=True), wrt=[0])
    sm = run("softmin", x, axis=1)[0]
    e = np.exp(-x - (-x).max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    check_grad("softmin", [x], dict(axis=1, temperature=2.0))
