"""``BucketingModule``: one Module per bucket key (sequence length), sharing parameters.

``sym_gen(key)`` returns ``(symbol, data_names, label_names)`` for a bucket; each
bucket's Module is bound with the default bucket's module as ``shared_module``, so all
buckets use the same parameter and gradient arrays and one optimizer. A batch's
``bucket_key`` (and its ``provide_data``) picks the bucket; a new key binds a new
module. ``sym_gen`` runs under a fresh ``NameManager`` so automatic node names
(``embedding0``) are the same for every bucket.
"""
import logging

from ..context import cpu
from ..initializer import Uniform
from ..name import NameManager
from .base_module import BaseModule
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """Modules per bucket key over shared parameters (see the module docstring)."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=cpu(),
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise ValueError("BucketingModule: default_bucket_key is required")
        if not callable(sym_gen):
            raise ValueError(f"BucketingModule: sym_gen={sym_gen!r} must be callable")
        self._sym_gen = sym_gen
        self._default_bucket_key = default_bucket_key
        self._module_kwargs = dict(logger=logger, context=context,
                                   work_load_list=work_load_list,
                                   fixed_param_names=fixed_param_names,
                                   state_names=state_names, group2ctxs=group2ctxs,
                                   compression_params=compression_params)
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None
        self._arg_params = None
        self._aux_params = None
        sym, data_names, _ = self._call_sym_gen(default_bucket_key)
        self._default_data_names = list(data_names or [])

    def _call_sym_gen(self, key):
        with NameManager():
            out = self._sym_gen(key)
        if not (isinstance(out, tuple) and len(out) == 3):
            raise ValueError("BucketingModule: sym_gen must return (symbol, data_names, "
                             f"label_names), got {out!r}")
        return out

    def _new_module(self, key):
        sym, data_names, label_names = self._call_sym_gen(key)
        return Module(sym, data_names, label_names, **self._module_kwargs)

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule whose parameters come from ``prefix-%04d.params``."""
        from ..model import load_checkpoint
        _, args, auxs = load_checkpoint(prefix, epoch)
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        mod._arg_params, mod._aux_params = args, auxs
        mod.params_initialized = True
        return mod

    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """The default bucket's checkpoint (its symbol and the shared parameters)."""
        self._buckets[self._default_bucket_key].save_checkpoint(prefix, epoch)

    # -- names and shapes -------------------------------------------------------------------
    @property
    def data_names(self):
        return self._curr_module.data_names if self.binded else self._default_data_names

    @property
    def output_names(self):
        return self._curr_module.output_names

    @property
    def data_shapes(self):
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        if self._curr_module is None:
            raise RuntimeError("symbol: call bind first")
        return self._curr_module.symbol

    # -- parameters -------------------------------------------------------------------------
    def get_params(self):
        self._check_ready("get_params")
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if not self._params_wanted(force_init):
            return
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def _copy_given_params(self, arg_params, aux_params, allow_extra):
        self._curr_module.set_params(arg_params, aux_params, allow_missing=True,
                                     force_init=True, allow_extra=allow_extra)

    # -- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req="write"):
        """Bind the default bucket's module."""
        if self.params_initialized and self._curr_module is not None:
            arg_params, aux_params = self.get_params()
        else:
            arg_params, aux_params = self._arg_params, self._aux_params
        if force_rebind:
            self.binded = False
            self._buckets = {}
            self._curr_module = None
        if self.binded:
            logging.warning("bind: already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise ValueError("BucketingModule.bind: shared_module is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        module = self._new_module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        self.binded = True
        if self.params_initialized and arg_params is not None:
            module.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key``'s module current (binding it, sharing the default's
        parameters, the first time)."""
        if not self.binded:
            raise RuntimeError("switch_bucket: call bind first")
        if bucket_key not in self._buckets:
            module = self._new_module(bucket_key)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        previous = self._curr_module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key
        if previous is not self._curr_module and previous.binded:
            # MXNet's buckets share one memory pool: the bucket left behind keeps nothing
            # of its last pass (its outputs go once read)
            for e in previous._exec_group.execs:
                e.release_outputs()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if not self._optimizer_wanted(force_init):
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super().prepare(data_batch, sparse_row_id_fn)
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self.switch_bucket(original, None, None)

    # -- computation ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        self._check_ready("forward")
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            key = self._curr_bucket_key
        self.switch_bucket(key, getattr(data_batch, "provide_data", None),
                           getattr(data_batch, "provide_label", None))
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        self._check_ready("update")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        return self._curr_module.get_states(merge_multi_context)

    def set_states(self, states=None, value=None):
        self._curr_module.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        if not self.binded:
            raise RuntimeError("install_monitor: call bind first")
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)
