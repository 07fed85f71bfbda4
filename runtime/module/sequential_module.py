"""``SequentialModule``: modules run one after another, each fed the previous one's
outputs.

``add(module, take_labels=False, auto_wiring=False)``: ``take_labels`` gives that
module the batch's labels; ``auto_wiring`` renames the previous outputs to the
module's ``data_names``. Binding chains the shapes (a module's data shapes are the
previous module's output shapes) and, when training, binds every module after the
first with ``inputs_need_grad=True`` so that ``backward`` can pass each module's input
gradients to the one before it.
"""
import logging

from ..initializer import Uniform
from ..io import DataBatch, DataDesc
from .base_module import BaseModule

__all__ = ["SequentialModule"]

META_TAKE_LABELS = "take_labels"
META_AUTO_WIRING = "auto_wiring"
_META_KEYS = (META_TAKE_LABELS, META_AUTO_WIRING)


class SequentialModule(BaseModule):
    """A chain of modules (see the module docstring)."""

    META_TAKE_LABELS = META_TAKE_LABELS
    META_AUTO_WIRING = META_AUTO_WIRING

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None

    def add(self, module, **kwargs):
        """Append ``module``; returns self, so adds can be chained."""
        for k in kwargs:
            if k not in _META_KEYS:
                raise ValueError(f"SequentialModule.add: unknown option {k!r}; options: "
                                 + ", ".join(_META_KEYS))
        self._modules.append(module)
        self._metas.append(dict(kwargs))
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._modules[-1].output_shapes

    @property
    def symbol(self):
        return self._modules[-1].symbol if self._modules else None

    def get_params(self):
        self._check_ready("get_params")
        arg_params, aux_params = {}, {}
        for m in self._modules:
            a, x = m.get_params()
            arg_params.update(a)
            aux_params.update(x)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if not self._params_wanted(force_init):
            return
        for m in self._modules:
            m.init_params(initializer=initializer, arg_params=arg_params,
                          aux_params=aux_params, allow_missing=allow_missing,
                          force_init=force_init, allow_extra=True)
        seen = {}
        for i, m in enumerate(self._modules):
            a, x = m.get_params()
            for name in list(a) + list(x):
                if name in seen:
                    raise ValueError(f"SequentialModule: parameter {name!r} is in module "
                                     f"{seen[name]} and module {i}; names must be unique")
                seen[name] = i
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req="write"):
        if self.binded and not force_rebind:
            logging.warning("bind: already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise ValueError("SequentialModule.bind: shared_module is not supported")
        if not self._modules:
            raise ValueError("SequentialModule.bind: add modules first")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        my_data = data_shapes
        any_labels = False
        for i, (m, meta) in enumerate(zip(self._modules, self._metas)):
            if meta.get(META_TAKE_LABELS):
                my_label = label_shapes
                any_labels = True
            else:
                my_label = None
            m.bind(data_shapes=my_data, label_shapes=my_label, for_training=for_training,
                   inputs_need_grad=inputs_need_grad or (for_training and i > 0),
                   force_rebind=force_rebind, grad_req=grad_req)
            out = m.output_shapes
            if i + 1 < len(self._modules) and self._metas[i + 1].get(META_AUTO_WIRING):
                names = self._modules[i + 1].data_names
                if len(names) != len(out):
                    raise ValueError(f"SequentialModule: module {i} has {len(out)} "
                                     f"outputs, module {i + 1} takes {len(names)} inputs")
                out = [(n, s) for n, (_, s) in zip(names, out)]
            my_data = [DataDesc(n, s) for n, s in out]
        if not any_labels:
            self._label_shapes = None
        self.binded = True

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if not self._optimizer_wanted(force_init):
            return
        for m in self._modules:
            m.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                             optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        self._check_ready("forward")
        batch = data_batch
        label = getattr(data_batch, "label", None)
        for i, m in enumerate(self._modules):
            m.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch = DataBatch(data=m.get_outputs(), label=label)

    def backward(self, out_grads=None):
        self._check_ready("backward")
        for i in range(len(self._modules) - 1, -1, -1):
            m = self._modules[i]
            m.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = m.get_input_grads()

    def update(self):
        self._check_ready("update")
        for m in self._modules:
            m.update()

    def get_outputs(self, merge_multi_context=True):
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        for m, meta in zip(self._modules, self._metas):
            if meta.get(META_TAKE_LABELS):
                m.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        for m in self._modules:
            m.install_monitor(mon)
