"""``gluon.probability``: Normal and Bernoulli against numpy's closed forms, sampling
against the moments, KL divergences against their definitions, and the VAE's use
(a reparameterized sample inside a hybridized block gets gradients)."""
import math

import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, np, npx
from xprof.runtime.gluon import nn
import xprof.runtime.gluon.probability as mgp


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    npx.random.seed(0)
    yield
    npx.reset_np()


LOC, SCALE = onp.array([0.5, -1.0, 2.0]), onp.array([2.0, 0.5, 1.0])


def test_normal_log_prob_moments_entropy():
    p = mgp.Normal(np.array(LOC), np.array(SCALE))
    v = onp.array([0.1, 0.2, 3.0])
    want = -((v - LOC) ** 2) / (2 * SCALE ** 2) - onp.log(SCALE) - 0.5 * math.log(2 * math.pi)
    onp.testing.assert_allclose(p.log_prob(np.array(v)).asnumpy(), want, rtol=1e-5)
    onp.testing.assert_allclose(p.prob(np.array(v)).asnumpy(), onp.exp(want), rtol=1e-5)
    onp.testing.assert_allclose(p.entropy().asnumpy(),
                                0.5 + 0.5 * math.log(2 * math.pi) + onp.log(SCALE), rtol=1e-6)
    onp.testing.assert_allclose(p.variance.asnumpy(), SCALE ** 2)
    s = p.sample_n(40000).asnumpy()
    assert s.shape == (40000, 3)
    # 40000 draws: the mean within 5 standard errors
    assert (abs(s.mean(0) - LOC) < 5 * SCALE / 200).all(), s.mean(0)
    assert (abs(s.std(0) - SCALE) < 0.05 * SCALE).all(), s.std(0)
    assert mgp.Normal(0, 1).sample((2, 3)).shape == (2, 3)


def test_normal_kl_closed_form_and_empirical():
    p, q = mgp.Normal(np.array(LOC), np.array(SCALE)), mgp.Normal(0, 1)
    want = 0.5 * (SCALE ** 2 + LOC ** 2 - 1 - 2 * onp.log(SCALE))
    onp.testing.assert_allclose(mgp.kl_divergence(p, q).asnumpy(), want, rtol=1e-5)
    est = mgp.empirical_kl(p, q, 40000).asnumpy()
    assert (abs(est - want) < 0.1).all(), (est, want)


def test_bernoulli():
    prob = onp.array([0.2, 0.7])
    b = mgp.Bernoulli(prob=np.array(prob))
    onp.testing.assert_allclose(b.log_prob(np.array([1.0, 0.0])).asnumpy(),
                                onp.log([0.2, 0.3]), rtol=1e-5)
    c = mgp.Bernoulli(logit=np.array([0.0, 1.0]))
    pc = 1 / (1 + onp.exp(-onp.array([0.0, 1.0])))
    want = prob * onp.log(prob / pc) + (1 - prob) * onp.log((1 - prob) / (1 - pc))
    onp.testing.assert_allclose(mgp.kl_divergence(b, c).asnumpy(), want, rtol=1e-4)
    onp.testing.assert_allclose(b.entropy().asnumpy(),
                                -(prob * onp.log(prob) + (1 - prob) * onp.log(1 - prob)),
                                rtol=1e-5)
    s = b.sample_n(20000).asnumpy()
    assert set(onp.unique(s)) <= {0.0, 1.0} and (abs(s.mean(0) - prob) < 0.02).all()
    with pytest.raises(ValueError, match="exactly one"):
        mgp.Bernoulli()


def test_kl_without_a_closed_form_says_so():
    with pytest.raises(NotImplementedError, match="Normal.*Bernoulli.*empirical_kl"):
        mgp.kl_divergence(mgp.Normal(0, 1), mgp.Bernoulli(prob=0.5))


def test_validate_args():
    with pytest.raises(ValueError, match="scale must be positive"):
        mgp.Normal(0.0, np.array([1.0, -1.0]), validate_args=True)


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_reparameterized_sample_in_a_block_gets_gradients(hybridize):
    """The VAE's pattern: the gradient of E[z^2], z = loc + scale * eps, reaches loc
    (2 loc) and scale (2 scale): checked on the mean over many draws."""
    class Block(nn.HybridBlock):
        def forward(self, loc, scale):
            z = mgp.Normal(loc, scale).sample((20000, 2))
            return (z * z).mean(0).sum() + mgp.kl_divergence(mgp.Normal(loc, scale),
                                                            mgp.Normal(0, 1)).sum() * 0

    block = Block()
    block.hybridize(hybridize)
    loc, scale = np.array([0.5, -1.0]), np.array([1.5, 0.5])
    loc.attach_grad()
    scale.attach_grad()
    for _ in range(2):            # hybridized: the recorded call, then the graph
        with autograd.record():
            y = block(loc, scale)
        y.backward()
        onp.testing.assert_allclose(loc.grad.asnumpy(), [1.0, -2.0], atol=0.1)
        onp.testing.assert_allclose(scale.grad.asnumpy(), [3.0, 1.0], atol=0.15)
