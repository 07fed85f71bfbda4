"""Tests of runtime/optimizer/adaptive.py, lamb.py and sgd.py's SGLD/DCASGD and
multi-precision paths, and the base class's MXNet semantics (optimizer.py): each
optimizer's weights after three updates against the update rule written out here in
numpy (float64), from the papers / MXNet's documented formulas."""
import warnings

import numpy as np
import pytest

import xprof.runtime as mx

RESCALE = 0.5


def run(opt, n=3, seed=0, dtype=np.float32, shape=(3, 4)):
    """Weights after ``n`` updates of ``opt`` (through an Updater), with the numpy start
    and gradients used."""
    rng = np.random.default_rng(seed)
    w0 = rng.uniform(0.1, 1.0, shape).astype(dtype)
    grads = [rng.uniform(-1, 1, shape).astype(dtype) for _ in range(n)]
    w = mx.nd.array(w0, dtype=dtype)
    updater = mx.optimizer.get_updater(opt)
    for g in grads:
        updater(0, mx.nd.array(g, dtype=dtype), w)
    return w0.astype(np.float64), [g.astype(np.float64) for g in grads], w.asnumpy()


def prep(g, clip, wd=0.0, w=None):
    g = g * RESCALE + (wd * w if wd else 0.0)
    return np.clip(g, -clip, clip) if clip is not None else g


CASES = [(0.0, None), (0.1, 0.3)]


@pytest.mark.parametrize("wd,clip", CASES)
def test_adagrad(wd, clip):
    opt = mx.optimizer.create("adagrad", learning_rate=0.1, wd=wd, clip_gradient=clip,
                              rescale_grad=RESCALE, eps=1e-7)
    w, grads, got = run(opt)
    hist = np.zeros_like(w)
    for g in grads:
        g = prep(g, clip)
        hist += g * g
        w = w - 0.1 * (g / np.sqrt(hist + 1e-7) + wd * w)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("wd,clip", CASES)
def test_adadelta(wd, clip):
    opt = mx.optimizer.AdaDelta(rho=0.8, epsilon=1e-4, wd=wd, clip_gradient=clip,
                                rescale_grad=RESCALE)
    w, grads, got = run(opt)
    acc_g, acc_d = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        g = prep(g, clip)
        acc_g = 0.8 * acc_g + 0.2 * g * g
        delta = np.sqrt(acc_d + 1e-4) / np.sqrt(acc_g + 1e-4) * g
        acc_d = 0.8 * acc_d + 0.2 * delta * delta
        w = w - (delta + wd * w)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("wd,clip", CASES)
def test_adamax(wd, clip):
    opt = mx.optimizer.Adamax(learning_rate=0.01, beta1=0.8, beta2=0.9, wd=wd,
                              clip_gradient=clip, rescale_grad=RESCALE)
    w, grads, got = run(opt)
    m, u = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = prep(g, clip, wd, w)
        m = 0.8 * m + 0.2 * g
        u = np.maximum(0.9 * u, np.abs(g))
        w = w - 0.01 / (1 - 0.8 ** t) * m / u
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("wd,clip", CASES)
def test_nadam(wd, clip):
    opt = mx.optimizer.Nadam(learning_rate=0.01, wd=wd, clip_gradient=clip,
                             rescale_grad=RESCALE)
    w, grads, got = run(opt)
    m, v, sched = np.zeros_like(w), np.zeros_like(w), 1.0
    b1, b2, decay = 0.9, 0.999, 0.004
    for t, g in enumerate(grads, 1):
        g = prep(g, clip, wd, w)
        mu_t = b1 * (1 - 0.5 * 0.96 ** (t * decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * decay))
        sched *= mu_t
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_bar = (1 - mu_t) * g / (1 - sched) + mu_next * m / (1 - sched * mu_next)
        w = w - 0.01 * m_bar / (np.sqrt(v / (1 - b2 ** t)) + 1e-8)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("wd,clip", CASES)
def test_ftml(wd, clip):
    opt = mx.optimizer.FTML(learning_rate=0.05, beta1=0.6, beta2=0.9, wd=wd,
                            clip_gradient=clip, rescale_grad=RESCALE)
    w, grads, got = run(opt)
    d, v, z = (np.zeros_like(w) for _ in range(3))
    for t, g in enumerate(grads, 1):
        g = prep(g, clip, wd, w)
        v = 0.9 * v + 0.1 * g * g
        d_t = (1 - 0.6 ** t) / 0.05 * (np.sqrt(v / (1 - 0.9 ** t)) + 1e-8)
        z = 0.6 * z + 0.4 * g - (d_t - 0.6 * d) * w
        d = d_t
        w = -z / d_t
    np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("wd,clip,lamda1", [(0.0, None, 0.01), (0.1, 0.3, 0.2)])
def test_ftrl(wd, clip, lamda1):
    opt = mx.optimizer.Ftrl(lamda1=lamda1, learning_rate=0.1, beta=1.0, wd=wd,
                            clip_gradient=clip, rescale_grad=RESCALE)
    w, grads, got = run(opt)
    z, n = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        g = prep(g, clip)
        z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / 0.1
        n = n + g * g
        w = np.where(np.abs(z) > lamda1,
                     (np.sign(z) * lamda1 - z) / ((1.0 + np.sqrt(n)) / 0.1 + wd), 0.0)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def lamb_reference(w, grads, wd, clip, bias_correction, lower, upper, lr=0.01):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = prep(g, clip)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        m_hat, v_hat = (m / (1 - 0.9 ** t), v / (1 - 0.999 ** t)) if bias_correction \
            else (m, v)
        step = m_hat / (np.sqrt(v_hat) + 1e-6) + wd * w
        r1 = np.linalg.norm(w)
        if lower:
            r1 = max(r1, lower)
        if upper:
            r1 = min(r1, upper)
        r2 = np.linalg.norm(step)
        ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
        w = w - lr * ratio * step
    return w


@pytest.mark.parametrize("wd,clip,bc,lower,upper", [(0.0, None, True, None, None),
                                                     (0.05, 0.3, False, 1e-3, 10.0),
                                                     (0.05, None, True, 5.0, None),
                                                     (0.0, None, True, None, 0.5)])
def test_lamb(wd, clip, bc, lower, upper):
    opt = mx.optimizer.LAMB(learning_rate=0.01, wd=wd, clip_gradient=clip,
                            rescale_grad=RESCALE, bias_correction=bc, lower_bound=lower,
                            upper_bound=upper)
    w, grads, got = run(opt)
    np.testing.assert_allclose(got, lamb_reference(w, grads, wd, clip, bc, lower, upper),
                               rtol=1e-5, atol=1e-6)


def test_lamb_zero_weight_uses_ratio_one():
    opt = mx.optimizer.LAMB(learning_rate=0.01, rescale_grad=RESCALE)
    w = mx.nd.zeros((2, 3))
    g = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    mx.optimizer.get_updater(opt)(0, mx.nd.array(g), w)
    expect = lamb_reference(np.zeros((2, 3)), [g.astype(np.float64)], 0.0, None, True,
                            None, None)
    np.testing.assert_allclose(w.asnumpy(), expect, rtol=1e-5, atol=1e-7)
    assert np.all(np.isfinite(w.asnumpy()))


def test_lamb_takes_lists_of_tensors():
    """MXNet's multi-tensor call: one update of several weights, each with its own
    norms."""
    rng = np.random.default_rng(1)
    ws = [rng.uniform(0.1, 1, s).astype(np.float32) for s in [(4, 1), (2, 3)]]
    gs = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(4, 1), (2, 3)]]
    opt = mx.optimizer.LAMB(learning_rate=0.01, rescale_grad=RESCALE, wd=0.01)
    nd_w = [mx.nd.array(w) for w in ws]
    states = [opt.create_state_multi_precision(i, w) for i, w in enumerate(nd_w)]
    opt.update_multi_precision([0, 1], nd_w, [mx.nd.array(g) for g in gs], states)
    for w, g, got in zip(ws, gs, nd_w):
        expect = lamb_reference(w.astype(np.float64), [g.astype(np.float64)], 0.01, None,
                                True, None, None)
        np.testing.assert_allclose(got.asnumpy(), expect, rtol=1e-5, atol=1e-6)
    assert opt._index_update_count == {0: 1, 1: 1}


def test_sgld_step_is_half_sgd_plus_noise_of_variance_lr():
    lr = 0.04
    shape = (200, 200)
    opt = mx.optimizer.SGLD(learning_rate=lr, rescale_grad=RESCALE, wd=0.1)
    w0 = np.full(shape, 2.0, dtype=np.float32)
    g = np.full(shape, 1.0, dtype=np.float32)
    w = mx.nd.array(w0)
    mx.random.seed(7)
    opt.update(0, w, mx.nd.array(g), None)
    noise = w.asnumpy().astype(np.float64) - (2.0 - lr / 2 * (RESCALE * 1.0 + 0.1 * 2.0))
    assert abs(noise.mean()) < 0.005                     # 40000 draws: sd of mean 0.001
    assert abs(noise.var() / lr - 1.0) < 0.05            # variance lr
    # the noise is mx.random's: the same seed gives the same weights
    w2 = mx.nd.array(w0)
    mx.random.seed(7)
    mx.optimizer.SGLD(learning_rate=lr, rescale_grad=RESCALE, wd=0.1).update(
        0, w2, mx.nd.array(g), None)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_dcasgd(momentum):
    opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=momentum, lamda=0.5, wd=0.01,
                              rescale_grad=RESCALE)
    w, grads, got = run(opt)
    mom, prev = np.zeros_like(w), w.copy()
    for g in grads:
        g = g * RESCALE
        step = -0.1 * (g + 0.01 * w + 0.5 * g * g * (w - prev))
        mom = momentum * mom + step if momentum else step
        prev = w
        w = w + mom
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sgd", "nag"])
def test_sgd_nag_multi_precision_keeps_a_float32_master(name):
    opt = mx.optimizer.create(name, learning_rate=0.1, momentum=0.9, multi_precision=True,
                              rescale_grad=RESCALE)
    w16 = mx.nd.array(np.linspace(-1, 1, 12).reshape(3, 4), dtype=np.float16)
    state = opt.create_state_multi_precision(0, w16)
    mom, master = state                          # MXNet's layout for SGD and NAG
    assert master.dtype == np.float32 and mom.dtype == np.float32
    g = np.full((3, 4), 1e-4, dtype=np.float16)  # a step float16 cannot hold
    for _ in range(3):
        opt.update_multi_precision(0, w16, mx.nd.array(g, dtype=np.float16), state)
    ref = mx.optimizer.create(name, learning_rate=0.1, momentum=0.9, rescale_grad=RESCALE)
    w32 = mx.nd.array(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float16),
                      dtype=np.float32)
    s32 = ref.create_state(0, w32)
    for _ in range(3):
        ref.update(0, w32, mx.nd.array(g.astype(np.float32)), s32)
    np.testing.assert_allclose(master.asnumpy(), w32.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), w32.asnumpy().astype(np.float16))


def test_base_multi_precision_layout_is_master_first():
    opt = mx.optimizer.Adamax(multi_precision=True)
    w16 = mx.nd.array(np.ones((2, 2)), dtype=np.float16)
    master, (m, u) = opt.create_state_multi_precision(0, w16)
    assert master.dtype == np.float32 and m.dtype == np.float32


# -- the base class ------------------------------------------------------------------
def test_learning_rate_and_scheduler():
    from xprof.runtime import lr_scheduler
    assert mx.optimizer.Optimizer().learning_rate == 0.01
    sched = lr_scheduler.FactorScheduler(step=1, base_lr=1024)
    assert mx.optimizer.Optimizer(lr_scheduler=sched).learning_rate == 1024
    sched = lr_scheduler.FactorScheduler(step=1)
    opt = mx.optimizer.Optimizer(lr_scheduler=sched, learning_rate=0.3)
    assert opt.learning_rate == 0.3                  # learning_rate overrides base_lr
    with pytest.raises(UserWarning, match="LRScheduler"):
        opt.set_learning_rate(0.5)


def test_wd_mult_zero_for_names_not_weight_or_gamma():
    opt = mx.optimizer.SGD(wd=0.1, param_idx2name={0: "fc_weight", 1: "fc_bias",
                                                   2: "bn_gamma", 3: "bn_beta"})
    assert opt.wd_mult == {"fc_bias": 0.0, "bn_beta": 0.0}
    assert [opt._get_wd(i) for i in range(4)] == [0.1, 0.0, 0.1, 0.0]
    opt.set_wd_mult({"fc_bias": 2.0})
    assert opt._get_wd(1) == pytest.approx(0.2)


def test_symbol_lr_mult_and_wd_mult_attributes():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name="fc1", num_hidden=4, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=4, wd_mult=0.5)
    names = [n for n in fc2.list_arguments() if n != "data"]
    opt = mx.optimizer.SGD(sym=fc2, param_idx2name=dict(enumerate(names)),
                           learning_rate=1.0, wd=0.2)
    assert opt.lr_mult == {"fc1_weight": 0.0, "fc1_bias": 1.0}
    assert opt.wd_mult == {"fc1_bias": 0.0, "fc2_weight": 0.5, "fc2_bias": 0.5}
    idx = {n: i for i, n in enumerate(names)}
    assert opt._get_lr(idx["fc1_weight"]) == 0.0
    assert opt._get_wd(idx["fc2_weight"]) == pytest.approx(0.1)


def test_clip_gradient_zero_means_no_clipping():
    opt = mx.optimizer.SGD(learning_rate=1.0, clip_gradient=0)
    w = mx.nd.zeros((2,))
    opt.update(0, w, mx.nd.array([3.0, -2.0]), None)
    np.testing.assert_array_equal(w.asnumpy(), [-3.0, 2.0])


def test_register_and_create_by_name():
    @mx.optimizer.register
    class MyOpt(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight[:] = weight + grad

    opt = mx.optimizer.create("myopt", learning_rate=0.5)
    assert isinstance(opt, MyOpt) and opt.lr == 0.5
    assert isinstance(mx.optimizer.Optimizer.create_optimizer("AdaGrad"),
                      mx.optimizer.AdaGrad)
    with pytest.raises(ValueError, match="not known"):
        mx.optimizer.create("nosuch")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mx.optimizer.register(MyOpt)                 # the same class again: no warning


def test_pickled_optimizer_drops_param_dict():
    import pickle
    opt = mx.optimizer.Adamax(param_dict={0: object()})
    clone = pickle.loads(pickle.dumps(opt))
    assert clone.param_dict == {} and clone.beta1 == opt.beta1


def test_nd_power_maximum_minimum_of_two_numbers_are_numbers():
    assert mx.nd.power(0.9, 2) == pytest.approx(0.81)
    assert mx.nd.maximum(1, 3) == 3 and mx.nd.minimum(1, 3) == 1
