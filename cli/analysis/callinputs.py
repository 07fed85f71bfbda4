"""Which op a custom operator's calls wait for when they wait for their inputs.

A call's ``<op_type>::pure_python`` slice carries the call's dependency record (pushed,
ready, the variables it reads and writes: docs/dependencies.md). The engine's rule
rebuilt over every record (``cli/analysis/depgraph.py``, read-only here) gives each
record its *binding* predecessor, the op whose completion made it ready: for a call,
the op that wrote its inputs last. Weighted by how long each call waited for its inputs
(push -> ready), the heaviest predecessor per op type is what the run summary and the
report name in their headline ("waits for its inputs (by FullyConnected)").

Names are the trace's: an op pushed by another custom operator is ``<op>::<name>``, a
whole custom call (its ``pure_python`` record) is named by its op type.
"""
from __future__ import annotations

import numpy as np

SUFFIX = "::pure_python"


def input_writers(tl):
    """``{op_type: name}`` of a :class:`~xprof.traces.model.Trace`: per custom
    op type, the op its calls waited for most (push -> ready), when the trace's
    dependency records tell it; ``{}`` without them."""
    if not tl.has_dependencies:
        return {}
    names = tl.names
    pure = np.array([n.endswith(SUFFIX) for n in names] or [False], dtype=bool)
    from xprof.mxcli.analysis.depgraph import Graph

    g = Graph(tl)
    rows = np.flatnonzero(pure[g.name] & (g.pred >= 0) & (g.ready > g.push))
    waited = {}
    for i in rows.tolist():
        op = names[g.name[i]][:-len(SUFFIX)]
        by = names[g.name[g.pred[i]]]
        by = by[:-len(SUFFIX)] if by.endswith(SUFFIX) else by
        per_op = waited.setdefault(op, {})
        per_op[by] = per_op.get(by, 0) + int(g.ready[i] - g.push[i])
    return {op: max(sorted(ws), key=ws.get) for op, ws in waited.items()}


def input_writers_of_file(path):
    """:func:`input_writers` of the trace at ``path`` (one more pass over the file:
    callers ask only when a headline needs it); ``{}`` if it cannot be read."""
    from xprof.traces.model import Trace
    from xprof.traces.tracefile import TraceError

    try:
        tl = Trace.load(path, links="calls", records=True, keys=False)
    except (OSError, ValueError, TraceError):
        return {}
    return input_writers(tl)
