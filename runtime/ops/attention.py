"""MXNet 1.x's fused multi-head attention products (contrib), for inputs whose last axis
interleaves the heads: ``interleaved_matmul_selfatt_qk``/``_valatt`` (queries, keys and
values projected together: ``(seq, batch, heads * 3 * dim)``, per head ``q, k, v``) and
``interleaved_matmul_encdec_qk``/``_valatt`` (queries ``(qseq, batch, heads * dim)``,
keys and values ``(kseq, batch, heads * 2 * dim)``).

``*_qk`` gives the scores ``(q / sqrt(dim)) k^T`` as ``(batch * heads, qseq, kseq)``;
``*_valatt`` applies attention weights of that shape to the values, giving
``(qseq, batch, heads * dim)``.
"""
import math

import numpy as np

from .params import _as
from .registry import defop


def _heads(x, heads, parts):
    """(seq, batch, heads*parts*dim) -> (seq, batch, heads, parts, dim)."""
    s, b, e = x.shape
    h = int(heads)
    if e % (h * parts):
        raise ValueError(f"interleaved_matmul: the last axis {e} is not a multiple of "
                         f"heads * {parts} = {h * parts}")
    return x.reshape(s, b, h, parts, e // (h * parts))


def _batch_heads(x):
    """(seq, batch, heads, dim) -> (batch*heads, seq, dim)."""
    s, b, h, d = x.shape
    return x.transpose(1, 2, 0, 3).reshape(b * h, s, d)


def _unbatch(x, b, h):
    """(batch*heads, seq, dim) -> (seq, batch, heads*dim)."""
    bh, s, d = x.shape
    return x.reshape(b, h, s, d).transpose(2, 0, 1, 3).reshape(s, b, h * d)


def _to_parts(g, b, h):
    """Inverse of _batch_heads: (batch*heads, seq, dim) -> (seq, batch, heads, dim)."""
    bh, s, d = g.shape
    return g.reshape(b, h, s, d).transpose(2, 0, 1, 3)


# -- self attention ------------------------------------------------------------------------------
def _selfatt_qk(queries_keys_values, heads=1):
    x = _heads(queries_keys_values, heads, 3)
    q, k = _batch_heads(x[:, :, :, 0]), _batch_heads(x[:, :, :, 1])
    return _as(queries_keys_values, np.matmul(q / math.sqrt(q.shape[-1]), k.swapaxes(1, 2)))


def _selfatt_qk_grad(ograds, inputs, outputs, heads=1):
    qkv = inputs[0]
    x = _heads(qkv, heads, 3)
    s, b, h, _, d = x.shape
    q, k = _batch_heads(x[:, :, :, 0]), _batch_heads(x[:, :, :, 1])
    g = ograds[0] / math.sqrt(d)
    out = np.zeros(x.shape, dtype=np.float64)
    out[:, :, :, 0] = _to_parts(np.matmul(g, k), b, h)
    out[:, :, :, 1] = _to_parts(np.matmul(g.swapaxes(1, 2), q), b, h)
    return [_as(qkv, out.reshape(qkv.shape))]


def _valatt(packed, attention, heads, parts):
    """attention @ values, the values being the last of ``parts`` per head."""
    x = _heads(packed, heads, parts)
    b, h = x.shape[1], x.shape[2]
    v = _batch_heads(x[:, :, :, parts - 1])
    return _as(packed, _unbatch(np.matmul(attention, v), b, h))


def _valatt_op(parts):
    """kernel and gradient of a ``*_valatt`` op whose packed input has ``parts``."""
    def kernel(packed, attention, heads=1):
        return _valatt(packed, attention, heads, parts)

    def grad(ograds, inputs, outputs, heads=1):
        return _valatt_grad(inputs[0], inputs[1], ograds[0], heads, parts)
    return kernel, grad


def _valatt_grad(packed, att, og, heads, parts):
    x = _heads(packed, heads, parts)
    b, h, d = x.shape[1], x.shape[2], x.shape[4]
    v = _batch_heads(x[:, :, :, parts - 1])
    g = _batch_heads(og.reshape(att.shape[1], b, h, d))
    out = np.zeros(x.shape, dtype=np.float64)
    out[:, :, :, parts - 1] = _to_parts(np.matmul(att.swapaxes(1, 2), g), b, h)
    return [_as(packed, out.reshape(packed.shape)), _as(att, np.matmul(g, v.swapaxes(1, 2)))]


def _selfatt_qk_infer(in_shapes, in_dtypes, heads=1, **_):
    s, b, e = tuple(in_shapes[0])
    return [(b * int(heads), s, s)], [in_dtypes[0]]


def _selfatt_valatt_infer(in_shapes, in_dtypes, heads=1, **_):
    s, b, e = tuple(in_shapes[0])
    return [(s, b, e // 3)], [in_dtypes[0]]


def _cost(in_shapes, **_):
    s, b, e = in_shapes[0]
    return max(1, 2 * s * s * b * e)


defop("_contrib_interleaved_matmul_selfatt_qk", _selfatt_qk,
      arg_names=("queries_keys_values",), infer=_selfatt_qk_infer, grad=_selfatt_qk_grad,
      cost=_cost, params={"heads": 1})
_kernel, _grad = _valatt_op(3)
defop("_contrib_interleaved_matmul_selfatt_valatt", _kernel,
      arg_names=("queries_keys_values", "attention"), infer=_selfatt_valatt_infer,
      grad=_grad, cost=_cost, params={"heads": 1})


# -- encoder-decoder attention --------------------------------------------------------------------
def _encdec_qk(queries, keys_values, heads=1):
    q = _batch_heads(_heads(queries, heads, 1)[:, :, :, 0])
    k = _batch_heads(_heads(keys_values, heads, 2)[:, :, :, 0])
    return _as(queries, np.matmul(q / math.sqrt(q.shape[-1]), k.swapaxes(1, 2)))


def _encdec_qk_grad(ograds, inputs, outputs, heads=1):
    queries, kv = inputs
    xq, xkv = _heads(queries, heads, 1), _heads(kv, heads, 2)
    b, h, d = xq.shape[1], xq.shape[2], xq.shape[4]
    q, k = _batch_heads(xq[:, :, :, 0]), _batch_heads(xkv[:, :, :, 0])
    g = ograds[0] / math.sqrt(d)
    gq = _to_parts(np.matmul(g, k), b, h).reshape(queries.shape)
    gkv = np.zeros(xkv.shape, dtype=np.float64)
    gkv[:, :, :, 0] = _to_parts(np.matmul(g.swapaxes(1, 2), q), b, h)
    return [_as(queries, gq), _as(kv, gkv.reshape(kv.shape))]


def _encdec_qk_infer(in_shapes, in_dtypes, heads=1, **_):
    qs, b, _ = tuple(in_shapes[0])
    ks = in_shapes[1][0]
    return [(b * int(heads), qs, ks)], [in_dtypes[0]]


def _encdec_valatt_infer(in_shapes, in_dtypes, heads=1, **_):
    ks, b, e = tuple(in_shapes[0])
    qs = in_shapes[1][1]
    return [(qs, b, e // 2)], [in_dtypes[0]]


defop("_contrib_interleaved_matmul_encdec_qk", _encdec_qk,
      arg_names=("queries", "keys_values"), infer=_encdec_qk_infer, grad=_encdec_qk_grad,
      cost=_cost, params={"heads": 1})
_kernel, _grad = _valatt_op(2)
defop("_contrib_interleaved_matmul_encdec_valatt", _kernel,
      arg_names=("keys_values", "attention"), infer=_encdec_valatt_infer,
      grad=_grad, cost=_cost, params={"heads": 1})
