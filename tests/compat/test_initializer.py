"""Tests of runtime/initializer.py's Bilinear: the upsampling kernel against the
bilinear-interpolation weights worked out by hand (1/4, 3/4, 3/4, 1/4 for width 4), and
its use as a Deconvolution layer's initializer by name."""
import numpy as np
import pytest

import xprof.runtime as mx


def test_bilinear_4x4_is_the_outer_product_of_quarter_weights():
    w = mx.nd.empty((1, 1, 4, 4))
    mx.init.Bilinear()._init_weight("up_weight", w)
    one_d = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_array_equal(w.asnumpy()[0, 0], np.outer(one_d, one_d))


def test_bilinear_odd_kernel_every_channel_alike():
    w = mx.nd.empty((2, 3, 5, 5))
    mx.init.Bilinear()._init_weight("up_weight", w)
    one_d = np.array([1, 2, 3, 2, 1]) / 3     # f = 3, c = 2/3: 1 - |x/3 - 2/3|
    for o in range(2):
        for i in range(3):
            np.testing.assert_allclose(w.asnumpy()[o, i], np.outer(one_d, one_d))


def test_bilinear_by_name_and_bad_shape():
    init = mx.init.create("bilinear")
    assert isinstance(init, mx.init.Bilinear) and init.dumps() == '["bilinear", {}]'
    with pytest.raises(ValueError, match="4-D"):
        init._init_weight("w", mx.nd.empty((4, 4)))
