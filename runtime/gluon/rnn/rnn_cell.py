"""Recurrent cells: one time step per call, ``unroll`` for a whole sequence.

``cell(x, states)`` returns ``(output, new_states)``; ``state_info(batch)`` describes the
states and ``begin_state(batch)`` makes them (zeros by default). Cells compose:
``SequentialRNNCell`` stacks them, ``BidirectionalCell`` runs two over a sequence in
opposite directions (unroll only), ``DropoutCell``, ``ResidualCell`` and ``ZoneoutCell``
modify another cell. The same code runs on NDArrays and Symbols; a hybridized cell runs
its steps imperatively (each step is a handful of operators; the fused layers in
:mod:`.rnn_layer` are the fast path).
"""
from ... import ndarray as _ndarray
from ...ndarray import ndarray as _nd
from ..block import Block, HybridBlock
from ..parameter import DeferredInitializationError

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "BidirectionalCell",
           "DropoutCell", "ModifierCell", "ResidualCell", "ZoneoutCell"]


def _namespace(x):
    from ... import symbol
    return _ndarray if isinstance(x, _nd.NDArray) else symbol


def _format_sequence(length, inputs, layout, merge):
    """(inputs as a list of steps or one tensor, time axis, F, batch size)."""
    axis, batch_axis = layout.find("T"), layout.find("N")
    if axis < 0 or batch_axis < 0:
        raise ValueError(f"unroll: layout={layout!r} must contain 'T' and 'N'")
    if isinstance(inputs, (list, tuple)):
        if length is not None and len(inputs) != length:
            raise ValueError(f"unroll: {len(inputs)} inputs for length={length}")
        F = _namespace(inputs[0])
        batch = inputs[0].shape[0] if F is _ndarray else 0
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
        return inputs, axis, F, batch
    F = _namespace(inputs)
    batch = inputs.shape[batch_axis] if F is _ndarray else 0
    if merge is False:
        if F is _ndarray and length is not None and inputs.shape[axis] != length:
            raise ValueError(f"unroll: input has {inputs.shape[axis]} steps on axis "
                             f"{axis}, length={length}")
        steps = [F.squeeze(F.slice_axis(inputs, axis=axis, begin=t, end=t + 1), axis=axis)
                 for t in range(length)]
        return steps, axis, F, batch
    return inputs, axis, F, batch


def _begin(cell, F, begin_state, inputs, batch, axis):
    """The states to start from: the caller's, else zeros. A symbolic batch size is not
    known when the graph is built, so symbolic zero states are shaped from the first
    step's input (0 in ``broadcast_to``'s shape keeps that dimension)."""
    if begin_state is not None:
        return list(begin_state)
    if F is _ndarray:
        first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        return cell.begin_state(batch_size=batch, func=_ndarray.zeros, ctx=first.context,
                                dtype=first.dtype)
    if isinstance(inputs, (list, tuple)):
        first = inputs[0]
    else:
        first = F.squeeze(F.slice_axis(inputs, axis=axis, begin=0, end=1), axis=axis)
    column = F.zeros_like(F.slice_axis(first, axis=1, begin=0, end=1))
    return [F.broadcast_to(column, shape=info["shape"]) for info in cell.state_info(0)]


# -- variable lengths (``unroll(valid_length=...)``) ------------------------------------------
# Written with elementwise operators only, so one code path serves NDArrays and Symbols:
# a (N, 1) mask per step from the lengths (N,), as MXNet's SequenceMask/SequenceLast/
# SequenceReverse compute them.
def _step_mask(F, valid_length, t, equal=False):
    """(N, 1): 1 where step ``t`` is inside the sequence (``equal``: is its last step)."""
    cond = (valid_length == t + 1) if equal else (valid_length > t)
    return F.expand_dims(cond, axis=1)


def _mask_steps(F, steps, valid_length):
    """Each step's rows zeroed past their sequence's length."""
    return [F.broadcast_mul(x, _step_mask(F, valid_length, t)) for t, x in enumerate(steps)]


def _last_states(F, per_step, valid_length):
    """Each state at its sequence's last step: ``per_step[t]`` is the states after t."""
    out = []
    for k in range(len(per_step[0])):
        acc = None
        for t, states in enumerate(per_step):
            term = F.broadcast_mul(states[k], _step_mask(F, valid_length, t, equal=True))
            acc = term if acc is None else acc + term
        out.append(acc)
    return out


def _reverse_steps(F, steps, valid_length):
    """Each sequence's first ``valid_length`` steps in reverse order, the padding after
    them kept in place (step t of row n is ``steps[L_n - 1 - t]`` for t < L_n)."""
    n = len(steps)
    out = []
    for t in range(n):
        acc = F.broadcast_mul(steps[t], 1 - _step_mask(F, valid_length, t))
        for src in range(n - t):
            hit = F.expand_dims(valid_length == src + t + 1, axis=1)
            acc = acc + F.broadcast_mul(steps[src], hit)
        out.append(acc)
    return out


class RecurrentCell(Block):
    """Base of the cells: ``state_info``, ``begin_state``, ``unroll``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the state-name counter (before unrolling a new graph)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            if isinstance(cell, RecurrentCell):
                cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError(f"{type(self).__name__} must define state_info()")

    def begin_state(self, batch_size=0, func=_ndarray.zeros, **kwargs):
        """Initial states made by ``func`` (``mx.nd.zeros`` by default)."""
        if self._modified:
            raise ValueError(f"{self.name}: a modifier cell wraps this cell; call "
                             f"begin_state on the modifier")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.update(kwargs)
            states.append(func(name=f"{self.prefix}begin_state_{self._init_counter}",
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run the cell over ``length`` steps: ``(outputs, states)``; outputs are a list
        of steps, or one tensor in ``layout`` when ``merge_outputs`` is True."""
        self.reset()
        steps, axis, F, batch = _format_sequence(length, inputs, layout, False)
        states = _begin(self, F, begin_state, steps, batch, axis)
        outputs, per_step = [], []
        for t in range(length):
            out, states = self(steps[t], states)
            outputs.append(out)
            per_step.append(states)
        if valid_length is not None:   # outputs zero past each length, its states there
            outputs = _mask_steps(F, outputs, valid_length)
            states = _last_states(F, per_step, valid_length)
            if merge_outputs is None:  # as MXNet: masked outputs come merged
                merge_outputs = True
        outputs = _format_sequence(length, outputs, layout, merge_outputs)[0]
        return outputs, states

    def _get_activation(self, F, x, activation, **kwargs):
        if isinstance(activation, str):
            if activation in ("tanh", "relu", "sigmoid", "softsign"):
                return getattr(F, activation)(x, **kwargs)
            return F.Activation(x, act_type=activation, **kwargs)
        return activation(x, **kwargs)

    def _step_name(self, what):
        """``t<step>_<what>``: MXNet's names of a step's outputs (``rnn_t0_out``)."""
        return f"t{self._counter}_{what}"

    def forward(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell written once for NDArrays and Symbols with ``hybrid_forward``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def infer_shape(self, inputs, states):
        if hasattr(self, "i2h_weight"):
            self.i2h_weight.shape = (self.i2h_weight.shape[0], inputs.shape[1])

    def forward(self, inputs, states):
        self._counter += 1
        if isinstance(inputs, _nd.NDArray):
            reg = self._reg_params
            try:
                params = {k: p.data() for k, p in reg.items()}
            except DeferredInitializationError:
                self._finish_deferred((inputs, states))
                params = {k: p.data() for k, p in reg.items()}
            return self.hybrid_forward(_ndarray, inputs, states, **params)
        return HybridBlock.forward(self, inputs, states)

    def hybrid_forward(self, F, inputs, states, **params):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward()")


class _GatedCell(HybridRecurrentCell):
    """The four parameters of RNN/LSTM/GRU cells, ``gates * hidden`` rows each."""

    def __init__(self, hidden_size, gates, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = int(hidden_size)
        self._input_size = int(input_size)
        n = gates * self._hidden_size
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=(n, self._input_size),
                              init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=(n, self._hidden_size),
                              init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(n,), init=i2h_bias_initializer,
                            allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(n,), init=h2h_bias_initializer,
                            allow_deferred_init=True)
        self._gates = gates

    def state_info(self, batch_size=0):
        n = 2 if isinstance(self, LSTMCell) else 1
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
                for _ in range(n)]

    def _projections(self, F, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        n = self._gates * self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n)
        h2h = F.FullyConnected(h, h2h_weight, h2h_bias, num_hidden=n)
        return i2h, h2h

    def _gate(self, F, x, k):
        H = self._hidden_size
        return F.slice_axis(x, axis=1, begin=k * H, end=(k + 1) * H)

    def __repr__(self):
        shape = self.i2h_weight.shape
        return f"{type(self).__name__}({shape[1] or None} -> {shape[0]})"


class RNNCell(_GatedCell):
    """Elman cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, 1, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix,
                         params)
        self._activation = activation

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, **w):
        i2h, h2h = self._projections(F, inputs, states[0], **w)
        out = self._get_activation(F, i2h + h2h, self._activation,
                                   name=self._step_name("out"))
        return out, [out]


class _TwoActivationCell(_GatedCell):
    """LSTM and GRU cells: the same signature, ``GATES`` and alias from the class."""

    GATES = ALIAS = None

    def __init__(self, hidden_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, self.GATES, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return self.ALIAS


class LSTMCell(_TwoActivationCell):
    """LSTM cell, gates i, f, g, o; states ``[h, c]``."""

    GATES, ALIAS = 4, "lstm"

    def hybrid_forward(self, F, inputs, states, **w):
        i2h, h2h = self._projections(F, inputs, states[0], **w)
        gates = i2h + h2h
        rec = self._recurrent_activation
        i = self._get_activation(F, self._gate(F, gates, 0), rec)
        f = self._get_activation(F, self._gate(F, gates, 1), rec)
        g = self._get_activation(F, self._gate(F, gates, 2), self._activation)
        o = self._get_activation(F, self._gate(F, gates, 3), rec)
        c = F.elemwise_add(f * states[1], i * g, name=self._step_name("state"))
        h = F.elemwise_mul(o, self._get_activation(F, c, self._activation),
                           name=self._step_name("out"))
        return h, [h, c]


class GRUCell(_TwoActivationCell):
    """GRU cell, gates r, z, n: ``h' = (1 - z) * n + z * h``."""

    GATES, ALIAS = 3, "gru"

    def hybrid_forward(self, F, inputs, states, **w):
        h = states[0]
        i2h, h2h = self._projections(F, inputs, h, **w)
        rec = self._recurrent_activation
        r = self._get_activation(F, self._gate(F, i2h, 0) + self._gate(F, h2h, 0), rec)
        z = self._get_activation(F, self._gate(F, i2h, 1) + self._gate(F, h2h, 1), rec)
        n = self._get_activation(F, self._gate(F, i2h, 2) + r * self._gate(F, h2h, 2),
                                 self._activation)
        out = F.elemwise_add((1 - z) * n, z * h, name=self._step_name("out"))
        return out, [out]


class _Stack:
    """What the two sequential cells share: states split between the children."""

    def add(self, cell):
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, **kwargs):
        if self._modified:
            raise ValueError(f"{self.name}: a modifier cell wraps this cell")
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def _step(self, inputs, states):
        p, out_states = 0, []
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise ValueError("BidirectionalCell cannot be stepped; use unroll")
            n = len(cell.state_info())
            inputs, st = cell(inputs, states[p:p + n])
            p += n
            out_states.extend(st)
        return inputs, out_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        steps, axis, F, batch = _format_sequence(length, inputs, layout, None)
        states = _begin(self, F, begin_state, steps, batch, axis)
        cells = list(self._children.values())
        p, out_states = 0, []
        for k, cell in enumerate(cells):
            n = len(cell.state_info())
            steps, st = cell.unroll(length, steps, begin_state=states[p:p + n],
                                    layout=layout,
                                    merge_outputs=None if k < len(cells) - 1
                                    else merge_outputs, valid_length=valid_length)
            p += n
            out_states.extend(st)
        return steps, out_states

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_Stack, RecurrentCell):
    """Cells stacked: each step's output feeds the next cell."""

    def forward(self, inputs, states):
        return self._step(inputs, states)


class HybridSequentialRNNCell(_Stack, HybridRecurrentCell):
    """Hybrid cells stacked."""

    def infer_shape(self, inputs, states):
        pass   # the children infer their own

    def forward(self, inputs, states):
        return self._step(inputs, states)


class BidirectionalCell(HybridRecurrentCell):
    """Two cells over a sequence, one reversed; step outputs concatenated
    (``unroll`` only)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise ValueError("BidirectionalCell cannot be stepped; use unroll")

    def state_info(self, batch_size=0):
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, **kwargs):
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        steps, axis, F, batch = _format_sequence(length, inputs, layout, False)
        states = _begin(self, F, begin_state, steps, batch, axis)
        l_cell, r_cell = self._children["l_cell"], self._children["r_cell"]
        n = len(l_cell.state_info(batch))
        l_out, l_st = l_cell.unroll(length, steps, states[:n], layout, False, valid_length)
        if valid_length is None:
            reverse = lambda seq: list(reversed(seq))          # noqa: E731
        else:
            reverse = lambda seq: _reverse_steps(F, seq, valid_length)   # noqa: E731
        r_out, r_st = r_cell.unroll(length, reverse(steps), states[n:], layout,
                                    False, valid_length)
        outs = [F.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{t}")
                for t, (lo, ro) in enumerate(zip(l_out, reverse(r_out)))]
        if valid_length is not None and merge_outputs is None:
            merge_outputs = True      # as the cells' own masked outputs (MXNet)
        outs = _format_sequence(length, outs, layout, merge_outputs)[0]
        return outs, l_st + r_st


class DropoutCell(HybridRecurrentCell):
    """Dropout on each step's input (in training); no states."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        rate = float(rate)
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"DropoutCell: rate={rate} must be in [0, 1]")
        self._rate, self._axes = rate, tuple(axes)

    def _alias(self):
        return "dropout"

    def state_info(self, batch_size=0):
        return []

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(inputs, p=self._rate, axes=self._axes)
        return inputs, states


class ModifierCell(HybridRecurrentCell):
    """A cell that wraps ``base_cell`` (sharing its parameters) and changes its step."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise ValueError(f"{base_cell.name} is already wrapped by a modifier cell")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=_ndarray.zeros, **kwargs):
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def forward(self, inputs, states):
        return self.hybrid_forward(_namespace(inputs), inputs, states)


class ResidualCell(ModifierCell):
    """Adds each step's input to the base cell's output."""

    def _alias(self):
        return "residual"

    def hybrid_forward(self, F, inputs, states):
        out, states = self.base_cell(inputs, states)
        return out + inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """The base cell's unroll (a BidirectionalCell too), plus the inputs."""
        self.reset()
        self.base_cell._modified = False
        try:
            outs, states = self.base_cell.unroll(length, inputs, begin_state, layout,
                                                 False, valid_length)
        finally:
            self.base_cell._modified = True
        steps, _, F, _ = _format_sequence(length, inputs, layout, False)
        outs = [o + x for o, x in zip(outs, steps)]
        if valid_length is not None:      # the padding stays zero
            outs = _mask_steps(F, outs, valid_length)
            merge_outputs = True if merge_outputs is None else merge_outputs
        return _format_sequence(length, outs, layout, merge_outputs)[0], states


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output and state unit keeps its previous value with
    probability ``zoneout_outputs`` / ``zoneout_states``."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError("ZoneoutCell cannot wrap a BidirectionalCell")
        super().__init__(base_cell)
        self.zoneout_outputs = float(zoneout_outputs)
        self.zoneout_states = float(zoneout_states)
        self._prev_output = None

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        out, new_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            return F.Dropout(F.ones_like(like), p=p)
        prev = self._prev_output if self._prev_output is not None else F.zeros_like(out)
        if self.zoneout_outputs:
            out = F.where(keep_new(self.zoneout_outputs, out), out, prev)
        if self.zoneout_states:
            new_states = [F.where(keep_new(self.zoneout_states, n), n, o)
                          for n, o in zip(new_states, states)]
        self._prev_output = out
        return out, new_states
