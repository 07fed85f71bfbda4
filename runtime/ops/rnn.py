"""``RNN``: MXNet 1.x's fused recurrent operator (modes ``rnn_relu``, ``rnn_tanh``,
``lstm``, ``gru``; stacked layers, bidirectional), kernel, inference and gradient.

Inputs as MXNet has them: ``data`` (T, N, C) in TNC layout, ``parameters`` (one flat
vector), ``state`` (L*D, N, H) and, for ``lstm``, ``state_cell`` of the same shape.
The flat vector holds every weight first, then every bias, each group ordered by layer,
then direction (forward, backward), then ``i2h`` before ``h2h``; a weight is
(gates*H, inputs) row-major. Gates are ordered i, f, g, o (LSTM) and r, z, n (GRU, with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``). Layer l > 0 reads the
concatenation of the previous layer's directions. With ``state_outputs`` the op also
returns the final ``h`` (and ``c`` for LSTM), stacked like ``state``.

LSTM with ``projection_size`` P (MXNet's LSTMP): each step's ``o * tanh(c)`` (H values)
is projected to ``h`` (P values) by a (P, H) weight ``h2r``; ``state`` and the outputs
then have P per direction, ``h2h`` weights are (4H, P), and each (layer, direction)'s
weights are i2h, h2h, h2r in the flat vector (biases as without projection).

The gradient re-runs the forward keeping each step's activations (backpropagation
through time), so the forward keeps nothing alive between calls. ``p`` (dropout between
layers) is accepted as MXNet's front ends pass it; the kernel does not drop (noted in
docs/architecture.md). ``use_sequence_length`` is refused.
"""
import numpy as np

from .params import _ACTIVE, _as, _bool, _check_arg_shapes, _positive_int
from .registry import defop

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
# the gates' name suffixes in MXNet's per-gate parameter names (``l0_i2h_f_weight``)
GATE_NAMES = {"rnn_relu": ("",), "rnn_tanh": ("",), "lstm": ("_i", "_f", "_c", "_o"),
              "gru": ("_r", "_z", "_o")}


def packed_layout(prefix, mode, num_layers, bidirectional, num_hidden, num_input):
    """``(name, shape)`` of each per-gate array of the flat parameter vector, in its
    order, named as MXNet's ``FusedRNNCell.unpack_weights`` names them: every weight
    (by layer, direction ``l``/``r``, i2h then h2h, gate), then every bias alike. The
    one definition of the layout for the cell (``mx.rnn.FusedRNNCell``) and the
    ``FusedRNN`` initializer."""
    dirs = ("l", "r") if bidirectional else ("l",)
    gates = GATE_NAMES[mode]
    h = num_hidden
    order = []
    for layer in range(num_layers):
        ni = num_input if layer == 0 else len(dirs) * h
        for d in dirs:
            order += [(f"{prefix}{d}{layer}_i2h{g}_weight", (h, ni)) for g in gates]
            order += [(f"{prefix}{d}{layer}_h2h{g}_weight", (h, h)) for g in gates]
    for layer in range(num_layers):
        for d in dirs:
            for group in ("i2h", "h2h"):
                order += [(f"{prefix}{d}{layer}_{group}{g}_bias", (h,)) for g in gates]
    return order


def packed_num_input(size, mode, num_layers, bidirectional, num_hidden):
    """The first layer's input size of a flat parameter vector of ``size`` values."""
    b, m, h = (2 if bidirectional else 1), len(GATE_NAMES[mode]), num_hidden
    return size // b // h // m - (num_layers - 1) * (h + b * h + 2) - h - 2


def _geometry(dshape, state_size, num_layers, bidirectional, mode):
    """(T, N, C, H, L, D, G) of a call, validated."""
    if mode not in GATES:
        raise ValueError(f"RNN: mode={mode!r} must be one of {sorted(GATES)}")
    dshape = tuple(dshape)
    if len(dshape) != 3:
        raise ValueError(f"RNN: data must be 3-D (T, N, C) in TNC layout, got {dshape}")
    hidden = _positive_int(state_size, "state_size", "RNN")
    layers = _positive_int(num_layers, "num_layers", "RNN")
    dirs = 2 if _bool(bidirectional) else 1
    return dshape + (hidden, layers, dirs, GATES[mode])


def _projection(projection_size, mode):
    """P, the projected state size (0: no projection; LSTM only)."""
    if projection_size in (None, 0, "None"):
        return 0
    p = _positive_int(projection_size, "projection_size", "RNN")
    if mode != "lstm":
        raise ValueError(f"RNN: projection_size={projection_size!r} needs mode='lstm', "
                         f"not {mode!r}")
    return p


def param_size(input_size, state_size, num_layers, bidirectional, mode,
               projection_size=None):
    """Length of the flat parameter vector (MXNet's ``GetRnnParamSize``)."""
    _, _, c, h, layers, dirs, g = _geometry((1, 1, input_size), state_size, num_layers,
                                            bidirectional, mode)
    p = _projection(projection_size, mode)
    r = p or h
    total = 0
    for layer in range(layers):
        ni = c if layer == 0 else r * dirs
        total += dirs * (g * h * (ni + r + 2) + p * h)
    return total


def _unpack(params, c, h, layers, dirs, g, p=0):
    """[(Wx, Wh, bx, bh, Wr or None)] per (layer, direction), views into the flat
    vector."""
    r = p or h
    weights, off = [], 0
    for layer in range(layers):
        ni = c if layer == 0 else r * dirs
        for _ in range(dirs):
            wx = params[off:off + g * h * ni].reshape(g * h, ni)
            off += g * h * ni
            wh = params[off:off + g * h * r].reshape(g * h, r)
            off += g * h * r
            wr = None
            if p:
                wr = params[off:off + p * h].reshape(p, h)
                off += p * h
            weights.append([wx, wh, wr])
    for k in range(layers * dirs):
        bx = params[off:off + g * h]
        off += g * h
        bh = params[off:off + g * h]
        off += g * h
        wx, wh, wr = weights[k]
        weights[k] = [wx, wh, bx, bh, wr]
    return weights


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def _clip(c, lo, hi):
    if lo is None and hi is None:
        return c
    return np.clip(c, -np.inf if lo is None else lo, np.inf if hi is None else hi)


def _run_direction(x, h, c, w, mode, reverse, clip, keep):
    """One layer, one direction over x (T, N, C): (outputs (T, N, H), h, c, cache)."""
    wx, wh, bx, bh, wr = w
    steps = x.shape[0]
    hsz = wx.shape[0] // GATES[mode]
    xs = x @ wx.T + bx
    out = np.empty((steps,) + h.shape, dtype=x.dtype)
    cache = []
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        hh = h @ wh.T + bh
        a = xs[t]
        hp, cp = h, c
        if mode == "lstm":
            pre = a + hh
            i = _sigmoid(pre[:, :hsz])
            f = _sigmoid(pre[:, hsz:2 * hsz])
            gg = np.tanh(pre[:, 2 * hsz:3 * hsz])
            o = _sigmoid(pre[:, 3 * hsz:])
            raw = f * c + i * gg
            c = _clip(raw, *clip)
            tc = np.tanh(c)
            m = o * tc
            h = m if wr is None else m @ wr.T       # LSTMP: the projected state
            step = (hp, cp, i, f, gg, o, tc, raw, m)
        elif mode == "gru":
            r = _sigmoid(a[:, :hsz] + hh[:, :hsz])
            z = _sigmoid(a[:, hsz:2 * hsz] + hh[:, hsz:2 * hsz])
            hn = hh[:, 2 * hsz:]
            n = np.tanh(a[:, 2 * hsz:] + r * hn)
            h = (1.0 - z) * n + z * h
            step = (hp, r, z, n, hn)
        else:
            pre = a + hh
            h = np.maximum(pre, 0) if mode == "rnn_relu" else np.tanh(pre)
            step = (hp, h)
        out[t] = h
        if keep:
            cache.append((t, step))
    return out, h, c, cache


def _back_direction(x, dout, dh, dc, w, mode, cache, clip):
    """Gradients of one direction: (dx, dh0, dc0, [dWx, dWh, dbx, dbh])."""
    wx, wh, _, _, wr = w
    hsz = wx.shape[0] // GATES[mode]
    dxpre = np.zeros((x.shape[0], x.shape[1], wx.shape[0]), dtype=x.dtype)
    dwh = np.zeros_like(wh)
    dwr = None if wr is None else np.zeros_like(wr)
    dbh = np.zeros(wh.shape[0], dtype=x.dtype)
    lo, hi = clip
    for t, step in reversed(cache):
        dh = dh + dout[t]
        if mode == "lstm":
            hp, cp, i, f, gg, o, tc, raw, m = step
            if wr is not None:                # through the projection
                dwr += dh.T @ m
                dh = dh @ wr
            do = dh * tc
            dcc = dc + dh * o * (1.0 - tc * tc)
            if lo is not None or hi is not None:
                inside = np.ones(raw.shape, dtype=bool)
                if lo is not None:
                    inside &= raw >= lo
                if hi is not None:
                    inside &= raw <= hi
                dcc = dcc * inside
            dpre = np.concatenate([dcc * gg * i * (1 - i), dcc * cp * f * (1 - f),
                                   dcc * i * (1 - gg * gg), do * o * (1 - o)], axis=1)
            dc = dcc * f
            dhpre = dpre
            dh = np.zeros(hp.shape, dtype=dh.dtype)
        elif mode == "gru":
            hp, r, z, n, hn = step
            dn = dh * (1.0 - z) * (1.0 - n * n)
            dz = dh * (hp - n) * z * (1.0 - z)
            dr = dn * hn * r * (1.0 - r)
            dpre = np.concatenate([dr, dz, dn], axis=1)
            dhpre = np.concatenate([dr, dz, dn * r], axis=1)
            dh = dh * z
        else:
            hp, h = step
            dpre = dh * ((h > 0) if mode == "rnn_relu" else (1.0 - h * h))
            dhpre = dpre
            dh = np.zeros_like(dh)
        dxpre[t] = dpre
        dwh += dhpre.T @ hp
        dbh += dhpre.sum(axis=0)
        dh = dh + dhpre @ wh
    flat = dxpre.reshape(-1, wx.shape[0])
    dwx = flat.T @ x.reshape(-1, x.shape[2])
    dx = (flat @ wx).reshape(x.shape)
    return dx, dh, dc, [dwx, dwh, flat.sum(axis=0), dbh, dwr]


def _forward(data, parameters, state, state_cell, state_size, num_layers, bidirectional,
             mode, clip, keep, projection_size=None):
    steps, n, c, h, layers, dirs, g = _geometry(data.shape, state_size, num_layers,
                                                bidirectional, mode)
    weights = _unpack(parameters, c, h, layers, dirs, g, _projection(projection_size, mode))
    x = data
    hy = np.empty_like(state)
    cy = np.empty_like(state_cell) if mode == "lstm" else None
    trail = []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            c0 = state_cell[k] if mode == "lstm" else None
            out, hk, ck, cache = _run_direction(x, state[k], c0, weights[k], mode, d == 1,
                                                clip, keep)
            hy[k] = hk
            if cy is not None:
                cy[k] = ck
            outs.append(out)
            trail.append((x, cache))
        x = outs[0] if dirs == 1 else np.concatenate(outs, axis=2)
    return x, hy, cy, weights, trail


def _clip_bounds(lstm_state_clip_min, lstm_state_clip_max):
    lo = None if lstm_state_clip_min is None else float(lstm_state_clip_min)
    hi = None if lstm_state_clip_max is None else float(lstm_state_clip_max)
    return lo, hi


def _check_supported(use_sequence_length):
    if _bool(use_sequence_length):
        raise ValueError("RNN: use_sequence_length=True is not supported (pad the "
                         "sequences to one length)")


def _rnn(data, parameters, state, state_cell=None, state_size=None, num_layers=1,
         bidirectional=False, mode=None, p=0.0, state_outputs=False, projection_size=None,
         lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
         use_sequence_length=False):
    _check_supported(use_sequence_length)
    out, hy, cy, _, _ = _forward(data, parameters, state, state_cell, state_size,
                                 num_layers, bidirectional, mode,
                                 _clip_bounds(lstm_state_clip_min, lstm_state_clip_max),
                                 False, projection_size)
    if not _bool(state_outputs):
        return out
    return (out, hy, cy) if mode == "lstm" else (out, hy)


def _rnn_grad(ograds, inputs, outputs, state_size=None, num_layers=1, bidirectional=False,
              mode=None, state_outputs=False, lstm_state_clip_min=None,
              lstm_state_clip_max=None, projection_size=None, **_):
    data, parameters, state = inputs[:3]
    state_cell = inputs[3] if mode == "lstm" else None
    clip = _clip_bounds(lstm_state_clip_min, lstm_state_clip_max)
    _, _, weights, trail = _forward(data, parameters, state, state_cell, state_size,
                                    num_layers, bidirectional, mode, clip, True,
                                    projection_size)[1:]
    steps, n, c, h, layers, dirs, g = _geometry(data.shape, state_size, num_layers,
                                                bidirectional, mode)
    r = _projection(projection_size, mode) or h     # per-direction output size

    def og(i, like):
        if i < len(ograds) and ograds[i] is not None:
            return ograds[i]
        return np.zeros_like(like)

    dout = ograds[0] if ograds[0] is not None else np.zeros_like(outputs[0])
    dhy = og(1, state) if _bool(state_outputs) else np.zeros_like(state)
    dcy = (og(2, state_cell) if _bool(state_outputs) else np.zeros_like(state_cell)) \
        if mode == "lstm" else None
    dstate = np.zeros_like(state)
    dcell = np.zeros_like(state_cell) if mode == "lstm" else None
    dweights = [None] * (layers * dirs)
    for layer in range(layers - 1, -1, -1):
        dx_total = None
        for d in range(dirs):
            k = layer * dirs + d
            x, cache = trail[k]
            dslice = dout[:, :, d * r:(d + 1) * r] if dirs == 2 else dout
            dc0 = dcy[k] if dcy is not None else None
            dx, dh0, dc0, dw = _back_direction(x, dslice, dhy[k], dc0, weights[k], mode,
                                               cache, clip)
            dstate[k] = dh0
            if dcell is not None:
                dcell[k] = dc0
            dweights[k] = dw
            dx_total = dx if dx_total is None else dx_total + dx
        dout = dx_total
    flat = [v.ravel() for w in dweights for v in (w[0], w[1], w[4]) if v is not None] + \
        [v for w in dweights for v in (w[2], w[3])]
    grads = [_as(data, dout), _as(parameters, np.concatenate(flat)), _as(state, dstate)]
    if mode == "lstm":
        grads.append(_as(state, dcell))
    return grads


def _arg_shapes(dshape, state_size, num_layers, bidirectional, mode, projection_size=None):
    steps, n, c, h, layers, dirs, g = _geometry(dshape, state_size, num_layers,
                                                bidirectional, mode)
    p = _projection(projection_size, mode)
    shapes = [tuple(dshape), (param_size(c, h, layers, dirs == 2, mode, p),),
              (layers * dirs, n, p or h)]
    return shapes + [(layers * dirs, n, h)] if mode == "lstm" else shapes


def _rnn_infer(in_shapes, in_dtypes, state_size=None, num_layers=1, bidirectional=False,
               mode=None, state_outputs=False, projection_size=None,
               use_sequence_length=False, **_):
    _check_supported(use_sequence_length)
    expected = _arg_shapes(in_shapes[0], state_size, num_layers, bidirectional, mode,
                           projection_size)
    names = ("parameters", "state", "state_cell")
    _check_arg_shapes("RNN", names, in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])}, state_size={state_size}, "
                      f"num_layers={num_layers}, mode={mode!r}")
    steps, n, _, h, layers, dirs, _ = _geometry(in_shapes[0], state_size, num_layers,
                                                bidirectional, mode)
    shapes = [(steps, n, dirs * (_projection(projection_size, mode) or h))]
    if _bool(state_outputs):
        shapes += expected[2:]
    return shapes, [in_dtypes[0]] * len(shapes)


def _rnn_infer_args(in_shapes, state_size=None, num_layers=1, bidirectional=False,
                    mode=None, projection_size=None, **_):
    if in_shapes[0] is None:
        raise ValueError("RNN: the data shape is needed to infer the parameter and state "
                         "shapes")
    expected = _arg_shapes(in_shapes[0], state_size, num_layers, bidirectional, mode,
                           projection_size)
    return expected[:len(in_shapes)]


def _rnn_outputs(params):
    if not _bool(params.get("state_outputs")):
        return 1
    return 3 if params.get("mode") == "lstm" else 2


def _rnn_cost(in_shapes, state_size=None, num_layers=1, bidirectional=False, mode=None,
              projection_size=None, **_):
    steps, n, c, h, layers, dirs, g = _geometry(in_shapes[0], state_size, num_layers,
                                                bidirectional, mode)
    return steps * n * param_size(c, h, layers, dirs == 2, mode, projection_size)


defop("RNN", _rnn, arg_names=("data", "parameters", "state", "state_cell"),
      infer=_rnn_infer, infer_args=_rnn_infer_args, grad=_rnn_grad, cost=_rnn_cost,
      num_outputs=_rnn_outputs, output_names=("output", "state", "state_cell"),
      params={"state_size": None, "num_layers": 1, "bidirectional": False, "mode": None,
              "p": 0.0, "state_outputs": False, "projection_size": None,
              "lstm_state_clip_min": None, "lstm_state_clip_max": None,
              "lstm_state_clip_nan": False, "use_sequence_length": False})
_ACTIVE["RNN"] = lambda p: (("data", "parameters", "state", "state_cell")
                            if p.get("mode") == "lstm" else ("data", "parameters", "state"))
