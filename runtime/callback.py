"""``mx.callback``: what ``Module.fit`` calls after each batch and each epoch.

Batch-end callbacks receive a ``BatchEndParam`` (epoch, nbatch, eval_metric, locals):
``Speedometer`` logs samples per second and the metric every ``frequent`` batches
(reading the metric is a sync point: it waits for the batch's outputs), ``ProgressBar``
and ``log_train_metric`` log progress. Epoch-end callbacks are called as
``cb(epoch, symbol, arg_params, aux_params)``: ``do_checkpoint`` writes MXNet's
checkpoint files, ``module_checkpoint`` a module's (with optimizer states).
"""
import logging
import math
import time

from .model import save_checkpoint

__all__ = ["Speedometer", "ProgressBar", "do_checkpoint", "module_checkpoint",
           "log_train_metric", "LogValidationMetricsCallback"]


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """An epoch-end callback saving ``mod`` every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """An epoch-end callback writing ``prefix-symbol.json`` and ``prefix-%04d.params``
    (epoch numbers from 1) every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every ``period`` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch,
                             name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Log the training speed (and the metric) every ``frequent`` batches."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else math.inf
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            if self.auto_reset:
                param.eval_metric.reset_local()
            msg = "\t".join(f"{n}={v:f}" for n, v in name_value)
            logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec\t%s",
                         param.epoch, count - self.frequent, count, speed, msg)
        else:
            logging.info("Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch,
                         count, speed)
        self.tic = time.time()


class ProgressBar:
    """Log a text progress bar of ``total`` batches."""

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents,
                     "%")


class LogValidationMetricsCallback:
    """Log the validation metrics at the end of ``score`` (an eval-end callback)."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
