"""The convolution's two column layouts and the columns its forward keeps for its
backward (runtime/ops/conv_samples.py, runtime/ops/cols_keep.py)."""
import gc

import numpy as np
import pytest

import xprof.runtime.ops  # noqa: F401
from xprof.runtime.ops import cols_keep, conv, registry


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _case(rng, shape, **extra):
    x = _rand(rng, *shape)
    w = _rand(rng, 6, shape[1] // extra.get("num_group", 1), 3, 3)
    b = _rand(rng, 6)
    params = dict(kernel=(3, 3), num_filter=6, **extra)
    return x, w, b, params


# long output rows (per-sample GEMMs) and short ones (batch-minor columns), with groups,
# stride, pad and dilation
CASES = [((3, 4, 20, 20), {}), ((3, 4, 20, 20), dict(num_group=2, pad=(1, 1))),
         ((5, 4, 9, 9), {}), ((5, 4, 11, 11), dict(stride=(2, 2), dilate=(2, 1))),
         ((1, 2, 19, 19), dict(pad=(2, 0)))]


@pytest.mark.parametrize("shape,extra", CASES)
def test_kept_columns_give_the_rebuilt_gradients(shape, extra):
    rng = np.random.default_rng(3)
    x, w, b, params = _case(rng, shape, **extra)
    op = registry.get("Convolution")
    out = op.kernel(x, w, b, **params)
    assert len(cols_keep._kept) >= 1
    og = _rand(rng, *out.shape)
    kept = op.grad([og], [x, w, b], [out], **params)
    rebuilt = op.grad([og], [x, w, b], [out], **params)       # taken: built again
    for a, r in zip(kept, rebuilt):
        np.testing.assert_array_equal(a, r)
    # against a direct correlation of the same geometry, and its gradients through
    # float64 autograd of that correlation's linearity: d(out . og)/dw and /db
    ref = _reference(x, w, b, params)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(kept[2], og.astype(np.float64).sum(axis=(0, 2, 3)),
                               rtol=1e-4, atol=1e-4)
    eye = np.zeros_like(w)
    for idx in [(0, 0, 0, 0), (5, w.shape[1] - 1, 2, 1), (3, 0, 1, 2)]:
        eye[...] = 0
        eye[idx] = 1
        want = float((_reference(x, eye, np.zeros_like(b), params) * og).sum())
        np.testing.assert_allclose(kept[1][idx], want, rtol=1e-4, atol=1e-3)


def _reference(x, w, b, params):
    g = params.get("num_group", 1)
    sh, sw = params.get("stride", (1, 1))
    dh, dw = params.get("dilate", (1, 1))
    ph, pw = params.get("pad", (0, 0))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    n, c, hh, ww = xp.shape
    f, cg, kh, kw = w.shape
    oh, ow = (hh - dh * (kh - 1) - 1) // sh + 1, (ww - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // g
    for i in range(kh):
        for j in range(kw):
            part = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                      j * dw:j * dw + sw * (ow - 1) + 1:sw]
            for gi in range(g):
                out[:, gi * fg:(gi + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", part[:, gi * cg:(gi + 1) * cg],
                    w[gi * fg:(gi + 1) * fg, :, i, j])
    return out + b.reshape(1, -1, 1, 1)


def test_kept_columns_are_dropped_with_their_data():
    rng = np.random.default_rng(4)
    x, w, b, params = _case(rng, (2, 4, 20, 20))
    cols_keep.clear()
    registry.get("Convolution").kernel(x, w, b, **params)
    assert len(cols_keep._kept) == 1 and cols_keep._nbytes[0] > 0
    del x
    gc.collect()
    assert len(cols_keep._kept) == 0 and cols_keep._nbytes[0] == 0


def test_other_data_does_not_take_kept_columns():
    rng = np.random.default_rng(5)
    x, w, b, params = _case(rng, (2, 4, 20, 20))
    op = registry.get("Convolution")
    out = op.kernel(x, w, b, **params)
    other = x + 1                         # same shape, other values, another object
    og = np.ones_like(out)
    got = op.grad([og], [other, w, b], [out], **params)
    cols_keep.clear()
    want = op.grad([og], [other, w, b], [out], **params)
    for a, r in zip(got, want):
        np.testing.assert_array_equal(a, r)


def test_kept_columns_stay_within_the_limit(monkeypatch):
    rng = np.random.default_rng(6)
    op = registry.get("Convolution")
    cols_keep.clear()
    x, w, b, params = _case(rng, (1, 4, 20, 20))
    op.kernel(x, w, b, **params)
    one = cols_keep._nbytes[0]
    monkeypatch.setattr(cols_keep, "limit", 2 * one + 1)      # room for two entries
    xs = [x]
    for _ in range(4):
        x, w, b, params = _case(rng, (1, 4, 20, 20))
        xs.append(x)
        op.kernel(x, w, b, **params)
    assert len(cols_keep._kept) == 2
    assert cols_keep._nbytes[0] == sum(c.nbytes for _, c in cols_keep._kept.values())
    cols_keep.clear()


def test_per_sample_layout_is_chosen_for_long_rows():
    geom = conv._conv_geom((4, 3, 30, 30), dict(kernel=(3, 3), num_filter=2))
    assert not conv._batch_last(geom)
    geom = conv._conv_geom((4, 3, 10, 10), dict(kernel=(3, 3), num_filter=2))
    assert conv._batch_last(geom)


def test_a_data_array_freed_while_keeping_does_not_deadlock():
    # the weak reference's callback may run inside keep() in the same thread
    rng = np.random.default_rng(9)
    cols_keep.clear()
    x, w, b, params = _case(rng, (1, 4, 20, 20))
    registry.get("Convolution").kernel(x, w, b, **params)
    with cols_keep._lock:
        del x                              # the callback takes the lock again
        gc.collect()
    assert len(cols_keep._kept) == 0
