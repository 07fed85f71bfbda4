"""Tests of the losses in runtime/gluon/loss.py added for MXNet 1.x parity (KLDiv,
Huber, Hinge, SquaredHinge, Logistic, Triplet, PoissonNLL, CosineEmbedding, SDML, BCE
with pos_weight): values against numpy formulas written out here, the same values from
a hybridized (symbolic) block, and gradients against central differences."""
import math

import numpy as np
import pytest
from gradcheck import numeric_grad

import xprof.runtime as mx
from xprof.runtime import autograd, gluon

RNG = np.random.default_rng(0)
PRED = RNG.uniform(-2, 2, (4, 3))
SIGNED = np.sign(RNG.uniform(-1, 1, (4, 3)))


def nd(x):
    return mx.nd.array(np.asarray(x, dtype=np.float64), dtype="float64")


def value(loss, *args):
    return loss(*[nd(a) if a is not None else None for a in args]).asnumpy()


def hybrid_value(loss_cls, kwargs, *args):
    """The loss hybridized inside a block, so it runs as a symbolic graph."""
    class Wrap(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.loss = loss_cls(**kwargs)

        def hybrid_forward(self, F, *xs):
            return self.loss(*xs)

    net = Wrap()
    net.hybridize()
    return net(*[nd(a) for a in args]).asnumpy()


def check_grad(loss, x, *rest):
    xa = nd(x)
    xa.attach_grad()
    with autograd.record():
        out = loss(xa, *[nd(r) for r in rest]).sum()
    out.backward()
    # numeric_grad perturbs x in place; the closure reads it each time
    num = numeric_grad(lambda: float(loss(nd(x), *[nd(r) for r in rest]).sum()
                                     .asscalar()), x)
    np.testing.assert_allclose(xa.grad.asnumpy(), num, rtol=1e-4, atol=1e-6)


def huber_ref(pred, label, rho):
    err = np.abs(label - pred)
    return np.where(err > rho, err - rho / 2, 0.5 / rho * err ** 2).mean(axis=1)


CASES = [
    (gluon.loss.HuberLoss, {"rho": 0.7}, lambda p, l: huber_ref(p, l, 0.7), "real"),
    (gluon.loss.HingeLoss, {"margin": 1.5},
     lambda p, l: np.maximum(0, 1.5 - p * l).mean(axis=1), "signed"),
    (gluon.loss.SquaredHingeLoss, {},
     lambda p, l: (np.maximum(0, 1 - p * l) ** 2).mean(axis=1), "signed"),
    (gluon.loss.LogisticLoss, {}, lambda p, l: np.log1p(np.exp(-p * l)).mean(axis=1),
     "signed"),
    (gluon.loss.LogisticLoss, {"label_format": "binary"},
     lambda p, l: np.log1p(np.exp(-p * (2 * l - 1))).mean(axis=1), "binary"),
]


def labels(kind):
    if kind == "signed":
        return SIGNED
    if kind == "binary":
        return (SIGNED + 1) / 2
    return RNG.uniform(-2, 2, PRED.shape)


@pytest.mark.parametrize("cls,kwargs,ref,kind", CASES)
def test_elementwise_losses(cls, kwargs, ref, kind):
    lab = labels(kind)
    np.testing.assert_allclose(value(cls(**kwargs), PRED, lab), ref(PRED, lab), rtol=1e-10)
    np.testing.assert_allclose(hybrid_value(cls, kwargs, PRED, lab), ref(PRED, lab),
                               rtol=1e-10)
    check_grad(cls(**kwargs), PRED.copy(), lab)


def test_kl_div_loss():
    label = np.exp(RNG.uniform(-1, 1, (4, 3)))
    label /= label.sum(axis=1, keepdims=True)
    logp = np.log(np.exp(PRED) / np.exp(PRED).sum(axis=1, keepdims=True))
    expect = (label * (np.log(label + 1e-12) - logp)).sum(axis=1)
    np.testing.assert_allclose(value(gluon.loss.KLDivLoss(), logp, label), expect,
                               rtol=1e-10)
    np.testing.assert_allclose(value(gluon.loss.KLDivLoss(from_logits=False), PRED, label),
                               expect, rtol=1e-10)
    np.testing.assert_allclose(hybrid_value(gluon.loss.KLDivLoss, {}, logp, label), expect,
                               rtol=1e-10)


def test_triplet_loss():
    pos, neg = RNG.uniform(-1, 1, (2, 4, 3))
    expect = np.maximum(0, ((pos - PRED) ** 2).sum(1) - ((neg - PRED) ** 2).sum(1) + 1)
    np.testing.assert_allclose(value(gluon.loss.TripletLoss(), PRED, pos, neg), expect)
    np.testing.assert_allclose(hybrid_value(gluon.loss.TripletLoss, {}, PRED, pos, neg),
                               expect)


def test_poisson_nll_loss():
    target = RNG.uniform(0.5, 4, (4, 3))
    pred = RNG.uniform(0.5, 4, (4, 3))
    np.testing.assert_allclose(value(gluon.loss.PoissonNLLLoss(), pred, target),
                               np.mean(np.exp(pred) - target * pred))
    stirling = (target * np.log(target) - target + 0.5 * np.log(2 * math.pi * target)) \
        * (target > 1)
    full = np.mean(pred - target * np.log(pred + 1e-8) + stirling)
    got = value(gluon.loss.PoissonNLLLoss(from_logits=False, compute_full=True), pred,
                target)
    np.testing.assert_allclose(got, full)


def test_cosine_embedding_loss():
    a, b = RNG.uniform(-1, 1, (2, 5, 3))
    label = np.array([1, -1, 1, -1, -1])
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    expect = np.where(label == 1, 1 - cos, np.maximum(0, cos - 0.1))[:, None]
    np.testing.assert_allclose(value(gluon.loss.CosineEmbeddingLoss(margin=0.1), a, b,
                                     label), expect, rtol=1e-10)
    np.testing.assert_allclose(hybrid_value(gluon.loss.CosineEmbeddingLoss, {"margin": 0.1},
                                            a, b, label), expect, rtol=1e-10)


def test_sdml_loss():
    x1, x2 = RNG.uniform(-1, 1, (2, 4, 3))
    d = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    logp = -d - np.log(np.exp(-d).sum(axis=1, keepdims=True))
    s = 0.3
    lab = np.eye(4) * (1 - s) + (1 - np.eye(4)) * s / 3
    expect = (lab * (np.log(lab + 1e-12) - logp)).sum(axis=1)
    np.testing.assert_allclose(value(gluon.loss.SDMLLoss(), x1, x2), expect, rtol=1e-10)


@pytest.mark.parametrize("from_sigmoid", [False, True])
def test_bce_with_pos_weight(from_sigmoid):
    label = (SIGNED + 1) / 2
    pos_weight = RNG.uniform(0, 5, (1, 3))
    prob = 1 / (1 + np.exp(-PRED))
    expect = (-label * np.log(prob) * pos_weight - (1 - label) * np.log(1 - prob)).mean(1)
    pred = prob if from_sigmoid else PRED
    loss = gluon.loss.SigmoidBCELoss(from_sigmoid=from_sigmoid)
    np.testing.assert_allclose(value(loss, pred, label, None, pos_weight), expect,
                               rtol=1e-6)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="label_format"):
        gluon.loss.LogisticLoss(label_format="zero-one")
    with pytest.raises(ValueError, match="layout"):
        gluon.loss.CTCLoss(layout="NCT")
