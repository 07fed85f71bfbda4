"""Steps and bulk segments of an executor's passes.

Bulk execution. Consecutive steps are grouped into *segments* that run as ONE engine op
(one push, one profile event), which removes most of the per-op engine overhead of
graphs made of many small ops. A segment reads the union of its members' external
inputs, writes all their outputs, and runs the kernels in order. Its profile event is
named after every member op, in order and never truncated (``[Convolution,Activation,
Pooling]``), and its args list the members' node names (``{"nodes": "conv0,relu0,pool0"}``).
Custom-operator nodes end a segment (they run asynchronously on their own threads).
Settings, read at every ``forward``/``backward`` (``XPROF_`` or ``MXNET_`` prefix):

* ``EXEC_BULK_EXEC_INFERENCE`` (default 1): bulk forward passes with ``is_train=False``;
  as in MXNet, an inference segment has no size limit unless
  ``EXEC_BULK_EXEC_MAX_NODE_INFERENCE`` (an xprof addition) sets one.
* ``EXEC_BULK_EXEC_TRAIN`` (default 1): bulk training forward and backward passes, in
  segments of at most ``EXEC_BULK_EXEC_MAX_NODE_TRAIN`` (default 15) steps, overridden
  per pass by ``EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD`` / ``..._BWD``.
"""
from .. import _env
from ..engine.base import MODE_SYMBOLIC
from ..ndarray import ndarray as _nd


class _Step:
    """One kernel run: ``fn(*args)`` reading ``reads`` and writing ``writes``."""

    __slots__ = ("opname", "label", "fn", "args", "reads", "writes", "cost", "attrs",
                 "push", "watch", "watch_in")

    def __init__(self, opname, label, fn, args, reads, writes, cost, push=None):
        self.opname = opname
        self.label = label
        self.fn = fn
        self.args = args
        self.reads = reads
        self.writes = writes
        self.cost = cost
        self.attrs = {"name": label}
        self.push = push    # a callable replacing the single-op push (push_op / Custom)
        self.watch = ()     # (name, array) of its results, for a monitor callback
        self.watch_in = ()  # (name, array, is the variable's own name) of its inputs (monitor_all)


def _dedupe(reads, writes):
    w, seen = [], set()
    for v in writes:
        if id(v) not in seen:
            seen.add(id(v))
            w.append(v)
    r, rseen = [], set()
    for v in reads:
        if id(v) not in seen and id(v) not in rseen:
            rseen.add(id(v))
            r.append(v)
    return r, w


# Operators MXNet 1.x registers without input names (its unary macro: FListInputNames not
# set): a monitor calls their inputs ``<node>_input<i>``, not ``<node>_data``
_UNLISTED_INPUT_NAMES = frozenset(
    "Activation BlockGrad SoftmaxActivation abs arccos arccosh arcsin arcsinh arctan arctanh "
    "cbrt ceil cos cosh degrees erf erfinv exp expm1 fix floor gamma gammaln hard_sigmoid log "
    "log10 log1p log2 logical_not make_loss negative radians rcbrt reciprocal relu rint round "
    "rsqrt sigmoid sign sin sinh softsign sqrt square tan tanh trunc _copy".split())


def _watch(step, node, ins, outs):
    """What a monitor callback sees of a forward step, as MXNet names it: its results
    (``<node>_output``) and, with ``monitor_all``, each input: a variable's own name
    first, then ``<node>_<input name>``."""
    names = node.output_names()
    hidden = node.op.output_names if node.op is not None else None
    for i in range(len(names), len(outs)):   # hidden outputs: by the operator's name for them
        names.append(f"{node.name}_{hidden[i]}" if hidden and i < len(hidden)
                     else f"{node.name}_output{i}")
    step.watch = [(name.encode(), o) for name, o in zip(names, outs)]
    if node.op.name in _UNLISTED_INPUT_NAMES:
        arg_names = [f"input{i}" for i in range(len(node.inputs))]
    else:
        arg_names = node.arg_names() + node.aux_names()
    watch_in = []
    for i, ((src, _), x) in enumerate(zip(node.inputs, ins)):
        if src.op is None:
            watch_in.append((src.name.encode(), x, True))
        arg = arg_names[i] if i < len(arg_names) else f"input{i}"
        watch_in.append((f"{node.name}_{arg}".encode(), x, False))
    step.watch_in = watch_in


def _run_segment(calls):
    """Engine function of a bulk segment: run every member kernel in order."""
    for fn, args, label, opname in calls:
        try:
            fn(*args)
        except Exception as e:
            e.add_note(f"(in node {label!r}, operator {opname}, of a bulk segment)")
            raise


class _Segment:
    __slots__ = ("calls", "reads", "writes", "name", "cost", "attrs")

    def __init__(self, steps):
        self.calls = tuple((s.fn, s.args, s.label, s.opname) for s in steps)
        reads, writes = [], []
        for s in steps:
            reads.extend(s.reads)
            writes.extend(s.writes)
        self.reads, self.writes = _dedupe(reads, writes)
        self.name = "[" + ",".join(s.opname for s in steps) + "]"
        self.cost = sum(s.cost for s in steps)
        self.attrs = {"nodes": ",".join(s.label for s in steps)}

    def __call__(self):
        _nd.engine_push(_run_segment, (self.calls,), self.reads, self.writes, self.name,
                        mode=MODE_SYMBOLIC, cost=self.cost, attrs=self.attrs)


def _single(step):
    if step.push is not None:
        return step.push

    def push():
        _nd.engine_push(step.fn, step.args, step.reads, step.writes, step.opname,
                        mode=MODE_SYMBOLIC, cost=step.cost, attrs=step.attrs)
    return push


def _segments(steps, max_nodes):
    """Group ``steps`` into push callables; a stateful op's step (``fn is None``: it pushes
    itself, as ``Custom``) breaks groups."""
    plan, cur = [], []

    def flush():
        if len(cur) == 1:
            plan.append(_single(cur[0]))
        elif cur:
            plan.append(_Segment(cur))
        cur.clear()

    for s in steps:
        if s.fn is None:
            flush()
            plan.append(s.push)
            continue
        cur.append(s)
        if max_nodes and len(cur) >= max_nodes:
            flush()
    flush()
    return plan


def _bulk_settings(kind):
    """(bulk on, max nodes per segment; 0 = unlimited) for 'inference'|'fwd'|'bwd'."""
    if kind == "inference":
        on = _env.get_bool("EXEC_BULK_EXEC_INFERENCE", True)
        return on, _env.get_int("EXEC_BULK_EXEC_MAX_NODE_INFERENCE", 0)
    on = _env.get_bool("EXEC_BULK_EXEC_TRAIN", True)
    n = _env.get_int("EXEC_BULK_EXEC_MAX_NODE_TRAIN", 15)
    n = _env.get_int("EXEC_BULK_EXEC_MAX_NODE_TRAIN_" + kind.upper(), n)
    return on and n > 1, n
