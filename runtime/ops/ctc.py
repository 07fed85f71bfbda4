"""``CTCLoss`` (MXNet 1.x; also ``ctc_loss``, ``contrib.CTCLoss``, ``contrib.ctc_loss``):
the connectionist temporal classification loss of Graves et al. (2006).

``data`` ``(T, N, C)`` holds unnormalized activations (a softmax over ``C`` is taken
inside); ``label`` ``(N, L)`` the label sequences, padded. With ``blank_label='first'``
the blank is class 0, labels are ``1..C-1`` and 0 pads; with ``'last'`` the blank is
``C-1`` and -1 pads. ``use_data_lengths``/``use_label_lengths`` add the inputs
``data_lengths``/``label_lengths`` (else every sequence is ``T`` long and a label ends at
its first padding). The output is ``-log p(label | data)`` per sequence, ``(N,)``;
steps past a sequence's length are not read and get a zero gradient.

The forward-backward recursion runs in log space over the ``2L + 1`` positions of the
label with blanks between; the gradient with respect to the activations is
``softmax - (1/p) sum over positions of that class of alpha * beta / y``.
"""
import numpy as np

from .params import _ACTIVE, _as, _bool
from .registry import defop

_PARAMS = {"use_data_lengths": False, "use_label_lengths": False, "blank_label": "first"}


def _active(params):
    names = ["data", "label"]
    if _bool(params.get("use_data_lengths")):
        names.append("data_lengths")
    if _bool(params.get("use_label_lengths")):
        names.append("label_lengths")
    return tuple(names)


def _split(inputs, use_data_lengths, use_label_lengths):
    data, label = inputs[0], inputs[1]
    rest = list(inputs[2:])
    dl = rest.pop(0) if _bool(use_data_lengths) else None
    ll = rest.pop(0) if _bool(use_label_lengths) else None
    return data, label, dl, ll


def _sequences(data, label, data_lengths, label_lengths, blank_label):
    """Per sequence: (T_n, label ids without padding), and the blank's id."""
    t, n, c = data.shape
    if blank_label not in ("first", "last"):
        raise ValueError(f"CTCLoss: blank_label={blank_label!r} must be 'first' or 'last'")
    blank, pad = (0, 0) if blank_label == "first" else (c - 1, -1)
    lab = np.asarray(label).astype(np.int64).reshape(n, -1)
    out = []
    for i in range(n):
        steps = t if data_lengths is None else int(np.asarray(data_lengths).reshape(-1)[i])
        row = lab[i]
        if label_lengths is not None:
            row = row[:int(np.asarray(label_lengths).reshape(-1)[i])]
        else:
            ends = np.flatnonzero(row == pad)
            row = row[:ends[0]] if ends.size else row
        if steps < 0 or steps > t:
            raise ValueError(f"CTCLoss: data length {steps} is out of range for {t} steps")
        if np.any((row < 0) | (row >= c)) or np.any(row == blank):
            raise ValueError(f"CTCLoss: label {row.tolist()} has ids outside the classes "
                             f"(or the blank {blank})")
        out.append((steps, row))
    return out, blank


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def _forward_backward(logp, row, blank):
    """log alpha and log beta (T, S) over the extended label, and log p."""
    ext = np.full(2 * len(row) + 1, blank, dtype=np.int64)
    ext[1::2] = row
    steps, s = logp.shape[0], ext.size
    emit = logp[:, ext]                                  # (T, S)
    # position s may come from s-2 when it is a label different from the one at s-2
    skip = np.zeros(s, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg = -np.inf
    alpha = np.full((steps, s), neg)
    beta = np.full((steps, s), neg)
    if steps == 0:
        return alpha, beta, ext, (0.0 if s == 1 else neg)
    alpha[0, 0] = emit[0, 0]
    if s > 1:
        alpha[0, 1] = emit[0, 1]
    for t in range(1, steps):
        prev = alpha[t - 1]
        a = prev.copy()
        a[1:] = np.logaddexp(a[1:], prev[:-1])
        a[2:] = np.where(skip[2:], np.logaddexp(a[2:], prev[:-2]), a[2:])
        alpha[t] = a + emit[t]
    beta[-1, -1] = emit[-1, -1]
    if s > 1:
        beta[-1, -2] = emit[-1, -2]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        b = nxt.copy()
        b[:-1] = np.logaddexp(b[:-1], nxt[1:])
        b[:-2] = np.where(skip[2:], np.logaddexp(b[:-2], nxt[2:]), b[:-2])
        beta[t] = b + emit[t]
    log_p = np.logaddexp(alpha[-1, -1], alpha[-1, -2]) if s > 1 else alpha[-1, -1]
    return alpha, beta, ext, log_p


def _losses_and_grads(data, label, data_lengths, label_lengths, blank_label, want_grad):
    seqs, blank = _sequences(data, label, data_lengths, label_lengths, blank_label)
    x = data.astype(np.float64)
    losses = np.zeros(len(seqs))
    grad = np.zeros_like(x) if want_grad else None
    for i, (steps, row) in enumerate(seqs):
        logp = _log_softmax(x[:steps, i])
        alpha, beta, ext, log_p = _forward_backward(logp, row, blank)
        losses[i] = -log_p
        if want_grad and steps:
            post = alpha + beta - logp[:, ext] - log_p      # log of alpha beta / (y p)
            g = np.exp(logp)
            occ = np.zeros_like(g)
            np.add.at(occ, (slice(None), ext), np.exp(post))
            grad[:steps, i] = g - occ
    return losses, grad


def _ctc(data, label, *lengths, use_data_lengths=False, use_label_lengths=False,
         blank_label="first"):
    _, _, dl, ll = _split((data, label) + lengths, use_data_lengths, use_label_lengths)
    losses, _ = _losses_and_grads(data, label, dl, ll, blank_label, False)
    return losses.astype(data.dtype)


def _ctc_grad(ograds, inputs, outputs, use_data_lengths=False, use_label_lengths=False,
              blank_label="first"):
    data, label, dl, ll = _split(inputs, use_data_lengths, use_label_lengths)
    _, grad = _losses_and_grads(data, label, dl, ll, blank_label, True)
    g = grad * np.asarray(ograds[0], dtype=np.float64).reshape(1, -1, 1)
    return [_as(data, g)] + [np.zeros_like(x) for x in inputs[1:]]


def _ctc_infer(in_shapes, in_dtypes, **_):
    d, lab = tuple(in_shapes[0]), tuple(in_shapes[1])
    if len(d) != 3 or len(lab) != 2 or lab[0] != d[1]:
        raise ValueError(f"CTCLoss: data must be (T, N, C) and label (N, L), got {d} and "
                         f"{lab}")
    return [(d[1],)], [in_dtypes[0]]


def _ctc_cost(in_shapes, **_):
    t, n, c = in_shapes[0]
    return max(1, t * n * (c + 4 * in_shapes[1][-1]))


defop("CTCLoss", _ctc, arg_names=("data", "label", "data_lengths", "label_lengths"),
      infer=_ctc_infer, grad=_ctc_grad, cost=_ctc_cost, params=dict(_PARAMS),
      aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
_ACTIVE["CTCLoss"] = _active
