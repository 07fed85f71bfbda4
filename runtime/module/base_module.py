"""``BaseModule``: the training and inference loops every module shares.

``fit`` is MXNet 1.x's loop: bind to the iterator's shapes, initialize parameters and
the optimizer, then per batch ``forward_backward``, ``update``, ``update_metric``, the
batch-end callbacks (``mx.callback.Speedometer``), and per epoch the epoch-end
callbacks (``mx.callback.do_checkpoint``) and ``score`` on ``eval_data``. The batch's
labels are read before the next batch is fetched (an iterator may reuse its buffers).
Nothing here waits for the engine except what a metric or callback reads: a profiled
``fit`` shows the batches' symbolic ops overlapping the Python loop.

Subclasses (``Module``, ``BucketingModule``, ``SequentialModule``) define ``bind``,
``init_params``, ``init_optimizer``, ``forward``, ``backward``, ``update``,
``update_metric``, ``get_outputs``, ``get_params``/``set_params`` and the shapes.
"""
import logging
import time

import numpy as np

from .. import metric as _metric
from ..initializer import Uniform
from ..io import DataBatch, DataDesc
from ..model import BatchEndParam
from ..ndarray import ndarray as _nd

__all__ = ["BaseModule"]


def _as_list(obj):
    if obj is None:
        return []
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def parse_data_desc(names, shapes, what, throw=True):
    """``[DataDesc]`` from DataDescs or ``(name, shape)`` pairs, checked against
    ``names`` (a TypeError for a shape that is not a tuple of ints, as in MXNet)."""
    if shapes is None:
        return None
    out = []
    for item in shapes:
        if isinstance(item, DataDesc):
            out.append(item)
            continue
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError(f"bind: {what} shapes must be DataDescs or (name, shape) "
                             f"pairs, got {item!r}")
        name, shape = item
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
            raise TypeError(f"bind: the shape of {what} {name!r} must be a tuple of ints, "
                            f"got {shape!r}")
        out.append(DataDesc(name, tuple(int(s) for s in shape)))
    given = [d.name for d in out]
    if sorted(given) != sorted(names or []):
        msg = (f"bind: {what} shapes name {given}, the module's {what}_names are "
               f"{list(names or [])}")
        if throw:
            raise ValueError(msg)
        logging.warning(msg)
    return out


def check_input_names(symbol, names, typename, throw):
    """Each of ``names`` must be an argument of ``symbol``."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma",
                                                         "_beta"))]
        msg = (f"you created a Module with {typename}_names including {name!r}, which is "
               f"not an argument of the symbol; its inputs are: {', '.join(candidates)}")
        if throw:
            raise ValueError(msg)
        logging.warning(msg)


class BaseModule:
    """The shared loops (see the module docstring)."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- high-level loops -------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """A training forward pass then the backward pass."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run inference on ``eval_data`` and return ``eval_metric.get_name_value()``."""
        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        nbatch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self._update_metric_from(eval_metric, eval_batch)
            for cb in _as_list(batch_end_callback):
                cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                 locals=locals()))
        for cb in _as_list(score_end_callback):
            cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                             locals=locals()))
        return eval_metric.get_name_value()

    def _update_metric_from(self, eval_metric, batch):
        if isinstance(batch, list):
            self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
        else:
            self.update_metric(eval_metric, getattr(batch, "label", None))

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch, the padding cut off."""
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = getattr(eval_batch, "pad", 0) or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """The outputs over ``eval_data`` (an iterator, or one NDArray / numpy batch)."""
        self._check_ready("predict")
        if isinstance(eval_data, (_nd.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = _nd.from_numpy(eval_data)
            self.forward(DataBatch([eval_data]), is_train=False)
            return self.get_outputs()[0]
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list:
            return output_list
        if not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        for out in output_list:
            if len(out) != num_outputs:
                raise ValueError("predict: batches have different numbers of outputs; "
                                 "use merge_batches=False")
        merged = [_nd.invoke("concat", tuple(out[i] for out in output_list), {"dim": 0})
                  if len(output_list) > 1 else output_list[0][i] for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train for ``num_epoch`` epochs (see the module docstring)."""
        if num_epoch is None:
            raise ValueError("fit: num_epoch is required (how many epochs to train)")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_data_batch = next(data_iter)
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                self._update_metric_from(eval_metric, data_batch)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                for cb in _as_list(batch_end_callback):
                    cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                     locals=locals()))
                nbatch += 1
            for name, val in _global_name_value(eval_metric):
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            for cb in _as_list(epoch_end_callback):
                cb(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # -- what subclasses define -------------------------------------------------------------
    def _check_ready(self, what):
        if not (self.binded and self.params_initialized):
            raise RuntimeError(f"{what}: call bind and init_params first")

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepare the module for ``data_batch`` (nothing for dense arrays)."""
        if sparse_row_id_fn is not None:
            raise NotImplementedError("prepare(sparse_row_id_fn=...): sparse storage "
                                      "(row_sparse) is not supported by xprof")

    @property
    def symbol(self):
        return self._symbol

    @property
    def data_names(self):
        raise NotImplementedError

    @property
    def output_names(self):
        raise NotImplementedError

    @property
    def data_shapes(self):
        raise NotImplementedError

    @property
    def label_shapes(self):
        raise NotImplementedError

    @property
    def output_shapes(self):
        raise NotImplementedError

    def get_params(self):
        raise NotImplementedError

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        raise NotImplementedError

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Set parameter values: through ``init_params`` with no initializer (every
        parameter must be given), or, with ``allow_missing``, copying only those given."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            logging.warning("set_params: the parameters are already initialized; pass "
                            "force_init=True to set them")
            return
        self._copy_given_params(arg_params, aux_params, allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _copy_given_params(self, arg_params, aux_params, allow_extra):
        raise NotImplementedError

    def _params_wanted(self, force_init):
        """Whether ``init_params`` should (re)initialize the parameters."""
        if self.params_initialized and not force_init:
            logging.warning("init_params: the parameters are already initialized; pass "
                            "force_init=True to initialize them again")
            return False
        if not self.binded:
            raise RuntimeError("init_params: call bind first")
        return True

    def _optimizer_wanted(self, force_init):
        """Whether ``init_optimizer`` should (re)create the optimizer."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            logging.warning("init_optimizer: the optimizer is already initialized, "
                            "ignoring; pass force_init=True to create it again")
            return False
        return True

    def save_params(self, fname):
        """Write the parameters as MXNet's ``.params`` (``arg:`` / ``aux:`` names)."""
        from ..model import save_params_file
        arg_params, aux_params = self.get_params()
        save_params_file(fname, arg_params, aux_params)

    def load_params(self, fname):
        from ..model import load_params_file
        arg_params, aux_params = load_params_file(fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        return []

    def set_states(self, states=None, value=None):
        pass

    def install_monitor(self, mon):
        raise NotImplementedError

    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req="write"):
        raise NotImplementedError

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        raise NotImplementedError

    def forward(self, data_batch, is_train=None):
        raise NotImplementedError

    def backward(self, out_grads=None):
        raise NotImplementedError

    def get_outputs(self, merge_multi_context=True):
        raise NotImplementedError

    def get_input_grads(self, merge_multi_context=True):
        raise NotImplementedError

    def update(self):
        raise NotImplementedError

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise NotImplementedError


def _global_name_value(metric):
    """The metric's values over the whole epoch (``get_global_name_value`` when the
    metric has it: a Speedometer may have reset the local values)."""
    get = getattr(metric, "get_global_name_value", None)
    if get is not None:
        return get()
    name, value = metric.get_global() if hasattr(metric, "get_global") else metric.get()
    if not isinstance(name, list):
        name, value = [name], [value]
    return list(zip(name, value))

