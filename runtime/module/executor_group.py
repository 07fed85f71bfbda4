"""``DataParallelExecutorGroup``: one bound executor per context, a batch split between them.

A Module binds its symbol once per context of ``context=[...]`` (MXNet's data
parallelism): each executor gets the slice of the batch along its batch axis (the ``N``
of the data's layout, ``'NCHW'`` by default, ``'TNC'`` puts it on axis 1) in proportion
to ``workload``. Every executor holds its own copy of the parameters; the module sums
their gradients through the kvstore and keeps the copies equal. On xprof's CPU engine
the contexts are labels, not devices: the executors' ops run on the same engine and are
profiled like any other symbolic op (one event per node, or per bulk segment).

Arrays are allocated here (not by ``simple_bind``) so that groups can share them:
a group created with ``shared_group`` (a BucketingModule's other buckets, a reshape)
takes the parameter and gradient arrays of that group, and its inputs and other
non-parameter arguments from the group's ``shared_data_arrays`` when the shape matches.
``ctx_group`` attributes with ``group2ctxs`` place an argument (and its gradient) on the
context of its group.
"""
from collections import OrderedDict

import numpy as np

from ..context import Context
from ..io import DataDesc
from ..symbol.graph import _topo
from ..ndarray import ndarray as _nd, sparse_rules as _sparse_rules

__all__ = ["DataParallelExecutorGroup", "split_batch", "merge_multi_context"]


def split_batch(batch_size, workload):
    """Slices of ``range(batch_size)`` in proportion to ``workload`` (MXNet's
    ``_split_input_slice``); every context gets at least one sample."""
    total = float(sum(workload))
    if total <= 0:
        raise ValueError(f"work_load_list={list(workload)!r} must have a positive sum")
    slices, start = [], 0
    for i, w in enumerate(workload):
        end = batch_size if i == len(workload) - 1 else \
            min(batch_size, start + int(round(batch_size * w / total)))
        if end <= start:
            raise ValueError(f"a batch of {batch_size} cannot be split between "
                             f"{len(workload)} contexts (work_load_list={list(workload)!r}); "
                             "use a larger batch or fewer contexts")
        slices.append(slice(start, end))
        start = end
    return slices


def _take(array, axis, sl, n_total):
    """``array``'s part ``sl`` along ``axis``: the array itself when it is all of it."""
    if sl.start == 0 and sl.stop == n_total:
        return array
    return _nd.invoke("slice_axis", (array,), {"axis": axis, "begin": sl.start,
                                               "end": sl.stop})


def _load(src, targets, slices, axis):
    """Copy the part of ``src`` each executor gets into its bound array (engine ops)."""
    n = src.shape[axis] if src.ndim else 0
    for dst, sl in zip(targets, slices):
        if dst is src:
            continue
        if n == sl.stop - sl.start and sl.start == 0 and src.shape == dst.shape:
            src.copyto(dst)
        elif src.shape[:axis] + src.shape[axis + 1:] == dst.shape[:axis] + dst.shape[axis + 1:]:
            _nd.invoke("slice_axis", (src,), {"axis": axis, "begin": sl.start,
                                              "end": sl.stop}, out=dst)
        else:
            raise ValueError(f"forward: an input of shape {src.shape} does not fit the bound "
                             f"shape {dst.shape} (reshape the module first)")


def merge_multi_context(outputs, axes):
    """Per output, the executors' parts joined along its batch axis (the part itself
    when there is one executor, the first when the axis is unknown)."""
    merged = []
    for parts, axis in zip(outputs, axes):
        if len(parts) == 1 or axis < 0:
            merged.append(parts[0])
        else:
            merged.append(_nd.invoke("concat", tuple(parts), {"dim": axis}))
    return merged


def _descs(shapes):
    """``DataDesc``s of ``shapes`` (``(name, shape)`` pairs accepted, as MXNet does)."""
    return [] if shapes is None else [d if isinstance(d, DataDesc) else DataDesc(*d)
                                      for d in shapes]


class DataParallelExecutorGroup:
    """Executors of one symbol on several contexts (see the module docstring)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=None,
                 fixed_param_names=None, grad_req="write", state_names=None,
                 group2ctxs=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload is not None else [1] * len(self.contexts)
        if len(self.workload) != len(self.contexts):
            raise ValueError(f"work_load_list has {len(self.workload)} item(s) for "
                             f"{len(self.contexts)} contexts")
        self.group2ctxs = self._group2ctxs(group2ctxs)
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        data_shapes = _descs(data_shapes)
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in _descs(label_shapes)]
        self.grad_req = self._grad_reqs(grad_req)
        self.shared_data_arrays = shared_group.shared_data_arrays if shared_group else \
            [{} for _ in self.contexts]
        self.output_names = symbol.list_outputs()
        self.output_layouts = [DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
                               for i in range(len(self.output_names))]
        self.execs = []
        self.total_bytes = 0
        self.bind_exec(data_shapes, label_shapes, shared_group)

    # -- configuration -------------------------------------------------------------------
    def _group2ctxs(self, group2ctxs):
        """One ``{ctx_group: Context}`` per context (MXNet accepts a dict for all, a list
        per context, and lists of contexts per group, one per context)."""
        n = len(self.contexts)
        if group2ctxs is None:
            return [None] * n
        if isinstance(group2ctxs, dict):
            out = []
            for i in range(n):
                d = {}
                for g, c in group2ctxs.items():
                    if isinstance(c, (list, tuple)):
                        if len(c) not in (1, n):
                            raise ValueError(f"group2ctxs[{g!r}] has {len(c)} contexts for "
                                             f"{n} module contexts")
                        c = c[i] if len(c) == n else c[0]
                    d[g] = c
                out.append(d)
            group2ctxs = out
        if not isinstance(group2ctxs, (list, tuple)) or len(group2ctxs) != n:
            raise ValueError(f"group2ctxs must be a dict or a list of {n} dicts, got "
                             f"{group2ctxs!r}")
        for d in group2ctxs:
            for g, c in d.items():
                if not isinstance(c, Context):
                    raise ValueError(f"group2ctxs[{g!r}]={c!r} is not a Context")
        return list(group2ctxs)

    def _grad_reqs(self, grad_req):
        if not self.for_training:
            return {n: "null" for n in self.arg_names}
        if isinstance(grad_req, str):
            base = {n: grad_req for n in self.arg_names}
        elif isinstance(grad_req, (list, tuple)):
            base = dict(zip(self.arg_names, grad_req))
        elif isinstance(grad_req, dict):
            base = {n: grad_req.get(n, "null") for n in self.arg_names}
        else:
            raise ValueError(f"grad_req={grad_req!r} must be a string, a list or a dict")
        out = {}
        for n in self.arg_names:
            if n in self.param_names:
                out[n] = "null" if n in self.fixed_param_names else base[n]
            elif n in self.data_names:
                out[n] = base[n] if self.inputs_need_grad else "null"
            else:
                out[n] = "null"
        return out

    # -- binding ---------------------------------------------------------------------------
    # MXNet's name for each executor's part of the batch (a ``slice`` per context)
    slices = property(lambda self: self._slices)

    def decide_slices(self, data_shapes):
        """The batch size and each executor's slice, from the data's batch axes."""
        sizes = set()
        for d in data_shapes:
            axis = DataDesc.get_batch_axis(getattr(d, "layout", "NCHW"))
            if axis >= 0:
                sizes.add(d.shape[axis])
        if len(sizes) > 1:
            raise ValueError("all data must have the same batch size: "
                             + ", ".join(f"{d.name}={d.shape}" for d in data_shapes))
        self.batch_size = sizes.pop() if sizes else 1
        self._slices = split_batch(self.batch_size, self.workload)
        return self._slices

    def _sliced(self, descs, i):
        out = []
        for d in descs:
            layout = getattr(d, "layout", "NCHW")
            axis = DataDesc.get_batch_axis(layout)
            shape = list(d.shape)
            if axis >= 0 and len(self.contexts) > 1:
                sl = self._slices[i]
                shape[axis] = sl.stop - sl.start
            out.append(DataDesc(d.name, tuple(shape), getattr(d, "dtype", np.float32),
                                layout))
        return out

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or rebind, ``reshape=True``) one executor per context."""
        data_shapes, label_shapes = _descs(data_shapes), _descs(label_shapes)
        self.decide_slices(data_shapes)
        self.data_shapes, self.label_shapes = data_shapes, label_shapes or None
        self.data_layouts = [DataDesc.get_batch_axis(getattr(d, "layout", "NCHW"))
                             for d in data_shapes]
        self.label_layouts = [DataDesc.get_batch_axis(getattr(d, "layout", "NCHW"))
                              for d in label_shapes]
        old = self.execs
        self.execs = []
        for i in range(len(self.contexts)):
            descs = self._sliced(data_shapes, i) + self._sliced(label_shapes, i)
            if reshape and old:
                ex = old[i].reshape(allow_up_sizing=True, partial_shaping=True,
                                    **{d.name: d.shape for d in descs})
            else:
                shared = shared_group.execs[i] if shared_group is not None else None
                ex = self._bind_ith(i, descs, shared)
            self.execs.append(ex)
        self._collect()

    def _ctx_of(self, i, name, attrs):
        groups = self.group2ctxs[i]
        g = attrs.get(name, {}).get("ctx_group") if groups else None
        return groups.get(g, self.contexts[i]) if g is not None else self.contexts[i]

    def _bind_ith(self, i, descs, shared_exec):
        sym = self.symbol
        shapes = {d.name: d.shape for d in descs}
        dtypes = {d.name: np.dtype(d.dtype) for d in descs}
        arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
        if arg_shapes is None:
            raise ValueError("bind: cannot infer every argument's shape from "
                             + ", ".join(f"{k}={v}" for k, v in shapes.items()))
        arg_types, _, aux_types = sym.infer_type(**dtypes)
        if arg_types is None:
            arg_types = [np.float32] * len(self.arg_names)
            aux_types = [np.float32] * len(self.aux_names)
        attrs = sym.attr_dict()
        stypes, grad_stypes = _sparse_rules.bind_stypes(_topo(sym._outputs))
        shared_data = self.shared_data_arrays[i]
        args, grads, aux = [], {}, []
        for name, shape, dtype in zip(self.arg_names, arg_shapes, arg_types):
            ctx = self._ctx_of(i, name, attrs)
            req = self.grad_req[name]
            if name in self.param_names:
                if shared_exec is not None and name in shared_exec.arg_dict:
                    arr = shared_exec.arg_dict[name]
                    if arr.shape != tuple(shape):
                        raise ValueError(f"bind: shared parameter {name!r} has shape "
                                         f"{arr.shape}, this symbol needs {tuple(shape)}")
                    grad = shared_exec.grad_dict.get(name) if req != "null" else None
                    if req != "null" and grad is None:
                        grad = self._zeros(shape, dtype, ctx, grad_stypes.get(name))
                else:
                    arr = self._zeros(shape, dtype, ctx, stypes.get(name))
                    grad = self._zeros(shape, dtype, ctx, grad_stypes.get(name)) \
                        if req != "null" else None
            else:
                arr = shared_data.get(name)
                if arr is None or arr.shape != tuple(shape) or arr._dtype != np.dtype(dtype):
                    arr = self._zeros(shape, dtype, ctx, stypes.get(name))
                    shared_data[name] = arr
                grad = self._zeros(shape, dtype, ctx) if req != "null" else None
            args.append(arr)
            if grad is not None:
                grads[name] = grad
        for name, shape, dtype in zip(self.aux_names, aux_shapes, aux_types):
            if shared_exec is not None and name in shared_exec.aux_dict \
                    and shared_exec.aux_dict[name].shape == tuple(shape):
                aux.append(shared_exec.aux_dict[name])
            else:
                aux.append(self._zeros(shape, dtype, self._ctx_of(i, name, attrs)))
        return sym.bind(self.contexts[i], args, args_grad=grads or None,
                        grad_req={n: r for n, r in self.grad_req.items() if n in grads},
                        aux_states=aux)

    def _zeros(self, shape, dtype, ctx, stype=None):
        a = _nd.new_array(tuple(shape), np.dtype(dtype), ctx, "module",
                          _sparse_rules.class_of(stype) if stype else _nd.NDArray)
        a._data = np.zeros(a.shape, a._dtype)
        self.total_bytes += a._data.nbytes
        return a

    def _collect(self):
        """The arrays the module reads, by kind: per name, one array per executor."""
        execs = self.execs
        self.param_arrays = [[e.arg_dict[n] for e in execs] for n in self.param_names
                             if n in self.arg_names]
        self.grad_arrays = [[e.grad_dict.get(n) for e in execs] for n in self.param_names
                            if n in self.arg_names]
        self.aux_arrays = [[e.aux_dict[n] for e in execs] for n in self.aux_names]
        self.data_arrays = [[e.arg_dict[d.name] for e in execs] for d in self.data_shapes]
        self.label_arrays = [[e.arg_dict[d.name] for e in execs] for d in
                             (self.label_shapes or []) if d.name in self.arg_names]
        self.input_grad_arrays = [[e.grad_dict.get(d.name) for e in execs]
                                  for d in self.data_shapes] if self.inputs_need_grad else []
        self.state_arrays = [[e.arg_dict[n] for e in execs] for n in self.state_names]

    def reshape(self, data_shapes, label_shapes):
        """Rebind for new input shapes; parameters and gradients stay shared."""
        if list(data_shapes) == self.data_shapes and \
                (_descs(label_shapes) or None) == self.label_shapes:
            return
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # -- parameters --------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Average each parameter over the executors into ``arg_params``/``aux_params``."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                if len(block) == 1:
                    w = block[0]
                else:
                    w = _nd.invoke("add_n", tuple(block), {}) / len(block)
                dst = target[name]
                if w._dtype != dst._dtype:
                    w = w.astype(dst._dtype)
                w.copyto(dst)

    # -- running ---------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Load the batch's slices into the executors and run their forward passes."""
        if is_train is None:
            is_train = self.for_training
        data = getattr(data_batch, "data", None)
        if data is None:
            raise ValueError("forward: the batch has no data")
        for src, targets, axis in zip(data, self.data_arrays, self.data_layouts):
            _load(_as_nd(src), targets, self._slices, axis)
        label = getattr(data_batch, "label", None)
        if label and self.label_arrays:
            for src, targets, axis in zip(label, self.label_arrays, self.label_layouts):
                _load(_as_nd(src), targets, self._slices, axis)
        for e in self.execs:
            e._releasing = True      # its passes' arrays go after their last reader
            e.forward(is_train=is_train)
            if not is_train:      # nothing reads its intermediates: released when done
                e.release_temporaries(after_backward=False)

    def backward(self, out_grads=None):
        if not self.for_training:
            raise ValueError("backward: the module was bound with for_training=False")
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for i, e in enumerate(self.execs):
            if out_grads is None:
                e.backward()
            else:
                parts = []
                for g, axis in zip(out_grads, self.output_layouts):
                    g = _as_nd(g)
                    parts.append(_take(g, axis, self._slices[i], g.shape[axis])
                                 if axis >= 0 and len(self.execs) > 1 else g)
                e.backward(out_grads=parts)
            # a Module's pass is done with its intermediates and backward's buffers:
            # released as soon as the ops reading them are (MXNet shares one pass's
            # memory between its executors; a bucketing module keeps one bucket's)
            e.release_temporaries(after_backward=True)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        end = len(self.output_names) if end is None else end
        outputs = [[e.outputs[j] for e in self.execs] for j in range(begin, end)]
        if merge_multi_context:
            return _merge(outputs, self.output_layouts[begin:end])
        return outputs

    def get_output_shapes(self):
        shapes = []
        for j, (name, axis) in enumerate(zip(self.output_names, self.output_layouts)):
            shape = list(self.execs[0].outputs[j].shape)
            if axis >= 0 and len(self.execs) > 1:
                shape[axis] = sum(e.outputs[j].shape[axis] for e in self.execs)
            shapes.append((name, tuple(shape)))
        return shapes

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise ValueError("get_input_grads: bind with inputs_need_grad=True first")
        if merge_multi_context:
            if any(g is None for block in self.input_grad_arrays for g in block):
                return [None if block[0] is None else block[0]
                        for block in self.input_grad_arrays] \
                    if len(self.execs) == 1 else [None] * len(self.input_grad_arrays)
            return _merge(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def get_states(self, merge_multi_context=True):
        if merge_multi_context:
            return _merge(self.state_arrays, [-1] * len(self.state_arrays))
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the recurrent states from arrays (per state, per executor) or one value."""
        if (states is None) == (value is None):
            raise ValueError("set_states: give exactly one of states and value")
        if value is not None:
            for block in self.state_arrays:
                for a in block:
                    a[:] = value
            return
        if len(states) != len(self.state_arrays):
            raise ValueError(f"set_states: {len(states)} states for "
                             f"{len(self.state_arrays)} state names")
        for src, dst in zip(states, self.state_arrays):
            src = src if isinstance(src, (list, tuple)) else [src]
            if len(src) != len(dst):
                raise ValueError(f"set_states: {len(src)} arrays for {len(dst)} contexts")
            for s, d in zip(src, dst):
                s.copyto(d)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with each executor's outputs and its labels' slice."""
        for i, e in enumerate(self.execs):
            if pre_sliced:
                part = labels[i]
            elif len(self.execs) == 1:
                part = labels
            else:
                part = [_take(_as_nd(lab), axis, self._slices[i], _as_nd(lab).shape[axis])
                        if axis >= 0 else lab
                        for lab, axis in zip(labels, self.label_layouts or
                                             [0] * len(labels))]
            label_dict = OrderedDict(zip(self.label_names, part or []))
            pred_dict = OrderedDict(zip(self.output_names, e.outputs))
            eval_metric.update_dict(label_dict, pred_dict)

    def install_monitor(self, mon):
        for e in self.execs:
            mon.install(e)


_merge = merge_multi_context


def _as_nd(x):
    if isinstance(x, _nd.NDArray):
        return x
    return _nd.from_numpy(np.asarray(x, dtype=np.float32)
                          if not isinstance(x, np.ndarray) else x)
