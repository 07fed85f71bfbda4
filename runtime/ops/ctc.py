"""``CTCLoss``: Connectionist Temporal Classification (Graves et al., 2006), MXNet 1.x's
operator.

Inputs: ``data`` (T, N, C) unnormalized scores (the op applies softmax over C), ``label``
(N, L) class indices, and, with ``use_data_lengths`` / ``use_label_lengths``, the
lengths ``data_lengths`` (N,) and ``label_lengths`` (N,). ``blank_label='first'`` makes
class 0 the blank and 0 the label padding; ``'last'`` makes class C-1 the blank and -1
the padding. The output is each sequence's negative log-likelihood (N,).

The forward-backward recursions run in log space over the extended label (blanks between
and around the symbols); the gradient with respect to the scores is
``softmax(data) - gamma`` with ``gamma`` the posterior of each class at each step, zero
beyond a sequence's length, scaled by the output gradient.
"""
import numpy as np

from .params import _ACTIVE, _bool
from .registry import defop

__all__ = []

_NEG = -np.inf


def _active(params):
    names = ["data", "label"]
    if _bool(params.get("use_data_lengths")):
        names.append("data_lengths")
    if _bool(params.get("use_label_lengths")):
        names.append("label_lengths")
    return tuple(names)


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    z = x - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _lse(*xs):
    """log(sum(exp(x))) elementwise over the arrays given, -inf safe."""
    stack = np.stack(xs)
    m = stack.max(axis=0)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(stack - safe).sum(axis=0))


def _split(data, label, rest, use_data_lengths, use_label_lengths, blank_label):
    """Per sequence: (steps, label symbols), and the blank's index."""
    t_max, n, c = data.shape
    blank = 0 if blank_label == "first" else c - 1
    pad = 0 if blank_label == "first" else -1
    rest = list(rest)
    d_len = rest.pop(0) if use_data_lengths else None
    l_len = rest.pop(0) if use_label_lengths else None
    seqs = []
    for i in range(n):
        steps = t_max if d_len is None else int(d_len[i])
        if not 0 <= steps <= t_max:
            raise ValueError(f"CTCLoss: data_lengths[{i}]={steps} is outside [0, {t_max}]")
        row = np.asarray(label[i]).astype(np.int64)
        if l_len is not None:
            row = row[:int(l_len[i])]
        else:
            stop = np.nonzero(row == pad)[0]
            row = row[:stop[0]] if stop.size else row
        if row.size and (row.min() < 0 or row.max() >= c):
            raise ValueError(f"CTCLoss: label row {i} holds {row.tolist()}; classes are "
                             f"0..{c - 1}")
        seqs.append((steps, row))
    return seqs, blank


def _alpha_beta(logp, row, blank):
    """Log forward and backward variables over the extended label, and log p(label)."""
    steps = logp.shape[0]
    ext = np.full(2 * row.size + 1, blank, dtype=np.int64)
    ext[1::2] = row
    s = ext.size
    # a symbol may be reached from two back when it differs from that one (skip a blank)
    skip = np.zeros(s, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = np.full((steps, s), _NEG)
    beta = np.full((steps, s), _NEG)
    if steps == 0:
        return ext, alpha, beta, (0.0 if row.size == 0 else _NEG)
    alpha[0, 0] = logp[0, ext[0]]
    if s > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = np.concatenate(([_NEG], prev[:-1]))
        two = np.where(skip, np.concatenate(([_NEG, _NEG], prev[:-2])), _NEG)
        alpha[t] = _lse(prev, one, two) + logp[t, ext]
    beta[-1, -1] = logp[-1, ext[-1]]
    if s > 1:
        beta[-1, -2] = logp[-1, ext[-2]]
    skip_next = np.zeros(s, dtype=bool)
    skip_next[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate((nxt[1:], [_NEG]))
        two = np.where(skip_next, np.concatenate((nxt[2:], [_NEG, _NEG])), _NEG)
        beta[t] = _lse(nxt, one, two) + logp[t, ext]
    tail = alpha[-1, -1] if s == 1 else _lse(alpha[-1, -1], alpha[-1, -2])
    return ext, alpha, beta, float(tail)


def _ctc(data, label, *rest, use_data_lengths=False, use_label_lengths=False,
         blank_label="first"):
    seqs, blank = _split(data, label, rest, _bool(use_data_lengths),
                         _bool(use_label_lengths), blank_label)
    logp = _log_softmax(data.astype(np.float64))
    out = np.empty(data.shape[1], dtype=np.float64)
    for i, (steps, row) in enumerate(seqs):
        out[i] = -_alpha_beta(logp[:steps, i], row, blank)[3]
    return out.astype(data.dtype)


def _ctc_grad(ograds, inputs, outputs, use_data_lengths=False, use_label_lengths=False,
              blank_label="first"):
    data, label, rest = inputs[0], inputs[1], inputs[2:]
    seqs, blank = _split(data, label, rest, _bool(use_data_lengths),
                         _bool(use_label_lengths), blank_label)
    logp = _log_softmax(data.astype(np.float64))
    grad = np.zeros(data.shape, dtype=np.float64)
    og = np.asarray(ograds[0], dtype=np.float64).reshape(-1)
    for i, (steps, row) in enumerate(seqs):
        if steps == 0:
            continue
        ext, alpha, beta, logz = _alpha_beta(logp[:steps, i], row, blank)
        if not np.isfinite(logz):
            continue                    # an impossible alignment: no gradient (MXNet: 0)
        # posterior of class k at step t: sum over extended positions holding k
        ab = alpha + beta - logp[:steps, i][:, ext]     # each path counted once
        post = np.zeros((steps, data.shape[2]))
        for k in np.unique(ext):
            cols = ab[:, ext == k]
            post[:, k] = np.exp(_lse(*cols.T) - logz) if cols.shape[1] > 1 else \
                np.exp(cols[:, 0] - logz)
        grad[:steps, i] = (np.exp(logp[:steps, i]) - post) * og[i]
    grads = [grad.astype(data.dtype), np.zeros_like(label)]
    grads += [np.zeros_like(r) for r in rest]
    return grads


def _infer(in_shapes, in_dtypes, **params):
    data, label = tuple(in_shapes[0]), tuple(in_shapes[1])
    if len(data) != 3:
        raise ValueError(f"CTCLoss: data has shape {data}; it must be (sequence length, "
                         "batch, classes)")
    if len(label) != 2 or label[0] != data[1]:
        raise ValueError(f"CTCLoss: label has shape {label}; it must be (batch={data[1]}, "
                         "label length)")
    if params.get("blank_label", "first") not in ("first", "last"):
        raise ValueError(f"CTCLoss: blank_label={params['blank_label']!r} is not allowed; "
                         "use 'first' or 'last'")
    for name, s in zip(_active(params)[2:], in_shapes[2:]):
        if tuple(s) != (data[1],):
            raise ValueError(f"CTCLoss: {name} has shape {tuple(s)}, expected "
                             f"({data[1]},)")
    return [(data[1],)], [in_dtypes[0]]


def _infer_args(in_shapes, **params):
    """Lengths are one per sequence of the batch."""
    filled = list(in_shapes)
    if filled[0] is not None:
        n = tuple(filled[0])[1]
        for i in range(2, len(filled)):
            if filled[i] is None:
                filled[i] = (n,)
    return filled


def _cost(in_shapes, **_):
    t, n, c = in_shapes[0]
    label = in_shapes[1][1] if len(in_shapes[1]) > 1 else 1
    return int(t * n * (c + 6 * (2 * label + 1)))


defop("CTCLoss", _ctc, arg_names=("data", "label", "data_lengths", "label_lengths"),
      infer=_infer, infer_args=_infer_args, grad=_ctc_grad, cost=_cost,
      params={"use_data_lengths": False, "use_label_lengths": False,
              "blank_label": "first"}, doc=__doc__,
      aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
_ACTIVE["CTCLoss"] = _active
