"""``mx.gluon.contrib.rnn`` (MXNet 1.x): ``VariationalDropoutCell`` (dropout whose mask
is drawn once per sequence and reused at every step, on the inputs, the states and the
outputs of a base cell) and ``LSTMPCell`` (an LSTM cell with a projected state)."""
from ..rnn.rnn_cell import BidirectionalCell, HybridRecurrentCell, ModifierCell

__all__ = ["VariationalDropoutCell", "LSTMPCell"]


class VariationalDropoutCell(ModifierCell):
    """``VariationalDropoutCell(base_cell, drop_inputs=0., drop_states=0.,
    drop_outputs=0.)``: each rate's mask (operator ``Dropout`` on ones) is made at the
    first step of an unroll and kept until ``reset``; in predict mode Dropout passes
    everything, as the other dropout layers do."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError("VariationalDropoutCell cannot wrap a BidirectionalCell; wrap "
                             "its two cells")
        for name, rate in (("drop_inputs", drop_inputs), ("drop_states", drop_states),
                           ("drop_outputs", drop_outputs)):
            if not 0.0 <= float(rate) < 1.0:
                raise ValueError(f"VariationalDropoutCell: {name}={rate} must be in [0, 1)")
        super().__init__(base_cell)
        self.drop_inputs = float(drop_inputs)
        self.drop_states = float(drop_states)
        self.drop_outputs = float(drop_outputs)
        self._masks = {}

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._masks = {}

    def _apply(self, F, what, rate, x):
        if not rate:
            return x
        mask = self._masks.get(what)
        if mask is None:
            mask = self._masks[what] = F.Dropout(F.ones_like(x), p=rate)
        return x * mask

    def hybrid_forward(self, F, inputs, states):
        inputs = self._apply(F, "inputs", self.drop_inputs, inputs)
        if self.drop_states:
            states = [self._apply(F, f"state{k}", self.drop_states, s) if k == 0 else s
                      for k, s in enumerate(states)]
        out, states = self.base_cell(inputs, states)
        return self._apply(F, "outputs", self.drop_outputs, out), states


class LSTMPCell(HybridRecurrentCell):
    """LSTM cell with a projected state (MXNet's ``contrib.rnn.LSTMPCell``): gates from
    ``i2h`` (4H, in) and ``h2h`` (4H, P); the output and next ``h`` are
    ``h2r_weight`` (P, H) times ``o * tanh(c)``; states ``[h (N, P), c (N, H)]``. The
    same parameters as ``gluon.rnn.LSTM(hidden_size, projection_size=P)``'s layers."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = int(hidden_size)
        self._projection_size = int(projection_size)
        if self._hidden_size < 1 or self._projection_size < 1:
            raise ValueError(f"LSTMPCell: hidden_size={hidden_size} and projection_size="
                             f"{projection_size} must be positive")
        n, p = 4 * self._hidden_size, self._projection_size
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=(n, int(input_size)),
                              init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=(n, p), init=h2h_weight_initializer,
                              allow_deferred_init=True)
        self.h2r_weight = get("h2r_weight", shape=(p, self._hidden_size),
                              init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(n,), init=i2h_bias_initializer,
                            allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(n,), init=h2h_bias_initializer,
                            allow_deferred_init=True)

    def _alias(self):
        return "lstmp"

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight,
                       i2h_bias, h2h_bias):
        n, hsz = 4 * self._hidden_size, self._hidden_size
        gates = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n) + \
            F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=n)

        def gate(k):
            return F.slice_axis(gates, axis=1, begin=k * hsz, end=(k + 1) * hsz)
        i, f, o = F.sigmoid(gate(0)), F.sigmoid(gate(1)), F.sigmoid(gate(3))
        c = f * states[1] + i * F.tanh(gate(2))
        h = F.FullyConnected(o * F.tanh(c), h2r_weight, no_bias=True,
                             num_hidden=self._projection_size)
        return h, [h, c]
