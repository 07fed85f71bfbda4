"""Basic layers: containers, Dense, Embedding, Activation, Dropout, Flatten, Lambda."""
import math
import warnings

from ...ndarray import ndarray as _nd
from ..block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Dropout", "Flatten",
           "Lambda", "HybridLambda", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish",
           "SiLU", "Concatenate", "HybridConcatenate",
           "Identity", "Embedding"]


def _check_nonneg_int(value, name, layer):
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{layer}: {name}={value!r} is not an integer") from None
    if n < 0 or n != value:
        raise ValueError(f"{layer}: {name}={value!r} must be a non-negative integer")
    return n


class Sequential(Block):
    """Runs its children one after the other (``add`` them in order)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            if not isinstance(block, Block):
                raise ValueError(f"Sequential.add: {block!r} is not a Block")
            self.register_child(block)
        return self

    def hybridize(self, active=True, **kwargs):
        """As in MXNet: hybridizes the children, with a warning when all of them are
        HybridBlocks (a HybridSequential would run them as one graph)."""
        if self._children and all(isinstance(c, HybridBlock)
                                  for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          "HybridBlocks. Consider using HybridSequential for the best "
                          "performance.", stacklevel=2)
        super().hybridize(active, **kwargs)

    def forward(self, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                x, args = x[0], tuple(x[1:])
        return x if not args else (x,) + args

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)


class HybridSequential(HybridBlock):
    """Sequential container of HybridBlocks; hybridizes as one graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            if not isinstance(block, HybridBlock):
                raise ValueError(f"HybridSequential.add: {block!r} is not a HybridBlock "
                                 "(use Sequential for plain Blocks)")
            self.register_child(block)
        return self

    def infer_shape(self, *args):
        pass   # a container has no parameters of its own: children infer theirs

    def hybrid_forward(self, F, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                x, args = x[0], tuple(x[1:])
        return x if not args else (x,) + args

    __getitem__ = Sequential.__getitem__
    __len__ = Sequential.__len__


class Concatenate(Sequential):
    """Runs every child on the same input and concatenates their outputs along ``axis``
    (MXNet 2's layer)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from ... import ndarray as F
        return _concat(F, [block(x) for block in self._children.values()], self.axis)


class HybridConcatenate(HybridSequential):
    """Concatenate of HybridBlocks; hybridizes as one graph (MXNet 2's layer)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return _concat(F, [block(x) for block in self._children.values()], self.axis)


def _concat(F, outs, axis):
    """np arrays (and np symbols) by ``np.concatenate``, legacy ones by ``concat``."""
    from ...numpy import ndarray as np_ndarray
    from ...symbol.numpy import _Symbol
    if isinstance(outs[0], np_ndarray):
        from ...numpy import concatenate
        return concatenate(outs, axis=axis)
    if isinstance(outs[0], _Symbol):
        from ...symbol.numpy import concatenate
        return concatenate(outs, axis=axis)
    return F.concat(*outs, dim=axis)


def weight_bias_act(block, weight_shape, units, use_bias, activation, weight_initializer,
                    bias_initializer, **param_kwargs):
    """Give ``block`` (inside its name scope) what Dense and the convolutions share: a
    ``weight``, a ``bias`` of ``units`` values or None, and an ``act`` block or None;
    shapes with 0 are inferred at the first forward."""
    block.weight = block.params.get("weight", shape=weight_shape, init=weight_initializer,
                                    allow_deferred_init=True, **param_kwargs)
    block.bias = block.params.get("bias", shape=(units,), init=bias_initializer,
                                  allow_deferred_init=True, **param_kwargs) \
        if use_bias else None
    block.act = Activation(activation, prefix=activation + "_") \
        if activation is not None else None


class Dense(HybridBlock):
    """Fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    ``flatten=True`` collapses every input axis but the first; ``in_units=0`` defers the
    weight's shape to the first forward."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True,
                 dtype="float32", weight_initializer=None, bias_initializer="zeros",
                 in_units=0, **kwargs):
        super().__init__(**kwargs)
        # units=0 is accepted at construction, as in MXNet (0 marks an unknown size: the
        # parameter cannot be created until it is known)
        self._units = _check_nonneg_int(units, "units", "Dense")
        self._in_units = _check_nonneg_int(in_units, "in_units", "Dense")
        self._flatten = bool(flatten)
        with self.name_scope():
            weight_bias_act(self, (self._units, self._in_units), self._units, use_bias,
                            activation, weight_initializer, bias_initializer, dtype=dtype)

    def infer_shape(self, x, *args):
        in_units = math.prod(x.shape[1:]) if self._flatten else x.shape[-1]
        self.weight.shape = (self._units, in_units)

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            out = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            out = F.FullyConnected(x, weight, bias, no_bias=False, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        shape = self.weight.shape
        act = self.act.__repr__() if self.act is not None else "linear"
        return (f"Dense({shape[1] if shape[1] else None} -> {shape[0]}, {act})")


class Embedding(HybridBlock):
    """Maps integer indices to rows of a learned ``(input_dim, output_dim)`` weight
    (operator ``Embedding``): output shape ``x.shape + (output_dim,)``."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        input_dim = _check_nonneg_int(input_dim, "input_dim", "Embedding")
        output_dim = _check_nonneg_int(output_dim, "output_dim", "Embedding")
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": bool(sparse_grad)}
        with self.name_scope():     # sparse_grad: a row_sparse gradient (MXNet's)
            self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True,
                                          grad_stype="row_sparse" if sparse_grad
                                          else "default")

    def infer_shape(self, *args):
        pass     # the weight's shape is given

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return f"Embedding({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class Activation(HybridBlock):
    """An activation function: 'relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'."""

    def __init__(self, activation, **kwargs):
        if not isinstance(activation, str):
            raise ValueError(f"Activation: {activation!r} is not an activation name")
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"Activation({self._act_type})"


class Dropout(HybridBlock):
    """Zeroes a ``rate`` fraction of the inputs while training (scaling the rest by
    ``1 / (1 - rate)``); the identity in predict mode. Masks come from the seeded
    ``mx.random`` generator."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        rate = float(rate)
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"Dropout: rate={rate} must be in [0, 1]")
        self._rate = rate
        self._axes = tuple(axes)

    def hybrid_forward(self, F, x):
        if self._rate <= 0:
            return x
        if F is _nd_module():
            from ...ndarray import random as _random
            return _nd.invoke("Dropout", (x,), {"p": self._rate, "axes": self._axes,
                                                "mode": "training",
                                                "rng": _random._RngRef()},
                              extra_vars=(_random._var(),))
        return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)

    def __repr__(self):
        return f"Dropout(p = {self._rate}, axes={self._axes})"


def _nd_module():
    from ... import ndarray
    return ndarray


class Flatten(HybridBlock):
    """Collapses every axis but the first: (n, a, b, ...) -> (n, a*b*...)."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x, name="fwd")

    def __repr__(self):
        return "Flatten"


class Identity(HybridBlock):
    def hybrid_forward(self, F, x):
        return x


class Lambda(Block):
    """Wraps a function (or the name of an ``mx.nd`` operator) as a Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            fn = getattr(_nd_module(), function, None)
            if fn is None:
                raise ValueError(f"Lambda: mx.nd has no function {function!r}")
            function = fn
        elif not callable(function):
            raise ValueError(f"Lambda: {function!r} is neither callable nor an op name")
        self._func = function

    def forward(self, *args):
        return self._func(*args)


class HybridLambda(HybridBlock):
    """Wraps ``function(F, x, *args)`` (or an operator name) as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            name = function
            self._func = lambda F, *args: getattr(F, name)(*args)
        elif callable(function):
            self._func = function
        else:
            raise ValueError(f"HybridLambda: {function!r} is neither callable nor an op "
                             "name")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)


class LeakyReLU(HybridBlock):
    """``x`` if ``x > 0`` else ``alpha * x``."""

    def __init__(self, alpha, **kwargs):
        super().__init__(**kwargs)
        if alpha < 0:
            raise ValueError(f"LeakyReLU: alpha={alpha} must be >= 0")
        self._alpha = float(alpha)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")


class PReLU(HybridBlock):
    """Leaky ReLU with a learned slope per channel (``in_channels``, default 1)."""

    def __init__(self, alpha_initializer=None, in_channels=1, **kwargs):
        super().__init__(**kwargs)
        from ... import initializer
        with self.name_scope():
            self.alpha = self.params.get(
                "alpha", shape=(in_channels,),
                init=alpha_initializer or initializer.Constant(0.25))

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = float(alpha)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    """Gaussian error linear unit. ``approximation``: MXNet 2's ``'erf'`` (exact, its
    default) or ``'tanh'``; without it, MXNet 1.x's layer (the tanh form, act type
    ``gelu``)."""

    def __init__(self, approximation=None, **kwargs):
        super().__init__(**kwargs)
        if approximation not in (None, "erf", "tanh"):
            raise ValueError("Unsupported approximation! Supported values are 'erf' and "
                             f"'tanh', but got '{approximation}'")
        self._act_type = "gelu" if approximation is None else "gelu_" + approximation

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type=self._act_type, name="fwd")


class SiLU(HybridBlock):
    """``x * sigmoid(x)`` (MXNet 2's layer; Swish with beta 1)."""

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(x, name="fwd")


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)``."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = float(beta)

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")
