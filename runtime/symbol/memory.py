"""How an executor's arrays use memory between and within its passes, as MXNet's engine and
memory planner keep it: a Module's forward intermediates and backward buffers released
once their last reader is done (a ``DeleteVariable`` pushed as a write of each: the
engine starts it after every earlier op reading the array), the values no gradient reads
(``OpDef.grad_reads``) dropped right after a training forward, keeping a shape-only
placeholder, a bucket left behind keeping nothing, a variable's many gradient parts
summed as they come (``_grad_add``), head gradients of ones that take no memory. The
next pass writes the arrays again (:func:`..ndarray.release.retake` logs it)."""
import numpy as np

from ..engine.base import MODE_INTERNAL
from ..ndarray import ndarray as _nd
from ..ndarray import release as _release
from .segments import _Step

__all__ = ["ExecutorMemory", "fill_ones", "grad_add"]


def fill_ones(head):
    """A head gradient of ones: one value broadcast to the output's shape (read-only, as
    every kernel's input; a loss's output, often the largest array, costs nothing)."""
    head._data = np.broadcast_to(np.ones((), head._dtype), head.shape)


def grad_add(total, part):
    return np.add(total, part)


_run = _nd._run


def _push_drop(fn, arrays):
    push = _nd.engine_push
    for a in arrays:
        push(fn, (a,), [], [a], "DeleteVariable", 0, MODE_INTERNAL, 0, None)


class ExecutorMemory:
    """The memory half of :class:`.executor.Executor` (see the module docstring)."""

    def _temporaries(self):
        """(forward intermediates, backward's own buffers): the arrays of this executor
        that nobody reads once its passes are done (not its outputs, arguments,
        auxiliary states, gradients or head gradients)."""
        temps = getattr(self, "_temps", None)
        if temps is None:
            keep = {id(a) for a in (self.outputs + self.arg_arrays + self.aux_arrays
                                    + [g for g in self.grad_arrays if g is not None]
                                    + self._head_buffers())}
            fwd, seen = [], set(keep)
            for n in self._order:
                if n.op is not None:
                    for i in range(n.num_outputs()):
                        a = self._entry[(id(n), i)]
                        if id(a) not in seen:
                            seen.add(id(a))
                            fwd.append(a)
            bwd = []
            for step in self._backward_steps():
                for a in step.writes:
                    if isinstance(a, _nd.NDArray) and id(a) not in seen:
                        seen.add(id(a))
                        bwd.append(a)
            temps = self._temps = (fwd, bwd)
        return temps

    def release_temporaries(self, after_backward):
        """Push the release of the arrays the last pass left behind: after ``backward``
        the forward intermediates and backward's buffers, after an inference
        ``forward`` its intermediates. Each goes when the last op reading it is done
        (the engine orders a release after them), so a Module holds one pass's memory
        at a time, as MXNet's executors do; the next pass allocates them again. Not
        with a monitor (it reads every array)."""
        if self._monitor is not None:
            return
        fwd, bwd = self._temporaries() if after_backward else (self._inference_temps(), [])
        if after_backward and self._head_state == "ones":
            bwd = bwd + self._head_buffers()       # ones again at the next backward
            self._head_state = "dropped"
        _push_drop(_release.drop_data, fwd + bwd)
        self._dropped = fwd
        self._dropped_bwd = bwd

    def release_outputs(self):
        """Push the release of the outputs (and head gradients) too: a bucketing
        module's bucket left behind (MXNet's buckets share one memory pool)."""
        if self._monitor is not None:
            return
        outs = [a for a in self.outputs if not any(a is x for x in self.arg_arrays)]
        _push_drop(_release.drop_data, outs)
        self._dropped = (getattr(self, "_dropped", None) or []) + outs
        if self._head_state == "ones":
            heads = self._head_buffers()
            _push_drop(_release.drop_data, heads)
            self._dropped_bwd = (getattr(self, "_dropped_bwd", None) or []) + heads
            self._head_state = "dropped"

    def _unread_by_backward(self):
        """The forward intermediates no gradient op reads the values of (their ops'
        ``grad_reads``: a FullyConnected's output, a SliceChannel's input...): after a
        training forward they go at once, leaving a shape-only placeholder."""
        early = getattr(self, "_early", None)
        if early is not None:
            return early
        reqs = self._grad_req
        need = set()
        for n in self._order:
            if n.op is None:
                if reqs.get(n.name, "null") != "null" and n.name in self.arg_dict:
                    need.add(id(n))
            elif any(id(c) in need for c, _ in n.inputs[:n.n_args]):
                need.add(id(n))
        read = set()
        for n in self._order:
            if n.op is None or id(n) not in need:
                continue
            rule = None if n.op.stateful else n.op.grad_reads
            reads = rule(n.full_params()) if rule is not None else None
            if reads is None:
                read.update((id(c), i) for c, i in n.inputs)
                read.update((id(n), i) for i in range(n.num_outputs()))
                continue
            inputs, outputs = reads
            read.update((id(n.inputs[k][0]), n.inputs[k][1]) for k in inputs
                        if k < len(n.inputs))
            if outputs:
                read.update((id(n), i) for i in range(n.num_outputs()))
        keep = {id(a) for a in self.outputs + self.arg_arrays + self.aux_arrays}
        early = self._early = [a for key, a in self._entry.items()
                               if key not in read and id(a) not in keep]
        return early

    def _inference_temps(self):
        keep = {id(a) for a in self.outputs + self.arg_arrays + self.aux_arrays}
        return [a for a in self._entry.values() if id(a) not in keep]

    def _retake(self, attr="_dropped"):
        """Before a pass: its dropped arrays are written again (memory log): the
        forward's at ``forward``, backward's (``_dropped_bwd``) at ``backward``."""
        dropped = getattr(self, attr, None)
        if dropped:
            _release.retake(dropped)
            setattr(self, attr, None)

    @staticmethod
    def _chain_steps(steps, added, label):
        """After a node's gradient step: each chained part added into its variable's
        running sum (``_grad_add``, MXNet's name)."""
        for total, part in added:
            steps.append(_Step("_grad_add", label, _run, (grad_add, [total, part], [total],
                                                          {}),
                               [total, part], [total], total.size))

