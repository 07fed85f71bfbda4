"""The structure of a block's inputs and outputs: ``None`` and nested lists/tuples of
arrays (or Symbols), as MXNet's Gluon accepts them, taken apart into a flat list of
leaves and a format, and put back together. A hybridized graph takes and gives flat
lists; ``_hybrid.py`` and ``_trace.py`` regroup them for the block's code."""

__all__ = ["flatten_inputs", "regroup_inputs"]


def _flatten(out):
    """(flat list, format) of a block's result (arrays or Symbols in lists/tuples)."""
    if isinstance(out, (list, tuple)):
        flat, fmt = [], []
        for o in out:
            f, sub = _flatten(o)
            flat.extend(f)
            fmt.append(sub)
        return flat, (type(out), fmt)
    return [out], None


def _regroup(items, fmt):
    return _regroup_one(fmt, iter(items))


def _regroup_one(f, it):
    """(module-level recursion: see _walk)"""
    if f is None:
        return next(it)
    kind, subs = f
    return kind(_regroup_one(s, it) for s in subs) if kind is tuple else \
        [_regroup_one(s, it) for s in subs]


_NONE, _LEAF = "none", "leaf"


def flatten_inputs(args):
    """(leaves, format) of a block's arguments: ``None`` and (nested) lists/tuples are
    kept in ``format``, everything else is a leaf."""
    leaves = []
    return leaves, tuple(_walk(a, leaves) for a in args)


# Module-level recursion, not closures: a nested function that calls itself is a reference
# cycle (function -> cell -> function) holding the arrays it captured until the cyclic
# collector runs, which it rarely does (engine/__init__.py raises its threshold)
def _walk(a, leaves):
    if a is None:
        return _NONE
    if isinstance(a, (list, tuple)):
        return (type(a), tuple(_walk(x, leaves) for x in a))
    leaves.append(a)
    return _LEAF


def regroup_inputs(leaves, fmt):
    """The arguments ``flatten_inputs`` took apart, with ``leaves`` in their places."""
    it = iter(leaves)
    return [_build(f, it) for f in fmt]


def _build(f, it):
    if f is _NONE or f == _NONE:
        return None
    if f == _LEAF:
        return next(it)
    kind, subs = f
    return kind(_build(x, it) for x in subs)
