"""``mx.nd.sgd_update``, ``mx.nd.sgd_mom_update``, ``mx.nd.adam_update`` (and
``nag_mom_update``, ``rmsprop_update``, ``rmspropalex_update``, ``signsgd_update``,
``signum_update``): optimizer update operators with MXNet's in-place semantics.

The operators (:mod:`..ops.optim`) return the new weight and the new states, since
kernels never modify their inputs; these functions write them back: ``out=`` (default:
a new array, as in MXNet) receives the weight, and the state arguments (``mom``,
``mean``, ``var``) are updated in place. One engine op per call.
"""
from time import perf_counter_ns

from ..ops import registry as _registry
from ..profiler.observer import flags as _flags, observer as _observer
from .ndarray import NDArray, new_array, op_scope, push_op

__all__ = ["push_update", "sgd_update", "sgd_mom_update", "adam_update", "nag_mom_update",
           "rmsprop_update", "rmspropalex_update", "signsgd_update", "signum_update",
           "ftml_update", "ftrl_update", "push_multi_update", "multi_sgd_update",
           "multi_sgd_mom_update", "multi_mp_sgd_update", "multi_mp_sgd_mom_update"]


def push_update(opname, weight, grad, states, out=None, attrs=None, **params):
    """Push update op ``opname``: the new weight into ``out`` (default ``weight``), the
    new states into ``states``; ``attrs`` are the engine op's attributes (Gluon's
    Trainer passes the parameter's name). Returns the array receiving the weight."""
    t0 = perf_counter_ns() if _flags.api else 0
    op = _registry.registry[opname]
    full = dict(op.params)
    full.update(params)
    if "_rows" in full and grad.stype == "row_sparse" and full.get("lazy_update", True):
        full["_rows"] = True            # MXNet's lazy update: the gradient's rows only
    target = weight if out is None else out
    push_op(op, (weight, grad) + tuple(states), full, outs=[target] + list(states),
            attrs=attrs)
    if t0:
        _observer.api(opname, t0)
    return target


def _make(opname, state_names):
    def fn(weight, grad, *states, out=None, name=None, **params):
        states = list(states)
        for s in state_names[len(states):]:
            if s not in params:
                raise ValueError(f"{opname}: state argument {s!r} is missing")
            states.append(params.pop(s))
        if len(states) != len(state_names):
            raise ValueError(f"{opname}: expected {len(state_names)} state arrays "
                             f"({', '.join(state_names) or 'none'}), got {len(states)}")
        for x in (weight, grad, *states):
            if not isinstance(x, NDArray):
                raise ValueError(f"{opname}: inputs must be NDArrays, got "
                                 f"{type(x).__name__}")
        if out is None:   # MXNet returns a new weight but still updates the states
            out = new_array(weight.shape, weight._dtype, weight.context, opname)
        return push_update(opname, weight, grad, states, out=out, attrs=op_scope.attrs,
                           **params)

    fn.__name__ = fn.__qualname__ = opname
    fn.__doc__ = _registry.registry[opname].doc
    return fn


sgd_update = _make("sgd_update", ())
sgd_mom_update = _make("sgd_mom_update", ("mom",))
adam_update = _make("adam_update", ("mean", "var"))
nag_mom_update = _make("nag_mom_update", ("mom",))
rmsprop_update = _make("rmsprop_update", ("n",))
rmspropalex_update = _make("rmspropalex_update", ("n", "g", "delta"))
signsgd_update = _make("signsgd_update", ())
signum_update = _make("signum_update", ("mom",))
ftml_update = _make("ftml_update", ("d", "v", "z"))
ftrl_update = _make("ftrl_update", ("z", "n"))


def push_multi_update(opname, arrays, out, attrs=None, **params):
    """Push aggregated update ``opname`` (:mod:`..ops.optim_multi`) on ``arrays`` (the
    per-weight groups flattened): the new weights into ``out`` (a list, default the
    weights), each group's states updated in place. Returns ``out``."""
    from ..ops.optim_multi import group_size
    t0 = perf_counter_ns() if _flags.api else 0
    op = _registry.registry[opname]
    per = group_size(opname)
    arrays = tuple(arrays)
    if not arrays or len(arrays) % per:
        raise ValueError(f"{opname}: {len(arrays)} arrays, expected groups of {per}")
    for x in arrays:
        if not isinstance(x, NDArray):
            raise ValueError(f"{opname}: inputs must be NDArrays, got {type(x).__name__}")
    n = len(arrays) // per
    full = dict(op.params)
    full.update(params, num_weights=n)
    weights = list(arrays[::per])
    targets = weights if out is None else ([out] if isinstance(out, NDArray) else list(out))
    states = [arrays[i * per + j] for i in range(n) for j in range(2, per)]
    push_op(op, arrays, full, outs=targets + states, attrs=attrs)
    if t0:
        _observer.api(opname, t0)
    return targets


def _make_multi(opname):
    def fn(*arrays, out=None, num_weights=None, name=None, **params):
        res = push_multi_update(opname, arrays, out, attrs=op_scope.attrs, **params)
        if num_weights is not None and int(num_weights) != len(res):
            raise ValueError(f"{opname}: num_weights={num_weights} but {len(res)} weights")
        return res[0] if len(res) == 1 else res

    fn.__name__ = fn.__qualname__ = opname
    fn.__doc__ = _registry.registry[opname].doc
    return fn


multi_sgd_update = _make_multi("multi_sgd_update")
multi_sgd_mom_update = _make_multi("multi_sgd_mom_update")
multi_mp_sgd_update = _make_multi("multi_mp_sgd_update")
multi_mp_sgd_mom_update = _make_multi("multi_mp_sgd_mom_update")
