"""``Block.summary``: one forward with hooks on every block, then a table of each
layer's output shapes and parameter counts, with totals (trainable, non-trainable,
shared), in the layout of MXNet's summary."""
import math

from ..ndarray import ndarray as _nd

__all__ = ["summarize"]


def _shapes(out):
    if isinstance(out, _nd.NDArray):
        return [out.shape]
    if isinstance(out, (list, tuple)):
        return [s for o in out for s in _shapes(o)]
    return []


def _count(params, seen):
    """(trainable, non-trainable, shared) element counts of ``params``; ``seen``
    collects the ids already counted (a parameter shared by layers counts once)."""
    train = fixed = shared = 0
    for p in params:
        n = math.prod(p.shape) if p.shape else 0
        if id(p) in seen:
            shared += n
            continue
        seen.add(id(p))
        if p.grad_req == "null":
            fixed += n
        else:
            train += n
    return train, fixed, shared


def summarize(block, inputs):
    """The summary table (text) of ``block`` run on ``inputs``."""
    if getattr(block, "_active", False):   # a hybridized HybridBlock
        raise AssertionError("summary: the summary table is only available for "
                             "non-hybridized blocks; call hybridize(False) first")
    rows, handles, seen = [], [], set()
    totals = [0, 0, 0]

    def hook(b, args, out):
        own = list(b.params.values()) + list(b._reg_params.values())
        counts = _count(dict.fromkeys(own), seen)
        for i in range(3):
            totals[i] += counts[i]
        rows.append((f"{type(b).__name__}-{len(rows) + 1}", _shapes(out), sum(counts[:2])))

    def attach(b):
        handles.append(b.register_forward_hook(hook))
    block.apply(attach)
    try:
        in_shapes = _shapes(list(inputs))
        block(*inputs)
    finally:
        for h in handles:
            h.detach()
    width = 80
    lines = ["-" * width, f"{'Layer (type)':>30}{'Output Shape':>30}{'Param #':>20}",
             "=" * width, f"{'Input':>30}{str(in_shapes[0] if len(in_shapes) == 1 else in_shapes):>30}{0:>20}"]
    for name, shapes, n in rows:
        shape = shapes[0] if len(shapes) == 1 else shapes
        lines.append(f"{name:>30}{str(shape):>30}{n:>20}")
    train, fixed, shared = totals
    lines += ["=" * width, f"Parameters in forward computation graph, duplicate included",
              f"   Total params: {train + fixed + shared}",
              f"   Trainable params: {train}", f"   Non-trainable params: {fixed}",
              f"Shared params in forward computation graph: {shared}",
              f"Unique parameters in model: {train + fixed}", "-" * width]
    return "\n".join(lines)
