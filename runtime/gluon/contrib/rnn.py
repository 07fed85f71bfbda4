"""``mx.gluon.contrib.rnn``: ``VariationalDropoutCell`` (MXNet 1.x): dropout whose mask
is drawn once per sequence and reused at every step, on the inputs, the states and the
outputs of a base cell."""
from ..rnn.rnn_cell import BidirectionalCell, ModifierCell

__all__ = ["VariationalDropoutCell"]


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
