"""``Module``: a symbol with its parameters, bound on one or more contexts, trained by
an optimizer through a kvstore, as MXNet 1.x's ``mx.mod.Module``.

One training step travels: ``forward`` copies the batch's slices into each executor's
bound inputs (``CopyCPU2CPU`` / ``slice_axis`` ops) and pushes the forward pass
(symbolic ops, in bulk segments unless bulk is off: ``xprof run`` turns it off);
``backward`` pushes the gradient ops; ``update`` sums each parameter's gradients over
the contexts and applies the optimizer's update op (``sgd_update``...), either inside
the kvstore (``update_on_kvstore``: several contexts) or through the module's own
updater (one context: no kvstore, as in MXNet). Nothing waits: the first sync point is
what reads a value (a metric, ``get_params``, a callback).

Checkpoints are MXNet's files: ``prefix-symbol.json``, ``prefix-%04d.params``
(``arg:``/``aux:`` names, MXNet's binary NDArray format) and ``prefix-%04d.states``
(the optimizer states).
"""
import logging
import os

import numpy as np

from .. import kvstore as _kvs
from .. import optimizer as _opt
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..ndarray import ndarray as _nd
from .base_module import BaseModule, check_input_names, parse_data_desc
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


def _contexts(context):
    ctxs = list(context) if isinstance(context, (list, tuple)) else [context]
    if not ctxs:
        raise ValueError("Module: context must name at least one Context")
    for c in ctxs:
        if not isinstance(c, Context):
            raise ValueError(f"Module: context {c!r} is not a Context (use mx.cpu())")
        c.check_available()
    return ctxs


def _create_kvstore(kvstore, num_device):
    """(kvstore or None, update_on_kvstore), as MXNet decides: one device and a local
    store need no store at all."""
    update_on_kvstore = os.environ.get("MXNET_UPDATE_ON_KVSTORE", "1") not in ("0", "")
    if kvstore is None:
        return None, False
    if isinstance(kvstore, _kvs.KVStore):
        return kvstore, update_on_kvstore
    if not isinstance(kvstore, str):
        raise ValueError(f"kvstore={kvstore!r} must be a KVStore, a type name or None")
    if num_device == 1 and "dist" not in kvstore:
        return None, False
    return _kvs.create(kvstore), update_on_kvstore


def _host_zeros(like):
    """The module's own copy of a parameter: zeros shaped and typed like ``like``."""
    a = _nd.new_array(like.shape, like._dtype, cpu(), "module", type(like))
    a._data = np.zeros(like.shape, like._dtype)
    return a


class Module(BaseModule):
    """A symbol bound for training or inference (see the module docstring)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        from ..symbol import Symbol
        if not isinstance(symbol, Symbol):
            raise ValueError(f"Module: symbol must be an mx.sym.Symbol, not "
                             f"{type(symbol).__name__}")
        self._context = _contexts(context)
        self._work_load_list = list(work_load_list) if work_load_list is not None \
            else [1] * len(self._context)
        if len(self._work_load_list) != len(self._context):
            raise ValueError(f"Module: work_load_list has {len(self._work_load_list)} "
                             f"item(s) for {len(self._context)} contexts")
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        check_input_names(symbol, self._data_names, "data", True)
        check_input_names(symbol, self._label_names, "label", False)
        check_input_names(symbol, self._state_names, "state", True)
        check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [a for a in symbol.list_arguments() if a not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._compression_params = compression_params
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # -- checkpoints ------------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params``."""
        from ..model import load_checkpoint
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{epoch:04d}.states"
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False,
                        remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        from ..model import save_symbol_file
        save_symbol_file(f"{prefix}-symbol.json", self._symbol)
        self.save_params(f"{prefix}-{epoch:04d}.params")
        if save_optimizer_states:
            self.save_optimizer_states(f"{prefix}-{epoch:04d}.states")

    # -- names and shapes -------------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._exec_group.get_output_shapes()

    @property
    def _total_exec_bytes(self):
        return self._exec_group.total_bytes if self._exec_group is not None else 0

    @_total_exec_bytes.setter
    def _total_exec_bytes(self, value):
        pass   # BaseModule's default; the figure comes from the executor group

    def _check_bound(self, what):
        if not self.binded:
            raise RuntimeError(f"{what}: call bind first")

    # -- parameters -------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: the parameters averaged over the contexts."""
        self._check_ready("get_params")
        if self._params_dirty:
            self._exec_group.get_params(self._arg_params, self._aux_params)
            self._params_dirty = False
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Fill every parameter: from ``arg_params``/``aux_params`` where given, else
        by ``initializer`` (a variable's own ``init=`` attribute first)."""
        if not self._params_wanted(force_init):
            return
        attrs = self._symbol.attr_dict()

        def fill(name, arr, given):
            if given is not None:
                if name in given:
                    src = given[name]
                    if src is not arr:
                        if src.shape != arr.shape:
                            raise ValueError(f"init_params: {name!r} has shape "
                                             f"{src.shape}, the module needs {arr.shape}")
                        src.copyto(arr)
                    return
                if not allow_missing:
                    raise RuntimeError(f"init_params: {name!r} is not in the given "
                                       "parameters (pass allow_missing=True to initialize "
                                       "it instead)")
            if initializer is not None:
                initializer(InitDesc(name, attrs.get(name)), arr)

        for name, arr in sorted(self._arg_params.items()):
            fill(name, arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            fill(name, arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params,
                                    allow_extra=allow_extra)

    def _copy_given_params(self, arg_params, aux_params, allow_extra):
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)

    # -- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req="write"):
        """Bind one executor per context for these input shapes."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            logging.warning("bind: already bound, ignoring bind(); pass "
                            "force_rebind=True to bind again")
            return
        if not for_training and inputs_need_grad:
            raise ValueError("bind: inputs_need_grad=True needs for_training=True")
        data_shapes = parse_data_desc(self._data_names, data_shapes, "data", True)
        label_shapes = parse_data_desc(self._label_names, label_shapes, "label", False)
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = data_shapes, label_shapes
        shared_group = None
        if shared_module is not None:
            if not (shared_module.binded and shared_module.params_initialized):
                raise ValueError("bind: shared_module must be bound and initialized")
            shared_group = shared_module._exec_group
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, data_shapes, label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group,
            logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, group2ctxs=self._group2ctxs, state_names=self._state_names)
        self.binded = True
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            group = self._exec_group
            self._arg_params = {n: _host_zeros(b[0]) for n, b in
                                zip(self._param_names, group.param_arrays)}
            self._aux_params = {n: _host_zeros(b[0]) for n, b in
                                zip(self._aux_names, group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    def reshape(self, data_shapes, label_shapes=None):
        """Rebind for new input shapes (a new batch size), keeping the parameters."""
        self._check_bound("reshape")
        self._data_shapes = parse_data_desc(self._data_names, data_shapes, "data", True)
        self._label_shapes = parse_data_desc(self._label_names, label_shapes, "label",
                                             False)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # -- optimizer --------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Create the optimizer (and the kvstore when several contexts need one)."""
        if not self._optimizer_wanted(force_init):
            return
        if self._params_dirty:
            self.get_params()
        ndev = len(self._context)
        kv, update_on_kvstore = _create_kvstore(kvstore, ndev)
        batch_size = self._exec_group.batch_size
        rescale_grad = 1.0 / batch_size
        if update_on_kvstore:
            idx2name = dict(enumerate(self._exec_group.param_names))
        else:
            idx2name = {i * ndev + k: n for i, n in enumerate(self._exec_group.param_names)
                        for k in range(ndev)}
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            optimizer = _opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                    **params)
        elif isinstance(optimizer, _opt.Optimizer):
            if optimizer.rescale_grad != rescale_grad:
                logging.warning("init_optimizer: the optimizer's rescale_grad is %s, not "
                                "1/batch_size = %s; is that intended?",
                                optimizer.rescale_grad, rescale_grad)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        else:
            raise ValueError(f"init_optimizer: optimizer={optimizer!r} must be a name or "
                             "an mx.optimizer.Optimizer")
        self._apply_symbol_mults(optimizer)
        self._optimizer = optimizer
        self._kvstore = kv
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kv is not None:
            if update_on_kvstore:
                kv.set_optimizer(optimizer)
            for idx, name in enumerate(self._exec_group.param_names):
                kv.init(name, self._arg_params[name])
                if update_on_kvstore:
                    kv.pull(name, self._exec_group.param_arrays[idx], priority=-idx,
                            ignore_sparse=False)
        if not update_on_kvstore:
            self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _apply_symbol_mults(self, optimizer):
        """``lr_mult``/``wd_mult`` attributes of the symbol's argument variables, by name
        (an operator node's attribute reaches its variables when the symbol is built)."""
        lr, wd = {}, {}
        arguments = set(self._symbol.list_arguments())
        for name, attrs in self._symbol.attr_dict().items():
            if name not in arguments:
                continue
            if "__lr_mult__" in attrs:
                lr[name] = float(attrs["__lr_mult__"])
            if "__wd_mult__" in attrs:
                wd[name] = float(attrs["__wd_mult__"])
        if lr:
            optimizer.set_lr_mult({**lr, **optimizer.lr_mult})
        if wd:
            optimizer.set_wd_mult({**wd, **optimizer.wd_mult})

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (bucketing)."""
        if not shared_module.optimizer_initialized:
            raise ValueError("borrow_optimizer: the shared module has no optimizer yet")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        """Write the optimizer states to ``fname`` (temp file, then rename)."""
        if not self.optimizer_initialized:
            raise RuntimeError("save_optimizer_states: call init_optimizer first")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
            return
        from ..model import write_file
        write_file(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        if not self.optimizer_initialized:
            raise RuntimeError("load_optimizer_states: call init_optimizer first")
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    # -- computation ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the forward pass on ``data_batch`` (rebinding when its shapes differ)."""
        self._check_ready("forward")
        curr = tuple(d.shape for d in self._data_shapes)
        provide = getattr(data_batch, "provide_data", None)
        if provide is not None:
            new = tuple(d.shape for d in provide)
        else:
            new = tuple(d.shape for d in data_batch.data)
        if curr != new:
            if provide is not None:
                new_dshape = provide
            else:
                new_dshape = [DataDesc(d.name, x.shape, d.dtype, d.layout)
                              for d, x in zip(self._data_shapes, data_batch.data)]
            label = getattr(data_batch, "label", None)
            new_lshape = getattr(data_batch, "provide_label", None)
            if new_lshape is None and label and self._label_shapes:
                new_lshape = [DataDesc(d.name, x.shape, d.dtype, d.layout)
                              for d, x in zip(self._label_shapes, label)]
            elif new_lshape is None:
                new_lshape = self._label_shapes
            self.reshape(new_dshape, new_lshape)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        self._check_ready("backward")
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to every parameter with a gradient (engine ops only)."""
        self._check_ready("update")
        if not self.optimizer_initialized:
            raise RuntimeError("update: call init_optimizer first")
        self._params_dirty = True
        group = self._exec_group
        kv = self._kvstore
        ndev = len(self._context)
        per_device = [[] for _ in range(ndev)]   # MXNet 1.9.1's model._update_params
        for idx, (name, weights, grads) in enumerate(zip(group.param_names,
                                                         group.param_arrays,
                                                         group.grad_arrays)):
            if grads[0] is None:
                continue
            if self._update_on_kvstore:
                kv.push(name, grads, priority=-idx)
                kv.pull(name, weights, priority=-idx, ignore_sparse=False)  # whole rows
                continue
            if kv is not None:
                kv.push(name, grads, priority=-idx)
                kv.pull(name, grads, priority=-idx, ignore_sparse=False)
            for k, (w, g) in enumerate(zip(weights, grads)):
                per_device[k].append((idx * ndev + k, g, w))
        for updates in per_device:      # one updater call per device: aggregated updates
            if updates:
                self._updater(*[list(x) for x in zip(*updates)])

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise RuntimeError("get_input_grads: bind with inputs_need_grad=True first")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        self._check_ready("get_states")
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready("set_states")
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_bound("install_monitor")
        self._exec_group.install_monitor(mon)

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False
