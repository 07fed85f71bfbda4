"""The guide's CNN learns a synthetic 28x28 task, with identical losses imperative and
hybridized, on both engines."""
import numpy as np
from gluonhelpers import guide_cnn, synthetic, train

import xprof.runtime as mx


def test_guide_cnn_learns_and_all_configurations_agree(on_engine):
    x, y = synthetic(512)
    results = {}
    for kind in ("NaiveEngine", "ThreadedEngine"):
        on_engine(kind)
        for hybridize in (False, True):
            mx.random.seed(42)
            net = guide_cnn()
            net.initialize(mx.init.Xavier())
            if hybridize:
                net.hybridize()
            results[(kind, hybridize)] = train(net, x, y, epochs=3)
    ref_losses, _ = results[("ThreadedEngine", False)]
    assert len(ref_losses) == 24
    assert ref_losses[-4:].mean() < 0.6 * ref_losses[:4].mean()
    for key, (losses, acc) in results.items():
        assert acc >= 0.9, f"{key}: training accuracy {acc:.3f}"
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-5,
                                   err_msg=f"losses of {key} differ from imperative/"
                                           "ThreadedEngine")


def test_different_seed_gives_different_losses():
    """The agreement above is not vacuous: another initialization seed changes them."""
    x, y = synthetic(128)
    out = []
    for seed in (1, 2):
        mx.random.seed(seed)
        net = guide_cnn()
        net.initialize(mx.init.Xavier())
        out.append(train(net, x, y, epochs=1)[0])
    assert np.abs(out[0] - out[1]).max() > 1e-3
