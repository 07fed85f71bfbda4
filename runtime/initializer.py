"""``mx.init`` / ``mx.initializer``: how parameters get their first values.

An initializer is called as ``init(desc, arr)`` with the parameter's name (an
:class:`InitDesc`, a ``str`` subclass) and the NDArray to fill. As in MXNet 1.x, the
name picks the rule when no specific initializer is attached: ``*weight`` uses the
initializer's own rule, ``*bias`` and ``*beta`` are zero, ``*gamma`` is one, running
statistics are zero (means) or one (variances). Gluon attaches the parameter's own
initializer (``Dense(bias_initializer='zeros')``) or the global one as
``desc.attrs['__init__']``, which then applies whatever the name.

Random initializers push the engine's random operators (``_random_uniform``,
``_random_normal``) writing straight into the array, so ``mx.random.seed`` makes
initial weights reproducible and initialization shows up in a profile.
"""
import json
import math

import numpy as np

from .ops.rnn import packed_layout, packed_num_input

__all__ = ["InitDesc", "Initializer", "Zero", "Zeros", "One", "Ones", "Constant",
           "Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "Mixed", "LSTMBias",
           "register", "create"]

_REGISTRY = {}


def register(klass):
    """Class decorator: make ``klass`` creatable by its lower-cased name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def create(init, **kwargs):
    """An Initializer from an instance, a registered name ('xavier', 'zeros'...), a
    class, or MXNet's JSON dump (``'["xavier", {"magnitude": 2}]'``)."""
    if isinstance(init, Initializer):
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(**kwargs)
    if isinstance(init, str):
        text = init.strip()
        if text.startswith("["):
            try:
                text, kw = json.loads(text)
            except (ValueError, TypeError):
                raise ValueError(f"initializer {init!r} is not a valid JSON dump") from None
            kwargs = dict(kw, **kwargs)    # (an initializer may take ``init=`` itself)
        klass = _REGISTRY.get(str(text).lower())
        if klass is None:
            raise ValueError(f"initializer {init!r} is not known; use one of "
                             f"{', '.join(sorted(_REGISTRY))}")
        return klass(**kwargs)
    raise ValueError(f"initializer {init!r} is not an Initializer, a name or a class")


class InitDesc(str):
    """A parameter name carrying attributes (``attrs['__init__']``: its own
    initializer) and the global initializer."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _fill(arr, value):
    arr[:] = float(value)


def _uniform(arr, low, high):
    from .ndarray import random
    random.uniform(low, high, shape=arr.shape, dtype=arr.dtype, ctx=arr.context, out=arr)


def _normal(arr, loc, scale):
    from .ndarray import random
    random.normal(loc, scale, shape=arr.shape, dtype=arr.dtype, ctx=arr.context, out=arr)


class Initializer:
    """Base class: subclasses define ``_init_weight(name, arr)``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def dumps(self):
        """MXNet's string form: ``'["xavier", {"rnd_type": "uniform", ...}]'``."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        from . import autograd
        with autograd.pause():
            self._call(desc, arr)

    def _call(self, desc, arr):
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        own = desc.attrs.get("__init__")
        if own:
            create(own)._init_weight(desc, arr)
            return
        name = str(desc)
        if name.endswith("weight"):
            self._init_weight(desc, arr)
        elif name.endswith("bias"):
            self._init_bias(desc, arr)
        elif name.endswith("gamma"):
            self._init_gamma(desc, arr)
        elif name.endswith("beta"):
            self._init_beta(desc, arr)
        elif name.endswith(("running_mean", "moving_mean", "moving_avg", "min", "max",
                            "moving_inv_var")):
            _fill(arr, 0.0)
        elif name.endswith(("running_var", "moving_var")):
            _fill(arr, 1.0)
        else:
            self._init_default(desc, arr)

    def _init_bias(self, name, arr):
        _fill(arr, 0.0)

    def _init_gamma(self, name, arr):
        _fill(arr, 1.0)

    def _init_beta(self, name, arr):
        _fill(arr, 0.0)

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{type(self).__name__} must define _init_weight")

    def _init_default(self, name, arr):
        raise ValueError(
            f"unknown initialization pattern for {name!r}: by name, only parameters "
            f"ending in 'weight', 'bias', 'gamma' or 'beta' (and running statistics) get a "
            f"default; give this parameter its own initializer (init=mx.init.*)")

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__


@register
class Zero(Initializer):
    """All zeros."""

    def _init_weight(self, name, arr):
        _fill(arr, 0.0)


@register
class One(Initializer):
    """All ones."""

    def _init_weight(self, name, arr):
        _fill(arr, 1.0)


@register
class Constant(Initializer):
    """Every element ``value`` (a number, or an array-like broadcast to the shape)."""

    def __init__(self, value=0.0):
        v = value.tolist() if hasattr(value, "tolist") else value
        super().__init__(value=v)
        self.value = value

    def _init_weight(self, name, arr):
        if isinstance(self.value, (int, float)) and not isinstance(self.value, bool):
            _fill(arr, self.value)
        else:
            arr[:] = np.broadcast_to(np.asarray(self.value, dtype=arr.dtype), arr.shape)


# MXNet's registered aliases for these: 'zeros', 'ones'
Zeros = Zero
Ones = One
_REGISTRY["zeros"] = Zero
_REGISTRY["ones"] = One


@register
class Uniform(Initializer):
    """Uniform on ``[-scale, scale]``."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = float(scale)

    def _init_weight(self, name, arr):
        _uniform(arr, -self.scale, self.scale)


@register
class Normal(Initializer):
    """Normal with mean 0 and standard deviation ``sigma``."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = float(sigma)

    def _init_weight(self, name, arr):
        _normal(arr, 0.0, self.sigma)


@register
class Xavier(Initializer):
    """Glorot/Xavier: variance ``magnitude / factor`` where factor is the fan-in, the
    fan-out or their mean; fans count input/output channels times the receptive field.
    ``rnd_type`` 'uniform' draws on ``[-s, s]`` with ``s = sqrt(magnitude / factor)``,
    'gaussian' draws N(0, s)."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError(f"Xavier: rnd_type={rnd_type!r} must be 'uniform' or "
                             "'gaussian'")
        if factor_type not in ("avg", "in", "out"):
            raise ValueError(f"Xavier: factor_type={factor_type!r} must be 'avg', 'in' or "
                             "'out'")
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to {name!r} of shape "
                             f"{shape}: it needs at least 2 dimensions")
        hw = math.prod(shape[2:]) if len(shape) > 2 else 1
        fan_in, fan_out = shape[1] * hw, shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[
            self.factor_type]
        scale = math.sqrt(self.magnitude / max(factor, 1e-12))
        if self.rnd_type == "uniform":
            _uniform(arr, -scale, scale)
        else:
            _normal(arr, 0.0, scale)


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU/ReLU nets (gaussian Xavier with
    magnitude ``2 / (1 + slope**2)``)."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Orthogonal(Initializer):
    """A (scaled) random orthogonal matrix over the flattened trailing dimensions."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = float(scale)
        self.rand_type = rand_type

    def _init_weight(self, name, arr):
        from .ndarray import random
        rows = arr.shape[0]
        cols = math.prod(arr.shape[1:])
        if self.rand_type == "uniform":
            tmp = random.uniform(-1.0, 1.0, shape=(rows, cols)).asnumpy()
        else:
            tmp = random.normal(0.0, 1.0, shape=(rows, cols)).asnumpy()
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        q = u if u.shape == tmp.shape else v
        arr[:] = (self.scale * q.reshape(arr.shape)).astype(arr.dtype)


@register
class Bilinear(Initializer):
    """Bilinear-interpolation kernels for upsampling (Deconvolution) weights of shape
    ``(out, in, kh, kw)``: ``(1 - |x/f - c|) * (1 - |y/f - c|)`` with
    ``f = ceil(kw / 2)``, ``c = (2f - 1 - f % 2) / 2f``, the same kernel in every
    (out, in) slot, as MXNet's ``mx.init.Bilinear``."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) != 4:
            raise ValueError(f"Bilinear: {str(name)!r} has shape {shape}; it initializes "
                             "4-D (out, in, height, width) upsampling weights")
        f = math.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        wx = 1 - np.abs(np.arange(shape[3]) / f - c)
        wy = 1 - np.abs(np.arange(shape[2]) / f - c)
        kernel = (wy[:, None] * wx[None, :]).astype(np.float32)
        arr[:] = np.broadcast_to(kernel, shape).astype(arr.dtype)


@register
class LSTMBias(Initializer):
    """An LSTM bias (gates i, f, g, o stacked): zeros, except ``forget_bias`` for the
    forget gate's quarter, so a fresh LSTM starts out remembering."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = float(forget_bias)

    def _init_weight(self, name, arr):
        if len(arr.shape) != 1 or arr.shape[0] % 4:
            raise ValueError(f"LSTMBias: {str(name)!r} has shape {arr.shape}; an LSTM bias "
                             f"is 1-D with a multiple of 4 entries")
        n = arr.shape[0] // 4
        _fill(arr, 0.0)
        arr[n:2 * n] = self.forget_bias

    _init_bias = _init_weight


@register
class FusedRNN(Initializer):
    """The packed parameter vector of a fused ``RNN`` op (``mx.rnn.FusedRNNCell``):
    unpacked into its per-gate arrays, each weight initialized by ``init`` (or the
    global initializer), biases zero, an LSTM's forget-gate biases ``forget_bias``,
    then packed back. ``FusedRNNCell`` attaches it to its ``parameters`` variable."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers = int(num_hidden), int(num_layers)
        self._mode, self._bidirectional = mode, bool(bidirectional)
        self._forget_bias = float(forget_bias)

    def _init_weight(self, desc, arr):
        from . import ndarray as _nd
        num_input = packed_num_input(arr.size, self._mode, self._num_layers,
                                     self._bidirectional, self._num_hidden)
        layout = packed_layout("", self._mode, self._num_layers, self._bidirectional,
                               self._num_hidden, num_input)
        flat = arr.asnumpy().ravel()
        args, p = {}, 0
        for name, shape in layout:
            size = math.prod(shape)
            args[name] = _nd.array(flat[p:p + size].reshape(shape), dtype=arr.dtype)
            p += size
        if p != flat.size:
            raise ValueError(f"FusedRNN: the parameter vector has {flat.size} values, the "
                             f"layout needs {p}")
        glob = getattr(desc, "global_init", None)
        for name, part in args.items():
            sub = InitDesc(name, global_init=glob)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                _fill(part, self._forget_bias)
            elif self._init is not None:
                self._init(sub, part)
            elif glob is not None and glob is not self:
                glob(sub, part)
            else:
                raise ValueError(f"FusedRNN: no initializer for {name!r} (give init= or "
                                 "a global initializer)")
        arr[:] = np.concatenate([args[name].asnumpy().ravel() for name, _ in layout])


__all__ += ["FusedRNN"]


class Mixed:
    """Pick an initializer by regular expression on the parameter name (first match)."""

    def __init__(self, patterns, initializers):
        import re
        if len(patterns) != len(initializers):
            raise ValueError("Mixed: patterns and initializers must have the same length")
        self.map = [(re.compile(p), create(i)) for p, i in zip(patterns, initializers)]

    def __call__(self, name, arr):
        for pattern, init in self.map:
            if pattern.match(str(name)):
                init(name, arr)
                return
        raise ValueError(f"Mixed: parameter {str(name)!r} matches none of the patterns; "
                         "add a '.*' pattern for a default")
