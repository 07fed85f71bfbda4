"""Fused recurrent layers ``RNN``, ``LSTM``, ``GRU``: one ``RNN`` operator call per
forward, over parameters named ``l0_i2h_weight``... (``r0_`` for the backward
direction) and packed into MXNet 1.x's flat vector at each call.

``layer(x)`` returns the output; ``layer(x, states)`` returns ``(output, states)``.
States are ``(num_layers * directions, batch, hidden)`` arrays (two for LSTM).
Hybridized, the layer runs through the executor like any HybridBlock: the states are
passed to the graph as inputs (zeros from ``begin_state`` when the caller gave none).
"""
from ... import ndarray as _ndarray
from ...ndarray import ndarray as _nd
from ...ops.rnn import GATES
from ..block import HybridBlock

__all__ = ["RNN", "LSTM", "GRU"]


class _RNNLayer(HybridBlock):
    """What the three layers share: parameters, states, the fused call."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional,
                 input_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, mode, dtype="float32",
                 projection_size=None, lstm_state_clip_min=None, lstm_state_clip_max=None,
                 lstm_state_clip_nan=False, use_sequence_length=False,
                 h2r_weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"{type(self).__name__}: layout={layout!r} must be 'TNC' or "
                             f"'NTC'")
        if projection_size and mode != "lstm":
            raise ValueError(f"{type(self).__name__}: projection_size={projection_size!r} "
                             "needs an LSTM")
        # LSTMP: h is projected from H to P values by h2r_weight (P, H)
        self._projection = int(projection_size or 0)
        if use_sequence_length:
            raise ValueError(f"{type(self).__name__}: use_sequence_length=True is not "
                             f"supported")
        self._hidden_size = int(hidden_size)
        self._num_layers = int(num_layers)
        self._mode = mode
        self._layout = layout
        self._dropout = float(dropout)
        self._dir = 2 if bidirectional else 1
        self._input_size = int(input_size)
        self._gates = GATES[mode]
        self._clip = (lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan)
        self._dtype = dtype
        ng, ni, nh = self._gates, self._input_size, self._hidden_size
        nr = self._projection or nh           # the size of h
        inits = {"i2h_weight": i2h_weight_initializer, "h2h_weight": h2h_weight_initializer,
                 "i2h_bias": i2h_bias_initializer, "h2h_bias": h2h_bias_initializer,
                 "h2r_weight": h2r_weight_initializer}
        self._inits = {f"{k}_initializer": v for k, v in inits.items() if k != "h2r_weight"}
        with self.name_scope():
            for i in range(self._num_layers):
                for j in "lr"[:self._dir]:
                    shapes = {"i2h_weight": (ng * nh, ni), "h2h_weight": (ng * nh, nr),
                              "i2h_bias": (ng * nh,), "h2h_bias": (ng * nh,)}
                    if self._projection:
                        shapes["h2r_weight"] = (self._projection, nh)
                    for what, shape in shapes.items():
                        name = f"{j}{i}_{what}"
                        setattr(self, name, self.params.get(
                            name, shape=shape, init=inits[what], allow_deferred_init=True,
                            dtype=dtype))
                ni = nr * self._dir

    def _param_order(self):
        """Names in the fused vector's order: weights, then biases; layer, direction,
        i2h before h2h."""
        groups = ("i2h", "h2h", "h2r") if self._projection else ("i2h", "h2h")
        return [f"{d}{layer}_{g}_{t}" for t in ("weight", "bias")
                for layer in range(self._num_layers) for d in "lr"[:self._dir]
                for g in groups if g != "h2r" or t == "weight"]

    def __repr__(self):
        shape = self.l0_i2h_weight.shape
        s = f"{type(self).__name__}({shape[1] or None} -> {shape[0] // self._gates}, " \
            f"{self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"

    def _unfuse(self):
        """The same network as a stack of cells sharing this layer's parameters
        (``l0_`` cells, ``BidirectionalCell`` pairs, ``DropoutCell`` between layers)."""
        from . import rnn_cell
        if self._projection:
            raise ValueError(f"{self.name}: _unfuse does not support projection_size; "
                             "stack gluon.contrib.rnn.LSTMPCell cells")
        if self._clip[0] is not None or self._clip[1] is not None:
            raise ValueError(f"{self.name}: _unfuse does not support LSTM state clipping")
        make = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(self._hidden_size, "relu", **kw),
                "rnn_tanh": lambda **kw: rnn_cell.RNNCell(self._hidden_size, "tanh", **kw),
                "lstm": lambda **kw: rnn_cell.LSTMCell(self._hidden_size, **kw),
                "gru": lambda **kw: rnn_cell.GRUCell(self._hidden_size, **kw)}[self._mode]
        inits = self._inits
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kw = dict(inits, input_size=ni)
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make(prefix=f"l{i}_", **kw),
                                                         make(prefix=f"r{i}_", **kw)))
                else:
                    stack.add(make(prefix=f"l{i}_", **kw))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def state_info(self, batch_size=0):
        n = self._num_layers * self._dir
        sizes = [self._projection or self._hidden_size]        # h
        if self._mode == "lstm":
            sizes.append(self._hidden_size)                     # c
        return [{"shape": (n, batch_size, size), "__layout__": "LNC", "dtype": self._dtype}
                for size in sizes]

    def begin_state(self, batch_size=0, func=_ndarray.zeros, **kwargs):
        """Initial states (zeros by default) for a batch of ``batch_size``."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info.update(kwargs)
            states.append(func(name=f"{self.prefix}h0_{i}", **info))
        return states

    def __call__(self, inputs, *states, **kwargs):
        # layer(x), layer(x, [h, c]), layer(x, h) and, from the hybrid graph builder,
        # layer(x, h, c)
        if "states" in kwargs:
            states = (kwargs.pop("states"),)
        if kwargs.pop("sequence_length", None) is not None:
            raise ValueError(f"{self.name}: sequence_length is not supported")
        states = states[0] if len(states) == 1 else (list(states) or None)
        skip = states is None
        if skip and isinstance(inputs, _nd.NDArray):
            batch = inputs.shape[self._layout.find("N")]
            states = self.begin_state(batch, ctx=inputs.context, dtype=inputs.dtype)
        elif skip:
            states = self._symbol_zero_states(inputs)
        if not isinstance(states, (list, tuple)):
            states = [states]
        if isinstance(inputs, _nd.NDArray) and not self.l0_i2h_weight.shape[1]:
            self._finish_deferred((inputs,) + tuple(states))   # the graph cannot say
        out = super().__call__(inputs, *states, **kwargs)
        return out[0] if skip else out

    def _symbol_zero_states(self, inputs):
        """Zero states for a symbolic input, whose batch size the graph does not know
        yet: a (1, N, 1) slice of the input broadcast to (layers*dirs, N, hidden)."""
        from ... import symbol as F
        col = F.slice_axis(inputs, axis=self._layout.find("T"), begin=0, end=1)
        col = F.zeros_like(F.slice_axis(col, axis=2, begin=0, end=1))
        if self._layout == "NTC":
            col = F.swapaxes(col, dim1=0, dim2=1)
        return [F.broadcast_to(col, shape=info["shape"]) for info in self.state_info(0)]

    def infer_shape(self, inputs, *states):
        ni = inputs.shape[self._layout.find("C")]
        for j in "lr"[:self._dir]:
            getattr(self, f"{j}0_i2h_weight").shape = (self._gates * self._hidden_size, ni)

    def hybrid_forward(self, F, inputs, *states, **params):
        if isinstance(inputs, _nd.NDArray):
            batch = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch)):
                if state.shape != info["shape"]:
                    raise ValueError(f"{self.name}: recurrent state has shape "
                                     f"{state.shape}, expected {info['shape']}")
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        flat = F.concat(*[params[n].reshape((-1,)) for n in self._param_order()], dim=0)
        lo, hi, nan = self._clip
        rnn = F.RNN(inputs, flat, *states, state_size=self._hidden_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    projection_size=self._projection or None,
                    lstm_state_clip_min=lo, lstm_state_clip_max=hi,
                    lstm_state_clip_nan=nan)
        outputs = rnn[0]
        states = [rnn[k] for k in range(1, 3 if self._mode == "lstm" else 2)]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states



class RNN(_RNNLayer):
    """Elman RNN (``activation`` 'relu' or 'tanh') over a whole sequence."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC",
                 dropout=0, bidirectional=False, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, **kwargs):
        if activation not in ("relu", "tanh"):
            raise ValueError(f"RNN: activation={activation!r} must be 'relu' or 'tanh'")
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional,
                         input_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         **kwargs)


class _GatedLayer(_RNNLayer):
    """LSTM and GRU: the same signature, the mode their class says."""

    MODE = None

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0,
                 bidirectional=False, input_size=0, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional,
                         input_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, self.MODE, **kwargs)


class LSTM(_GatedLayer):
    """Long short-term memory over a whole sequence; states are ``[h, c]``."""

    MODE = "lstm"


class GRU(_GatedLayer):
    """Gated recurrent unit over a whole sequence."""

    MODE = "gru"
