"""Tests of runtime/ops/ctc.py (the CTCLoss operator) and gluon.loss.CTCLoss over it:
against a brute-force sum over every alignment path (collapse repeats, drop blanks),
for both layouts, label layouts, blank first/last, lengths, and a numeric gradient."""
import itertools

import numpy as np
import pytest
from gradcheck import numeric_grad

import xprof.runtime as mx
from xprof.runtime import autograd, gluon


def brute_force_nll(scores, label, blank):
    """-log p(label | scores) by enumerating every path; scores (T, C)."""
    t_len, c = scores.shape
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(c), repeat=t_len):
        collapsed = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in collapsed if k != blank] == list(label):
            total += np.prod([p[t, k] for t, k in enumerate(path)])
    return -np.log(total)


RNG = np.random.default_rng(2)
SCORES = RNG.standard_normal((2, 5, 3))          # N, T, C


@pytest.mark.parametrize("layout,label_layout", [("NTC", "NT"), ("TNC", "NT"),
                                                 ("TNC", "TN"), ("NTC", "TN")])
def test_matches_brute_force_with_blank_last(layout, label_layout):
    labels = [[0, 1], [1, 1]]                    # blank = 2; padding -1
    padded = np.array([[0, 1, -1], [1, 1, -1]], dtype=np.float64)
    data = SCORES if layout == "NTC" else SCORES.transpose(1, 0, 2)
    lab = padded if label_layout == "NT" else padded.T
    loss = gluon.loss.CTCLoss(layout=layout, label_layout=label_layout)
    got = loss(mx.nd.array(data, dtype="float64"), mx.nd.array(lab, dtype="float64"))
    expect = [brute_force_nll(SCORES[i], labels[i], blank=2) for i in range(2)]
    np.testing.assert_allclose(got.asnumpy(), expect, rtol=1e-10)


def test_lengths():
    loss = gluon.loss.CTCLoss()
    data = mx.nd.array(SCORES, dtype="float64")
    label = mx.nd.array([[1, 0, 0], [0, 1, 1]], dtype="float64")
    got = loss(data, label, mx.nd.array([4, 5]), mx.nd.array([1, 3]))
    expect = [brute_force_nll(SCORES[0, :4], [1], blank=2),
              brute_force_nll(SCORES[1], [0, 1, 1], blank=2)]
    np.testing.assert_allclose(got.asnumpy(), expect, rtol=1e-10)


def test_mxnet_reference_values():
    """The values MXNet's own test_ctc_loss checks (uniform scores, T=20, C=4)."""
    loss = gluon.loss.CTCLoss()
    got = loss(mx.nd.ones((2, 20, 4)), mx.nd.array([[1, 0, -1, -1], [2, 1, 1, -1]]))
    np.testing.assert_allclose(got.asnumpy(), [18.82820702, 16.50581741], rtol=1e-6)


def test_gradient_matches_central_differences():
    loss = gluon.loss.CTCLoss()
    x = SCORES.copy()
    label = mx.nd.array([[0, 1, -1], [1, 1, -1]], dtype="float64")
    xa = mx.nd.array(x, dtype="float64")
    xa.attach_grad()
    with autograd.record():
        out = loss(xa, label).sum()
    out.backward()
    num = numeric_grad(lambda: float(loss(mx.nd.array(x, dtype="float64"), label)
                                     .sum().asscalar()), x)
    np.testing.assert_allclose(xa.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_hybridized_equals_imperative():
    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.loss = gluon.loss.CTCLoss()

        def hybrid_forward(self, F, x, y):
            return self.loss(x, y)

    net = Net()
    x = mx.nd.array(SCORES, dtype="float64")
    y = mx.nd.array([[0, 1, -1], [1, 1, -1]], dtype="float64")
    imperative = net(x, y).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x, y).asnumpy(), imperative, rtol=1e-12)


def test_operator_refuses_bad_shapes_and_blank():
    with pytest.raises(ValueError, match="sequence length, batch, classes"):
        mx.nd.CTCLoss(mx.nd.ones((2, 3)), mx.nd.ones((2, 1)))
    with pytest.raises(ValueError, match="batch=2"):
        mx.nd.CTCLoss(mx.nd.ones((4, 2, 3)), mx.nd.ones((3, 1)))
    with pytest.raises(ValueError, match="blank_label"):
        mx.nd.CTCLoss(mx.nd.ones((4, 2, 3)), mx.nd.ones((2, 1)), blank_label="middle")


def test_blank_first_pads_with_zero():
    data = mx.nd.array(SCORES.transpose(1, 0, 2), dtype="float64")    # T, N, C
    got = mx.nd.CTCLoss(data, mx.nd.array([[1, 2, 0], [2, 0, 0]]), blank_label="first")
    expect = [brute_force_nll(SCORES[0], [1, 2], blank=0),
              brute_force_nll(SCORES[1], [2], blank=0)]
    np.testing.assert_allclose(got.asnumpy(), expect, rtol=1e-10)
