"""Max pooling 2x2/2 on whole rows (runtime/ops/pool_tiles.py) against the general
strided path of runtime/ops/pooling.py, ties included (first maximum wins, as MXNet)."""
import numpy as np
import pytest

import xprof.runtime.ops  # noqa: F401
from xprof.runtime.ops import pool_tiles, pooling, registry

POOL = dict(kernel=(2, 2), stride=(2, 2), pool_type="max")


def _general(monkeypatch, x, og):
    """Forward and data gradient through the strided path."""
    op = registry.get("Pooling")
    with monkeypatch.context() as m:
        m.setattr(pool_tiles, "applies", lambda *a: False)
        out = op.kernel(x, **POOL)
        return out, op.grad([og], [x], [out], **POOL)[0]


def _tied(rng, shape, dtype):
    x = rng.integers(-2, 3, size=shape).astype(dtype)      # many ties, zeros and negatives
    x[..., :2, :] = 0                                        # whole all-zero windows
    x[..., 2:4, 2:4] = 1                                     # windows of one repeated max
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8])
@pytest.mark.parametrize("shape", [(2, 3, 6, 8), (1, 1, 2, 2), (3, 2, 8, 4)])
def test_row_pooling_matches_the_strided_path(monkeypatch, dtype, shape):
    rng = np.random.default_rng(11)
    x = _tied(rng, shape, dtype)
    og = rng.standard_normal((shape[0], shape[1], shape[2] // 2, shape[3] // 2)).astype(dtype)
    assert pool_tiles.applies(x, (2, 2), "max", True)
    op = registry.get("Pooling")
    out = op.kernel(x, **POOL)
    gx = op.grad([og], [x], [out], **POOL)[0]
    want_out, want_gx = _general(monkeypatch, x, og)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(gx, want_gx)
    assert out.dtype == x.dtype and gx.dtype == x.dtype and gx.shape == x.shape
    # every window passes its gradient exactly once
    win = gx.reshape(shape[0], shape[1], shape[2] // 2, 2, shape[3] // 2, 2)
    np.testing.assert_array_equal((win != 0).sum(axis=(3, 5)) <= 1, True)


def test_first_maximum_in_row_major_order():
    x = np.array([[[[0, 5, 5, 1],
                    [5, 5, 2, 5]]]], np.float32)
    og = np.array([[[[10, 20]]]], np.float32)
    op = registry.get("Pooling")
    out = op.kernel(x, **POOL)
    gx = op.grad([og], [x], [out], **POOL)[0]
    np.testing.assert_array_equal(out, [[[[5, 5]]]])
    np.testing.assert_array_equal(gx, [[[[0, 10, 20, 0], [0, 0, 0, 0]]]])


def test_nan_windows_and_noncontiguous_data(monkeypatch):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    og = rng.standard_normal((2, 2, 2, 2)).astype(np.float32)
    op = registry.get("Pooling")
    out = op.kernel(x, **POOL)
    want_out, want_gx = _general(monkeypatch, x, og)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(op.grad([og], [x], [out], **POOL)[0], want_gx)
    strided = np.asfortranarray(x)
    assert not pool_tiles.applies(strided, (2, 2), "max", True)
    np.testing.assert_array_equal(op.kernel(strided, **POOL), want_out)

