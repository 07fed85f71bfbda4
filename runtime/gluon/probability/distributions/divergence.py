"""``kl_divergence(p, q)``: KL(p || q) in closed form for the pairs registered with
``@register_kl(P, Q)`` (the most derived registered pair of the two classes' ancestors);
``empirical_kl`` estimates it by sampling."""
from .... import numpy as np
from .bernoulli import Bernoulli
from .normal import Normal

__all__ = ["register_kl", "kl_divergence", "empirical_kl"]

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes KL(p || q) for a ``type_p`` and a ``type_q``."""
    def decorate(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return decorate


def _lookup(tp, tq):
    for i, a in enumerate(tp.__mro__):
        for j, b in enumerate(tq.__mro__):
            fn = _KL.get((a, b))
            if fn is not None:
                return fn
    return None


def kl_divergence(p, q):
    """KL(p || q), elementwise over the batch."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"kl_divergence: no closed form registered for "
                                  f"{type(p).__name__} || {type(q).__name__}; use "
                                  "empirical_kl, or register one with register_kl")
    return fn(p, q)


def empirical_kl(p, q, n_samples=1):
    """KL(p || q) estimated as the mean of ``log p(x) - log q(x)`` over ``n_samples``
    draws of ``p``."""
    x = p.sample_n(n_samples)
    return np.mean(p.log_prob(x) - q.log_prob(x), axis=0)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - np.log(var_ratio))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p/q) + (1-p) log((1-p)/(1-q)) with log p = -softplus(-logit), which is
    # p (logit_p - logit_q) - softplus(logit_p) + softplus(logit_q)
    return p.prob * (p.logit - q.logit) - np.logaddexp(0, p.logit) + \
        np.logaddexp(0, q.logit)
