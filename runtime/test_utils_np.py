"""The helpers ``mx.test_utils`` has for MXNet's NumPy-interface tests (re-exported
there): ``retry``, ``verify_generator``/``gen_buckets_probs_with_ppf`` (a chi-square
check of a sampler), ``collapse_sum_like``, matrices with real eigenvalues,
``check_gluon_hybridize_consistency``, ``is_op_runnable``/``has_tvm_ops``."""
import functools

import numpy as np

__all__ = ["retry", "verify_generator", "gen_buckets_probs_with_ppf", "collapse_sum_like",
           "is_op_runnable", "has_tvm_ops", "new_matrix_with_real_eigvals_nd",
           "new_sym_matrix_with_real_eigvals_nd", "check_gluon_hybridize_consistency",
           "new_matrix_with_real_eigvals_2d", "new_orthonormal_matrix_2d"]


def retry(n):
    """Run a test up to ``n`` times until it passes (a random test's bad draw)."""
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


def is_op_runnable():
    """True: every operator runs on the CPU here."""
    return True


def has_tvm_ops():
    return False


def collapse_sum_like(a, shape):
    """``a`` summed over the axes along which an array of ``shape`` was broadcast."""
    shape = tuple(shape)
    extra = a.ndim - len(shape)
    out = a.sum(axis=tuple(range(extra))) if extra > 0 else a
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return out.sum(axis=axes, keepdims=True) if axes else out.reshape(shape)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` intervals of equal probability under the inverse CDF ``ppf``, and
    those probabilities."""
    probs = [1.0 / nbuckets] * nbuckets
    edges = [ppf(i / nbuckets) for i in range(nbuckets + 1)]
    return [(edges[i], edges[i + 1]) for i in range(nbuckets)], probs


def _counts(samples, buckets):
    samples = np.asarray(samples).reshape(-1)
    if isinstance(buckets[0], (tuple, list)):
        return np.array([np.count_nonzero((samples >= lo) & (samples < hi))
                         for lo, hi in buckets])
    return np.array([np.count_nonzero(samples == b) for b in buckets])


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5,
                     success_rate=0.2, alpha=0.05):
    """Draw ``nsamples`` from ``generator(n)`` ``nrepeat`` times; each draw passes when a
    chi-square test of its bucket counts against ``probs`` keeps the null hypothesis at
    ``alpha``; at least ``success_rate`` of them must pass. Returns the p-values."""
    from scipy import stats
    pvalues = []
    for _ in range(nrepeat):
        samples = generator(nsamples)
        samples = samples.asnumpy() if hasattr(samples, "asnumpy") else samples
        counts = _counts(samples, buckets)
        expected = np.asarray(probs, dtype=np.float64) * nsamples
        expected *= counts.sum() / expected.sum()
        pvalues.append(float(stats.chisquare(counts, expected).pvalue))
    passed = sum(p > alpha for p in pvalues)
    assert passed >= success_rate * nrepeat, (
        f"sampler failed its chi-square test: p-values {pvalues}, {passed} of {nrepeat} "
        f"above {alpha}")
    return pvalues


def new_orthonormal_matrix_2d(n):
    q, _ = np.linalg.qr(np.random.uniform(-1.0, 1.0, (n, n)))
    return q


def new_matrix_with_real_eigvals_2d(n):
    """A random n x n matrix P D P^-1 (real eigenvalues D, well conditioned)."""
    shape = (n, n)
    q = new_orthonormal_matrix_2d(n)
    d = np.diag(np.random.uniform(-1.0, 1.0, n) + np.sign(np.random.uniform(-1, 1, n)))
    p = q + np.eye(n) * 2
    return (p @ d @ np.linalg.inv(p)).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    n = shape[-1]
    flat = [new_matrix_with_real_eigvals_2d(n) for _ in range(int(np.prod(shape[:-2])))]
    return np.array(flat).reshape(shape)


def new_sym_matrix_with_real_eigvals_nd(shape):
    n = shape[-1]
    out = []
    for _ in range(int(np.prod(shape[:-2]))):
        q = new_orthonormal_matrix_2d(n)
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        out.append(q @ d @ q.T)
    return np.array(out).reshape(shape)


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1e-4, atol=1e-4):
    """The block ``net_builder()`` gives the same outputs (and input gradients) imperative
    and hybridized, with the same parameter values; and ``numpy_func``'s when given."""
    from . import autograd

    def assert_almost_equal(a, b, rtol, atol):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)
    saved_out, saved_grads, params = None, None, None
    for hybridize in (False, True):
        net = net_builder()
        net.initialize()
        if hybridize:
            net.hybridize()
        data = [d.copy() for d in data_l]
        for d in data:
            d.attach_grad()
        with autograd.record():
            out = net(*data)
        if params is None:
            params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
        else:
            for (k, v), value in zip(net.collect_params().items(), params.values()):
                v.set_data(value)
            with autograd.record():
                out = net(*data)
        outs = out if isinstance(out, (list, tuple)) else [out]
        if test_grad:
            autograd.backward(outs)     # (head gradients: ones, whatever the shapes)
        got = [o.asnumpy() for o in outs]
        grads = [d.grad.asnumpy() for d in data] if test_grad else None
        if saved_out is None:
            saved_out, saved_grads = got, grads
            if numpy_func is not None:
                want = numpy_func(*[d.asnumpy() for d in data_l])
                want = want if isinstance(want, (list, tuple)) else [want]
                for g, w in zip(got, want):
                    assert_almost_equal(g, w, rtol=rtol, atol=atol)
        else:
            for g, w in zip(got, saved_out):
                assert_almost_equal(g, w, rtol=rtol, atol=atol)
            if test_grad:
                for g, w in zip(grads, saved_grads):
                    assert_almost_equal(g, w, rtol=rtol, atol=atol)
