"""relu on numpy's fast loop (runtime/ops/relu_kernel.py) gives np.maximum(x, 0)."""
import numpy as np
import pytest

from xprof.runtime.ops.relu_kernel import relu


@pytest.mark.parametrize("size", [5, 8192, 8192 * 3 + 17])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_relu_kernel_gives_maximum_with_zero(size, dtype):
    rng = np.random.default_rng(13)
    x = (rng.standard_normal(size) * 10).astype(dtype)
    if x.dtype.kind == "f":
        x[:3] = [np.nan, -0.0, np.inf]
    out = relu(x.reshape(1, -1))
    np.testing.assert_array_equal(out, np.maximum(x, 0).reshape(1, -1))
    assert out.dtype == x.dtype and out.flags.owndata
    strided = x[::2]
    np.testing.assert_array_equal(relu(strided), np.maximum(strided, 0))
