"""Optimizer update operators: ``sgd_update``, ``sgd_mom_update``, ``adam_update``,
``nag_mom_update``, ``rmsprop_update``, ``rmspropalex_update``, ``signsgd_update``,
``signum_update``, ``ftml_update``, ``ftrl_update``.

Names and parameters follow MXNet 1.x. Each update is one engine op per parameter, so
a ``Trainer.step`` shows up in a profile as one ``sgd_mom_update`` (say) per weight.

MXNet's update ops modify their state inputs (the momentum, Adam's mean and variance)
in place. Kernels here never modify their inputs (see :mod:`.registry`), so an update op
returns the new weight *and* the new states: ``num_outputs`` counts them and
``visible_outputs`` is 1. The caller writes the outputs back into the weight and state
arrays (``push_op(op, (w, g, mom), params, outs=[w, mom])``); the engine then orders the
op after every earlier read and write of those arrays. ``mx.nd.sgd_mom_update(w, g, mom,
out=w, ...)`` does exactly that (see :mod:`..ndarray._update`).

Conventions (as in MXNet): the gradient is first multiplied by ``rescale_grad`` and, when
``clip_gradient >= 0``, clipped to ``[-clip_gradient, clip_gradient]``; ``wd`` is L2
weight decay. Scalars are Python floats so float32 weights stay float32.
"""
import numpy as np

from .registry import defop

__all__ = ["UPDATE_OPS", "num_states"]


def _prep(grad, rescale_grad, clip_gradient):
    g = grad * float(rescale_grad) if float(rescale_grad) != 1.0 else grad
    clip = float(clip_gradient) if clip_gradient is not None else -1.0
    if clip >= 0:
        g = np.clip(g, -clip, clip)
    return g


def _same_shapes(opname, names):
    def infer(in_shapes, in_dtypes, **_):
        w = tuple(in_shapes[0])
        for name, s in zip(names[1:], in_shapes[1:]):
            if tuple(s) != w:
                raise ValueError(f"{opname}: {name} has shape {tuple(s)}, expected the "
                                 f"weight's shape {w}")
        n_out = 1 + len(names) - 2       # the weight plus every state
        return [w] * n_out, [in_dtypes[0]] + list(in_dtypes[2:2 + n_out - 1])
    return infer


def _cost(k):
    return lambda in_shapes, **_: k * int(np.prod(in_shapes[0]))


def _as(like, value):
    return value if value.dtype == like.dtype else value.astype(like.dtype)


# -- SGD ---------------------------------------------------------------------------
# Written for few passes over memory and few temporaries: a step of a large weight is
# memory-bound, and every fresh array costs page faults.
def _scaled_grad(grad, lr, rescale_grad, clip_gradient):
    """``lr * clip(rescale_grad * grad)`` as a new array."""
    clip = float(clip_gradient) if clip_gradient is not None else -1.0
    if clip >= 0:
        g = _prep(grad, rescale_grad, clip_gradient)
        g *= lr
        return g
    return grad * (lr * float(rescale_grad))


def _sgd(weight, grad, lr=0.01, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
         lazy_update=True):
    lr, wd = float(lr), float(wd)
    out = _scaled_grad(grad, lr, rescale_grad, clip_gradient)     # lr * g
    np.negative(out, out=out)
    if wd:
        out += weight * (1.0 - lr * wd)
    else:
        out += weight
    return _as(weight, out)


def _sgd_mom(weight, grad, mom, lr=0.01, momentum=0.0, wd=0.0, rescale_grad=1.0,
             clip_gradient=-1.0, lazy_update=True):
    lr, wd, momentum = float(lr), float(wd), float(momentum)
    step = _scaled_grad(grad, lr, rescale_grad, clip_gradient)    # lr * g
    if wd:
        step += (lr * wd) * weight
    new_mom = mom * momentum
    new_mom -= step
    np.add(weight, new_mom, out=step)                             # reuse: the new weight
    return _as(weight, step), _as(mom, new_mom)


# -- Adam (the bias correction lives in the optimizer's learning rate, as in MXNet) ----
def _adam(weight, grad, mean, var, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
          wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    g = grad * float(rescale_grad)
    if float(wd):
        g = g + float(wd) * weight
    clip = float(clip_gradient) if clip_gradient is not None else -1.0
    if clip >= 0:
        g = np.clip(g, -clip, clip)
    b1, b2 = float(beta1), float(beta2)
    new_mean = mean * b1
    new_mean += (1.0 - b1) * g
    new_var = var * b2
    new_var += (1.0 - b2) * np.square(g)
    step = new_mean / (np.sqrt(new_var) + float(epsilon))
    new_w = weight - float(lr) * step
    return _as(weight, new_w), _as(mean, new_mean), _as(var, new_var)


_COMMON = {"wd": 0.0, "rescale_grad": 1.0, "clip_gradient": -1.0, "lazy_update": True}


def _lazy(kernel):
    """MXNet's lazy update of a row_sparse gradient (``_rows``, set by ``push_update``):
    the rows the gradient holds nothing for keep their weight and states."""
    def wrapped(weight, grad, *states, _rows=False, **params):
        out = kernel(weight, grad, *states, **params)
        if not _rows:
            return out
        keep = ~grad.reshape(grad.shape[0], -1).any(axis=1)
        if not keep.any():
            return out
        outs = out if isinstance(out, tuple) else (out,)
        fixed = []
        for new, old in zip(outs, (weight,) + states):
            new = np.array(new, copy=True)
            new[keep] = old[keep]
            fixed.append(new)
        return tuple(fixed) if isinstance(out, tuple) else fixed[0]
    wrapped.__doc__ = kernel.__doc__
    return wrapped

defop("sgd_update", _lazy(_sgd), arg_names=("weight", "grad"),
      infer=_same_shapes("sgd_update", ("weight", "grad")), cost=_cost(3),
      params=dict(_COMMON, lr=0.01, _rows=False),
      doc="SGD step: weight = weight - lr * (clip(rescale_grad * grad) + wd * weight).")
defop("sgd_mom_update", _lazy(_sgd_mom), arg_names=("weight", "grad", "mom"),
      infer=_same_shapes("sgd_mom_update", ("weight", "grad", "mom")), cost=_cost(5),
      num_outputs=2, visible_outputs=1, output_names=("output", "mom"),
      params=dict(_COMMON, lr=0.01, momentum=0.0, _rows=False),
      doc="SGD with momentum: mom = momentum * mom - lr * (g + wd * weight); "
          "weight += mom. Outputs the new weight and the new momentum.")
defop("adam_update", _lazy(_adam), arg_names=("weight", "grad", "mean", "var"),
      infer=_same_shapes("adam_update", ("weight", "grad", "mean", "var")), cost=_cost(10),
      num_outputs=3, visible_outputs=1, output_names=("output", "mean", "var"),
      params=dict(_COMMON, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, _rows=False),
      doc="Adam step (without bias correction, which the optimizer folds into lr). "
          "Outputs the new weight, mean and variance.")

# -- NAG, RMSProp, Signum (MXNet's fused update operators of those optimizers) -----------
def _clip(g, clip_gradient):
    clip = float(clip_gradient) if clip_gradient is not None else -1.0
    return np.clip(g, -clip, clip) if clip >= 0 else g


def _clip_weights(w, clip_weights):
    clip = float(clip_weights) if clip_weights is not None else -1.0
    return np.clip(w, -clip, clip) if clip >= 0 else w


def _nag_mom(weight, grad, mom, lr=0.01, momentum=0.0, wd=0.0, rescale_grad=1.0,
             clip_gradient=-1.0):
    """Nesterov momentum: mom' = momentum * mom - lr * (g + wd * w);
    w' = w + momentum * mom' - lr * (g + wd * w)."""
    step = float(lr) * (_prep(grad, rescale_grad, clip_gradient) + float(wd) * weight)
    new_mom = float(momentum) * mom - step
    return _as(weight, weight + float(momentum) * new_mom - step), _as(mom, new_mom)


def _rmsprop(weight, grad, n, lr=0.001, gamma1=0.95, epsilon=1e-8, wd=0.0,
             rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    """RMSProp (Tieleman & Hinton): n' = (1 - gamma1) g^2 + gamma1 n;
    w' = w - lr g / sqrt(n' + epsilon), with g = clip(rescale_grad * grad + wd * w)."""
    g = _clip(grad * float(rescale_grad) + float(wd) * weight, clip_gradient)
    g1 = float(gamma1)
    new_n = (1.0 - g1) * np.square(g) + g1 * n
    new_w = _clip_weights(weight - float(lr) * g / np.sqrt(new_n + float(epsilon)),
                          clip_weights)
    return _as(weight, new_w), _as(n, new_n)


def _rmspropalex(weight, grad, n, g_avg, delta, lr=0.001, gamma1=0.95, gamma2=0.9,
                 epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                 clip_weights=-1.0):
    """Centered RMSProp (Graves 2013, eqs. 38-45): also a moving mean of g and a
    momentum ``delta``."""
    g = _clip(grad * float(rescale_grad) + float(wd) * weight, clip_gradient)
    g1 = float(gamma1)
    new_n = (1.0 - g1) * np.square(g) + g1 * n
    new_g = (1.0 - g1) * g + g1 * g_avg
    new_delta = float(gamma2) * delta - float(lr) * g / np.sqrt(
        new_n - np.square(new_g) + float(epsilon))
    new_w = _clip_weights(weight + new_delta, clip_weights)
    return _as(weight, new_w), _as(n, new_n), _as(g_avg, new_g), _as(delta, new_delta)


def _signsgd(weight, grad, lr=0.01, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """signSGD: w' = (1 - lr * wd) w - lr * sign(g)."""
    lr = float(lr)
    return _as(weight, (1.0 - lr * float(wd)) * weight
               - lr * np.sign(_prep(grad, rescale_grad, clip_gradient)))


def _signum(weight, grad, mom, lr=0.01, momentum=0.0, wd=0.0, rescale_grad=1.0,
            clip_gradient=-1.0, wd_lh=0.0):
    """Signum: mom' = momentum mom - (1 - momentum) (wd w + g);
    w' = (1 - lr wd_lh) w + lr sign(mom')."""
    m, lr = float(momentum), float(lr)
    g = _prep(grad, rescale_grad, clip_gradient)
    new_mom = m * mom - (1.0 - m) * (float(wd) * weight + g)
    new_w = (1.0 - lr * float(wd_lh)) * weight + lr * np.sign(new_mom)
    return _as(weight, new_w), _as(mom, new_mom)


_PLAIN = {"wd": 0.0, "rescale_grad": 1.0, "clip_gradient": -1.0}
defop("nag_mom_update", _nag_mom, arg_names=("weight", "grad", "mom"),
      infer=_same_shapes("nag_mom_update", ("weight", "grad", "mom")), cost=_cost(6),
      num_outputs=2, visible_outputs=1, output_names=("output", "mom"),
      params=dict(_PLAIN, lr=0.01, momentum=0.0), doc=_nag_mom.__doc__)
defop("rmsprop_update", _rmsprop, arg_names=("weight", "grad", "n"),
      infer=_same_shapes("rmsprop_update", ("weight", "grad", "n")), cost=_cost(8),
      num_outputs=2, visible_outputs=1, output_names=("output", "n"),
      params=dict(_PLAIN, lr=0.001, gamma1=0.95, epsilon=1e-8, clip_weights=-1.0),
      doc=_rmsprop.__doc__)
defop("rmspropalex_update", _rmspropalex, arg_names=("weight", "grad", "n", "g", "delta"),
      infer=_same_shapes("rmspropalex_update", ("weight", "grad", "n", "g", "delta")),
      cost=_cost(14), num_outputs=4, visible_outputs=1,
      output_names=("output", "n", "g", "delta"),
      params=dict(_PLAIN, lr=0.001, gamma1=0.95, gamma2=0.9, epsilon=1e-8,
                  clip_weights=-1.0), doc=_rmspropalex.__doc__)
defop("signsgd_update", _signsgd, arg_names=("weight", "grad"),
      infer=_same_shapes("signsgd_update", ("weight", "grad")), cost=_cost(4),
      params=dict(_PLAIN, lr=0.01), doc=_signsgd.__doc__)
defop("signum_update", _signum, arg_names=("weight", "grad", "mom"),
      infer=_same_shapes("signum_update", ("weight", "grad", "mom")), cost=_cost(6),
      num_outputs=2, visible_outputs=1, output_names=("output", "mom"),
      params=dict(_PLAIN, lr=0.01, momentum=0.0, wd_lh=0.0), doc=_signum.__doc__)


# -- FTML, FTRL ------------------------------------------------------------------------------
def _ftml(weight, grad, d, v, z, lr=0.0025, beta1=0.6, beta2=0.999, epsilon=1e-8, t=1,
          wd=0.0, rescale_grad=1.0, clip_grad=-1.0):
    """FTML (Zheng & Kwok 2017) as MXNet's ``ftml_update``: g = clip(rescale_grad * grad
    + wd * w, clip_grad); v' = beta2 v + (1 - beta2) g^2; d' = (1 - beta1^t) / lr *
    (sqrt(v' / (1 - beta2^t)) + epsilon); z' = beta1 z + (1 - beta1) g - (d' - beta1 d) w;
    w' = -z' / d'."""
    b1, b2, t, lr = float(beta1), float(beta2), int(t), float(lr)
    g = _clip(grad * float(rescale_grad) + float(wd) * weight, clip_grad)
    new_v = b2 * v + (1.0 - b2) * np.square(g)
    new_d = (1.0 - b1 ** t) / lr * (np.sqrt(new_v / (1.0 - b2 ** t)) + float(epsilon))
    new_z = b1 * z + (1.0 - b1) * g - (new_d - b1 * d) * weight
    return (_as(weight, -new_z / new_d), _as(d, new_d), _as(v, new_v), _as(z, new_z))


def _ftrl(weight, grad, z, n, lr=0.1, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0,
          clip_gradient=-1.0):
    """FTRL-Proximal (McMahan et al. 2013) as MXNet's ``ftrl_update``: g =
    clip(rescale_grad * grad); z' = z + g - (sqrt(n + g^2) - sqrt(n)) w / lr;
    n' = n + g^2; w' = (sign(z') lamda1 - z') / ((beta + sqrt(n')) / lr + wd) where
    |z'| > lamda1, else 0."""
    lr, l1 = float(lr), float(lamda1)
    g = _prep(grad, rescale_grad, clip_gradient)
    new_n = n + np.square(g)
    new_z = z + g - (np.sqrt(new_n) - np.sqrt(n)) * weight / lr
    new_w = np.where(np.abs(new_z) > l1,
                     (np.sign(new_z) * l1 - new_z)
                     / ((float(beta) + np.sqrt(new_n)) / lr + float(wd)), 0.0)
    return _as(weight, new_w), _as(z, new_z), _as(n, new_n)


defop("ftml_update", _ftml, arg_names=("weight", "grad", "d", "v", "z"),
      infer=_same_shapes("ftml_update", ("weight", "grad", "d", "v", "z")), cost=_cost(14),
      num_outputs=4, visible_outputs=1, output_names=("output", "d", "v", "z"),
      params={"lr": 0.0025, "beta1": 0.6, "beta2": 0.999, "epsilon": 1e-8, "t": 1,
              "wd": 0.0, "rescale_grad": 1.0, "clip_grad": -1.0}, doc=_ftml.__doc__)
defop("ftrl_update", _lazy(_ftrl), arg_names=("weight", "grad", "z", "n"),
      infer=_same_shapes("ftrl_update", ("weight", "grad", "z", "n")), cost=_cost(12),
      num_outputs=3, visible_outputs=1, output_names=("output", "z", "n"),
      params=dict(_PLAIN, lr=0.1, lamda1=0.01, beta=1.0, _rows=False), doc=_ftrl.__doc__)

# op name -> number of state inputs following (weight, grad)
UPDATE_OPS = {"sgd_update": 0, "sgd_mom_update": 1, "adam_update": 2, "nag_mom_update": 1,
              "rmsprop_update": 1, "rmspropalex_update": 3, "signsgd_update": 0,
              "signum_update": 1, "ftml_update": 3, "ftrl_update": 2}


def num_states(opname):
    return UPDATE_OPS[opname]
