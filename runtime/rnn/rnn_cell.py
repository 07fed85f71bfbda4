"""Legacy symbolic cells (``mx.rnn.LSTMCell``...): each call adds one step to a
``mx.sym`` graph; ``unroll`` adds a sequence; ``FusedRNNCell`` is one ``RNN`` node.

Each step is the operators MXNet 1.9.1's cells add (``FullyConnected`` i2h and h2h,
``SliceChannel`` for the gates, ``Activation``, ``elemwise_add``/``_mul``), a sequence is
split with ``SliceChannel`` and merged with ``expand_dims`` + ``Concat``, so a profile
of an unrolled network names MXNet's operators; the zero begin states are made from the
first step (``zeros_like``/``broadcast_to``: xprof's shape inference does not fill a
``zeros(shape=(0, H))`` from its consumers, as MXNet's does).
Weights are variables named ``<prefix>i2h_weight``... (gates stacked);
``unpack_weights``/``pack_weights`` convert between that and one array per gate
(``<prefix>i2h_i_weight``), and a ``FusedRNNCell``'s flat vector unpacks into the
same per-gate names (``l0_i2h_i_weight``), so fused and stacked cells exchange
weights as in MXNet.
"""
from .. import ndarray as _nd
from .. import symbol as _sym
from ..gluon.rnn.rnn_cell import _format_sequence
from ..initializer import FusedRNN
from ..ops.rnn import GATES, GATE_NAMES, packed_layout, packed_num_input

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "BidirectionalCell", "DropoutCell"]


def _zero_states(cell, steps, axis):
    """Zero begin states shaped from the first step (the batch size is not known when
    the graph is built): a (N, 1) column broadcast to each state's shape, 0 keeping N."""
    first = steps[0] if isinstance(steps, (list, tuple)) else \
        _sym.squeeze(_sym.slice_axis(steps, axis=axis, begin=0, end=1), axis=axis)
    column = _sym.zeros_like(_sym.slice_axis(first, axis=1, begin=0, end=1))
    out = []
    for info in cell.state_info:
        shape = info["shape"]
        col = column if len(shape) == 2 else _sym.expand_dims(column, axis=0)
        out.append(_sym.broadcast_to(col, shape=shape))
    return out


class RNNParams:
    """The weight variables of a cell, created once per name (shared when passed on)."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = _sym.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """``state_info``, ``begin_state``, ``unroll``, weight (un)packing."""

    _gate_names = ()

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._prefix = prefix
        self._params = RNNParams(prefix) if params is None else params
        self._modified = False
        self.reset()

    def reset(self):
        self._init_counter = -1
        self._counter = -1

    @property
    def params(self):
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_info")

    @property
    def state_shape(self):
        return [i["shape"] for i in self.state_info]

    def begin_state(self, func=_sym.zeros, **kwargs):
        """Initial state symbols (``func`` is ``mx.sym.zeros`` by default;
        ``mx.sym.var`` makes them graph inputs)."""
        states = []
        for info in self.state_info:
            self._init_counter += 1
            kw = dict(info or {})
            kw.update(kwargs)
            if func is _sym.zeros or func is _nd.zeros:
                kw.pop("__layout__", None)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}",
                               **kw))
        return states

    def unpack_weights(self, args):
        """Stacked gate matrices -> one array per gate (``i2h_i_weight``...)."""
        args = dict(args)
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = args.pop(f"{self._prefix}{group}_weight")
            bias = args.pop(f"{self._prefix}{group}_bias")
            for j, gate in enumerate(self._gate_names):
                args[f"{self._prefix}{group}{gate}_weight"] = weight[j * h:(j + 1) * h].copy()
                args[f"{self._prefix}{group}{gate}_bias"] = bias[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The reverse of :meth:`unpack_weights`."""
        args = dict(args)
        for group in ("i2h", "h2h"):
            for what in ("weight", "bias"):
                parts = [args.pop(f"{self._prefix}{group}{gate}_{what}")
                         for gate in self._gate_names]
                args[f"{self._prefix}{group}_{what}"] = _nd.concat(*parts, dim=0)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """``length`` steps over ``inputs`` (one symbol in ``layout`` or a list):
        ``(outputs, states)``."""
        self.reset()
        steps, axis = _sequence(length, inputs, layout, False)
        states = _zero_states(self, steps, axis) if begin_state is None \
            else list(begin_state)
        outputs = []
        for t in range(length):
            out, states = self(steps[t], states)
            outputs.append(out)
        return _sequence(length, outputs, layout, merge_outputs)[0], states

    def _name(self, what):
        return f"{self._prefix}t{self._counter}_{what}"


def _sequence(length, inputs, layout, merge):
    """MXNet 1.9.1's ``_normalize_sequence``: one symbol split into ``length`` steps
    (``SliceChannel``, ``squeeze_axis``) unless ``merge`` is True; a list merged along the
    time axis (``expand_dims`` + ``Concat``) when ``merge`` is True."""
    axis = layout.find("T")
    if axis < 0 or layout.find("N") < 0:
        raise ValueError(f"unroll: layout={layout!r} must contain 'T' and 'N'")
    if isinstance(inputs, _sym.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError("unroll: a grouped symbol as input; pass list(inputs)")
            inputs = list(_sym.split(inputs, axis=axis, num_outputs=length, squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise ValueError(f"unroll: {len(inputs)} inputs for length={length}")
        if merge is True:
            inputs = _sym.Concat(*[_sym.expand_dims(i, axis=axis) for i in inputs], dim=axis)
    return inputs, axis


class _GatedCell(BaseRNNCell):
    def __init__(self, num_hidden, gates, prefix, params):
        super().__init__(prefix, params)
        self._num_hidden = int(num_hidden)
        self._gates = gates
        self._iW = self._params.get("i2h_weight")
        self._iB = self._params.get("i2h_bias")
        self._hW = self._params.get("h2h_weight")
        self._hB = self._params.get("h2h_bias")

    @property
    def state_info(self):
        n = 2 if isinstance(self, LSTMCell) else 1
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"} for _ in range(n)]

    def _projections(self, inputs, h):
        self._counter += 1
        n = self._gates * self._num_hidden
        i2h = _sym.FullyConnected(inputs, self._iW, self._iB, num_hidden=n,
                                  name=self._name("i2h"))
        h2h = _sym.FullyConnected(h, self._hW, self._hB, num_hidden=n,
                                  name=self._name("h2h"))
        return i2h, h2h

    def _gates_of(self, x, name):
        return list(_sym.SliceChannel(x, num_outputs=self._gates, name=name))


class RNNCell(_GatedCell):
    """Elman step: ``activation(W_i x + b_i + W_h h + b_h)``."""
    _gate_names = ("",)

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, 1, prefix, params)
        self._activation = activation

    def __call__(self, inputs, states):
        i2h, h2h = self._projections(inputs, states[0])
        out = _sym.Activation(i2h + h2h, act_type=self._activation, name=self._name("out"))
        return out, [out]


class LSTMCell(_GatedCell):
    """LSTM step, gates i, f, c, o; states ``[h, c]``."""
    _gate_names = ("_i", "_f", "_c", "_o")

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(num_hidden, 4, prefix, params)
        self._iB = self._params.get("i2h_bias", __init__=_lstm_bias(forget_bias))

    def __call__(self, inputs, states):
        i2h, h2h = self._projections(inputs, states[0])
        gates = self._gates_of(i2h + h2h, self._name("slice"))
        i = _sym.Activation(gates[0], act_type="sigmoid", name=self._name("i"))
        f = _sym.Activation(gates[1], act_type="sigmoid", name=self._name("f"))
        g = _sym.Activation(gates[2], act_type="tanh", name=self._name("c"))
        o = _sym.Activation(gates[3], act_type="sigmoid", name=self._name("o"))
        c = _sym.elemwise_add(f * states[1], i * g, name=self._name("state"))
        h = _sym.elemwise_mul(o, _sym.Activation(c, act_type="tanh"), name=self._name("out"))
        return h, [h, c]


def _lstm_bias(forget_bias):
    from ..initializer import LSTMBias
    return LSTMBias(forget_bias=forget_bias).dumps()


class GRUCell(_GatedCell):
    """GRU step, gates r, z, n (``_r``, ``_z``, ``_o`` in weight names)."""
    _gate_names = ("_r", "_z", "_o")

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, 3, prefix, params)

    def __call__(self, inputs, states):
        h = states[0]
        i2h, h2h = self._projections(inputs, h)
        i_r, i_z, i_n = self._gates_of(i2h, self._name("i2h_slice"))
        h_r, h_z, h_n = self._gates_of(h2h, self._name("h2h_slice"))
        r = _sym.Activation(i_r + h_r, act_type="sigmoid", name=self._name("r_act"))
        z = _sym.Activation(i_z + h_z, act_type="sigmoid", name=self._name("z_act"))
        n = _sym.Activation(i_n + r * h_n, act_type="tanh", name=self._name("h_act"))
        out = _sym.elemwise_add((1. - z) * n, z * h, name=self._name("out"))
        return out, [out]


class FusedRNNCell(BaseRNNCell):
    """A whole stacked (bidirectional) RNN as one ``RNN`` node over one
    ``<prefix>parameters`` vector (unroll only)."""

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False,
                 dropout=0.0, get_next_state=False, forget_bias=1.0, prefix=None,
                 params=None):
        if mode not in GATES:
            raise ValueError(f"FusedRNNCell: mode={mode!r} must be one of {sorted(GATES)}")
        super().__init__(f"{mode}_" if prefix is None else prefix, params)
        self._num_hidden = int(num_hidden)
        self._num_layers = int(num_layers)
        self._mode = mode
        self._bidirectional = bool(bidirectional)
        self._dropout = float(dropout)
        self._get_next_state = bool(get_next_state)
        self._directions = ("l", "r") if bidirectional else ("l",)
        self._gate_names = GATE_NAMES[mode]
        self._parameter = self._params.get("parameters", init=FusedRNN(
            None, num_hidden, num_layers, mode, bidirectional, forget_bias))

    @property
    def state_info(self):
        b = len(self._directions) * self._num_layers
        n = 2 if self._mode == "lstm" else 1
        return [{"shape": (b, 0, self._num_hidden), "__layout__": "LNC"} for _ in range(n)]

    def __call__(self, inputs, states):
        raise ValueError("FusedRNNCell cannot be stepped; use unroll")

    def _layout_names(self, num_input):
        """(name, shape) of each per-gate array, in the flat vector's order."""
        return packed_layout(self._prefix, self._mode, self._num_layers, self._bidirectional,
                             self._num_hidden, num_input)

    def unpack_weights(self, args):
        args = dict(args)
        arr = args.pop(self._parameter.name)
        num_input = packed_num_input(arr.size, self._mode, self._num_layers,
                                     self._bidirectional, self._num_hidden)
        flat = arr.asnumpy().ravel()
        p = 0
        for name, shape in self._layout_names(num_input):
            size = 1
            for s in shape:
                size *= s
            args[name] = _nd.array(flat[p:p + size].reshape(shape), dtype=arr.dtype)
            p += size
        if p != flat.size:
            raise ValueError(f"FusedRNNCell: {self._parameter.name} has {flat.size} values, "
                             f"the layout needs {p}")
        return args

    def pack_weights(self, args):
        args = dict(args)
        first = f"{self._prefix}l0_i2h{self._gate_names[0]}_weight"
        num_input = args[first].shape[1]
        parts = [args.pop(name).reshape((-1,)) for name, _ in self._layout_names(num_input)]
        args[self._parameter.name] = _nd.concat(*parts, dim=0)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        data, axis, _, _ = _format_sequence(length, inputs, layout, True)
        if axis == 1:
            data = _sym.swapaxes(data, dim1=0, dim2=1)
        states = list(begin_state) if begin_state is not None else \
            _zero_states(self, data, 0)
        kw = {"state": states[0]}
        if self._mode == "lstm":
            kw["state_cell"] = states[1]
        rnn = _sym.RNN(data, self._parameter, state_size=self._num_hidden,
                       num_layers=self._num_layers, bidirectional=self._bidirectional,
                       p=self._dropout, state_outputs=self._get_next_state,
                       mode=self._mode, name=self._prefix + "rnn", **kw)
        outputs = rnn[0] if self._get_next_state else rnn
        if self._get_next_state:
            states = [rnn[1], rnn[2]] if self._mode == "lstm" else [rnn[1]]
        else:
            states = []
        if axis == 1:
            outputs = _sym.swapaxes(outputs, dim1=0, dim2=1)
        if merge_outputs is False:
            outputs = _format_sequence(length, outputs, layout, False)[0]
        return outputs, states


class _Cells(BaseRNNCell):
    """A cell made of cells (``_cells``): their states and weights, in order."""

    @property
    def state_info(self):
        return [i for c in self._cells for i in c.state_info]

    def begin_state(self, **kwargs):
        return [s for c in self._cells for s in c.begin_state(**kwargs)]

    def reset(self):
        super().reset()
        for c in getattr(self, "_cells", ()):
            c.reset()

    def unpack_weights(self, args):
        for c in self._cells:
            args = c.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for c in self._cells:
            args = c.pack_weights(args)
        return args


class SequentialRNNCell(_Cells):
    """Cells stacked; each step's output feeds the next."""

    def __init__(self, params=None):
        super().__init__("", params)
        self._cells = []

    def add(self, cell):
        self._cells.append(cell)

    def __call__(self, inputs, states):
        p, out = 0, []
        for c in self._cells:
            n = len(c.state_info)
            inputs, st = c(inputs, states[p:p + n])
            p += n
            out.extend(st)
        return inputs, out

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        steps, axis, _, _ = _format_sequence(length, inputs, layout, None)
        states = _zero_states(self, steps, axis) if begin_state is None \
            else list(begin_state)
        p, out = 0, []
        for k, c in enumerate(self._cells):
            n = len(c.state_info)
            inputs, st = c.unroll(length, inputs, states[p:p + n], layout,
                                  None if k < len(self._cells) - 1 else merge_outputs)
            p += n
            out.extend(st)
        return inputs, out


class DropoutCell(BaseRNNCell):
    """Dropout on each step's input; no states, no weights."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        self._dropout = float(dropout)

    @property
    def state_info(self):
        return []

    def unpack_weights(self, args):
        return dict(args)

    pack_weights = unpack_weights

    def __call__(self, inputs, states):
        if self._dropout > 0:
            inputs = _sym.Dropout(inputs, p=self._dropout)
        return inputs, states


class BidirectionalCell(_Cells):
    """Two cells over a sequence in opposite directions, outputs concatenated."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        self._cells = [l_cell, r_cell]
        super().__init__("", params)
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise ValueError("BidirectionalCell cannot be stepped; use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        steps, axis, _, _ = _format_sequence(length, inputs, layout, False)
        states = _zero_states(self, steps, axis) if begin_state is None \
            else list(begin_state)
        l_cell, r_cell = self._cells
        n = len(l_cell.state_info)
        l_out, l_st = l_cell.unroll(length, steps, states[:n], layout, False)
        r_out, r_st = r_cell.unroll(length, list(reversed(steps)), states[n:], layout, False)
        outs = [_sym.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{t}")
                for t, (lo, ro) in enumerate(zip(l_out, reversed(r_out)))]
        return _format_sequence(length, outs, layout, merge_outputs)[0], l_st + r_st
