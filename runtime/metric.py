"""``mx.metric``: evaluation metrics (Accuracy, TopKAccuracy, MSE, MAE, CrossEntropy,
Loss, CompositeEvalMetric).

``update(labels, preds)`` takes lists of NDArrays (or numpy arrays) and reads their
values, so it is a sync point, as in MXNet. ``get()`` returns ``(name, value)``;
a metric with no samples yet reports ``nan``.
"""
import math

import numpy as np

from .ndarray import ndarray as _nd

__all__ = ["EvalMetric", "Accuracy", "TopKAccuracy", "MSE", "MAE", "RMSE", "CrossEntropy",
           "Loss", "CompositeEvalMetric", "create", "register", "np_metric"]

_REGISTRY = {}


def register(klass, *aliases):
    for name in (klass.__name__.lower(),) + aliases:
        _REGISTRY[name] = klass
    return klass


def create(metric, *args, **kwargs):
    """A metric from an instance, a name ('acc', 'accuracy', 'mse', 'ce'...), a
    callable ``fn(label, pred)`` or a list of those (a CompositeEvalMetric)."""
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, (list, tuple)):
        comp = CompositeEvalMetric()
        for m in metric:
            comp.add(create(m, *args, **kwargs))
        return comp
    if callable(metric):
        return np_metric(metric)
    klass = _REGISTRY.get(str(metric).lower())
    if klass is None:
        raise ValueError(f"metric {metric!r} is not known; use one of "
                         f"{', '.join(sorted(_REGISTRY))}")
    return klass(*args, **kwargs)


def _numpy(x):
    if isinstance(x, _nd.NDArray):
        return x.asnumpy()
    return np.asarray(x)


def _as_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _check_lengths(labels, preds):
    if len(labels) != len(preds):
        raise ValueError(f"metric update: {len(labels)} label arrays but {len(preds)} "
                         "prediction arrays")


class EvalMetric:
    """Base class: accumulates ``sum_metric`` over ``num_inst`` instances."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def update(self, labels, preds):
        raise NotImplementedError

    def update_dict(self, label, pred):
        preds = [pred[n] for n in self.output_names] if self.output_names else \
            list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names else \
            list(label.values())
        self.update(labels, preds)

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, total, count):
        self.sum_metric += total
        self.num_inst += count
        self.global_sum_metric += total
        self.global_num_inst += count

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, self.sum_metric / self.num_inst

    def get_global(self):
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self.global_sum_metric / self.global_num_inst

    def get_name_value(self):
        name, value = self.get()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def get_config(self):
        return dict(metric=type(self).__name__, name=self.name,
                    output_names=self.output_names, label_names=self.label_names,
                    **self._kwargs)


class Accuracy(EvalMetric):
    """Fraction of predictions equal to the label; predictions with one more axis than
    the labels are class scores and are reduced by argmax over ``axis``."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names, axis=axis)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        _check_lengths(labels, preds)
        for label, pred in zip(labels, preds):
            p = _numpy(pred)
            lab = _numpy(label)
            if p.shape != lab.shape:
                p = p.argmax(axis=self.axis)
            p = p.astype(np.int64).ravel()
            lab = lab.astype(np.int64).ravel()
            if p.shape != lab.shape:
                raise ValueError(f"Accuracy: {lab.size} labels but {p.size} predictions")
            self._add(int((p == lab).sum()), lab.size)


class TopKAccuracy(EvalMetric):
    """Fraction of labels among the ``top_k`` highest-scored classes."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None,
                 label_names=None):
        if top_k < 1:
            raise ValueError(f"TopKAccuracy: top_k={top_k} must be positive")
        super().__init__(f"{name}_{top_k}", output_names, label_names, top_k=top_k)
        self.top_k = top_k

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        _check_lengths(labels, preds)
        for label, pred in zip(labels, preds):
            p = _numpy(pred)
            lab = _numpy(label).astype(np.int64).ravel()
            if p.ndim == 1:
                self._add(int((p.astype(np.int64) == lab).sum()), lab.size)
                continue
            k = min(self.top_k, p.shape[1])
            top = np.argpartition(-p, k - 1, axis=1)[:, :k]
            self._add(int((top == lab[:, None]).any(axis=1).sum()), lab.size)


class _Regression(EvalMetric):
    def _value(self, diff):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        _check_lengths(labels, preds)
        for label, pred in zip(labels, preds):
            lab = _numpy(label).astype(np.float64)
            p = _numpy(pred).astype(np.float64)
            if lab.ndim == 1 and p.ndim == 2 and p.shape[1] == 1:
                lab = lab.reshape(-1, 1)
            n = lab.shape[0] if lab.ndim else 1
            self._add(float(self._value(lab - p.reshape(lab.shape))) * n, n)


class MSE(_Regression):
    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def _value(self, diff):
        return np.mean(np.square(diff))


class MAE(_Regression):
    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def _value(self, diff):
        return np.mean(np.abs(diff))


class RMSE(MSE):
    def __init__(self, name="rmse", output_names=None, label_names=None):
        EvalMetric.__init__(self, name, output_names, label_names)

    def get(self):
        name, value = super().get()
        return name, math.sqrt(value) if not math.isnan(value) else value


class CrossEntropy(EvalMetric):
    """Mean of ``-log(p[label])`` for class-probability predictions."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None,
                 label_names=None):
        super().__init__(name, output_names, label_names, eps=eps)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        _check_lengths(labels, preds)
        for label, pred in zip(labels, preds):
            lab = _numpy(label).astype(np.int64).ravel()
            p = _numpy(pred)
            prob = p[np.arange(lab.size), lab]
            self._add(float(-np.log(prob + self.eps).sum()), lab.size)


class Loss(EvalMetric):
    """Mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def update(self, _, preds):
        for pred in _as_list(preds):
            v = _numpy(pred)
            self._add(float(v.sum()), v.size)


class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, output_names, label_names)

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        return self.metrics[index]

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def get(self):
        names, values = [], []
        for m in self.metrics:
            name, value = m.get()
            names.extend(name if isinstance(name, list) else [name])
            values.extend(value if isinstance(value, list) else [value])
        return names, values


class _CustomMetric(EvalMetric):
    def __init__(self, feval, name=None, allow_extra_outputs=False):
        super().__init__(name or getattr(feval, "__name__", "custom"))
        self._feval = feval

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        for label, pred in zip(labels, preds):
            value = self._feval(_numpy(label), _numpy(pred))
            if isinstance(value, tuple):
                self._add(float(value[0]), int(value[1]))
            else:
                self._add(float(value), 1)


def np_metric(numpy_feval, name=None, allow_extra_outputs=False):
    """A metric from ``feval(label, pred)`` on numpy arrays."""
    return _CustomMetric(numpy_feval, name, allow_extra_outputs)


register(Accuracy, "acc")
register(TopKAccuracy, "top_k_accuracy", "top_k_acc")
register(MSE)
register(MAE)
register(RMSE)
register(CrossEntropy, "ce")
register(Loss)
register(CompositeEvalMetric, "composite")
