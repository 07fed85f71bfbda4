"""MXNet 1.x's aggregated SGD updates: one engine op updates up to
``MXNET_OPTIMIZER_AGGREGATION_SIZE`` weights (``multi_sgd_update``,
``multi_sgd_mom_update``, and for float16 weights with float32 master copies
``multi_mp_sgd_update``, ``multi_mp_sgd_mom_update``).

Inputs are the per-weight groups one after another, as MXNet takes them: (weight, grad)
for ``multi_sgd_update``, (weight, grad, mom), (weight, grad, weight32) and (weight,
grad, mom, weight32); ``lrs`` and ``wds`` give each weight's rate and decay. The outputs
are the new weights, then each group's new states in input order (the arrays MXNet's
kernel updates in place; the caller writes them back, as for ``sgd_mom_update``). Each
weight's arithmetic is :mod:`.optim`'s ``sgd_update``/``sgd_mom_update``.
"""
import numpy as np

from .optim import _as, _sgd, _sgd_mom
from .registry import defop

__all__ = ["MULTI_OPS", "group_size"]

# op -> (inputs per weight, has momentum, has a float32 master weight)
MULTI_OPS = {"multi_sgd_update": (2, False, False), "multi_sgd_mom_update": (3, True, False),
             "multi_mp_sgd_update": (3, False, True),
             "multi_mp_sgd_mom_update": (4, True, True)}


def group_size(opname):
    return MULTI_OPS[opname][0]


def _lists(n, lrs, wds, opname):
    lrs, wds = tuple(lrs), tuple(wds)
    if len(lrs) != n or len(wds) != n:
        raise ValueError(f"{opname}: num_weights={n} but {len(lrs)} lrs and {len(wds)} wds")
    return lrs, wds


def _make(opname):
    per, momentum_op, master = MULTI_OPS[opname]

    def kernel(*arrays, lrs=(), wds=(), num_weights=1, momentum=0.0, rescale_grad=1.0,
               clip_gradient=-1.0):
        n = int(num_weights)
        lrs, wds = _lists(n, lrs, wds, opname)
        weights, states = [], []
        for i in range(n):
            group = arrays[i * per:(i + 1) * per]
            w, g = group[0], group[1]
            target = group[-1] if master else w            # the float32 master copy
            g = g.astype(target.dtype, copy=False)
            common = dict(lr=lrs[i], wd=wds[i], rescale_grad=rescale_grad,
                          clip_gradient=clip_gradient)
            if momentum_op:
                new_w, new_mom = _sgd_mom(target, g, group[2], momentum=momentum, **common)
                states.append(new_mom)
            else:
                new_w = _sgd(target, g, **common)
            if master:
                states.append(new_w)
                new_w = new_w.astype(w.dtype)
            weights.append(_as(w, new_w))
        return tuple(weights) + tuple(states)

    def infer(in_shapes, in_dtypes, num_weights=1, **_):
        n = int(num_weights)
        if len(in_shapes) != n * per:
            raise ValueError(f"{opname}: {len(in_shapes)} inputs for num_weights={n} "
                             f"({per} per weight)")
        shapes, dtypes, st_shapes, st_dtypes = [], [], [], []
        for i in range(n):
            group = [tuple(s) for s in in_shapes[i * per:(i + 1) * per]]
            if any(s != group[0] for s in group[1:]):
                raise ValueError(f"{opname}: weight {i}'s inputs have shapes {group}")
            shapes.append(group[0])
            dtypes.append(in_dtypes[i * per])
            for j in range(2, per):
                st_shapes.append(group[j])
                st_dtypes.append(in_dtypes[i * per + j])
        return shapes + st_shapes, dtypes + st_dtypes

    def cost(in_shapes, **_):
        return 5 * sum(int(np.prod(s)) for s in in_shapes[::per])

    params = {"lrs": (), "wds": (), "num_weights": 1, "rescale_grad": 1.0,
              "clip_gradient": -1.0}
    if momentum_op:
        params["momentum"] = 0.0
    defop(opname, kernel, arg_names=("data",), variadic=True, infer=infer, cost=cost,
          num_outputs=lambda p: int(p.get("num_weights", 1)) * (per - 1),
          visible_outputs=lambda p: int(p.get("num_weights", 1)), params=params,
          doc=f"MXNet's {opname}: {per} inputs per weight, up to the aggregation size "
              "weights in one op.")


for _name in MULTI_OPS:
    _make(_name)
