"""``mx.metric``'s base: ``EvalMetric``, the registry behind ``mx.metric.create``, and the
metrics made of other metrics or of a user's function (``CompositeEvalMetric``,
``CustomMetric`` / ``np``).

``update(labels, preds)`` takes lists of NDArrays or numpy arrays (a single array is
wrapped) and reads their values, so it is a sync point, as in MXNet. ``get()`` returns
``(name, value)`` for the samples since the last ``reset_local()``, ``get_global()`` for
those since the last ``reset()``; a metric with no samples reports ``nan``.
``get_config()`` is a JSON-able dict that ``create`` turns back into the same metric
(``create(json.dumps(m.get_config()))``), as MXNet's registry does.
"""
import json

import numpy as np

from ..ndarray import ndarray as _nd

__all__ = ["EvalMetric", "CompositeEvalMetric", "CustomMetric", "create", "register",
           "alias", "np_metric", "check_label_shapes"]

_REGISTRY = {}


def register(klass, *aliases):
    """Register ``klass`` under its lower-case name (and ``aliases``) for ``create``."""
    for name in (klass.__name__.lower(),) + tuple(a.lower() for a in aliases):
        _REGISTRY[name] = klass
    return klass


def alias(*aliases):
    """Class decorator: more names for ``create``."""
    def deco(klass):
        return register(klass, *aliases)
    return deco


def create(metric, *args, **kwargs):
    """A metric from an instance, a name ('acc', 'f1', 'nll_loss'...), a config (a dict
    or its JSON text, ``get_config()``'s), a callable ``fn(label, pred)`` (a
    CustomMetric) or a list of those (a CompositeEvalMetric)."""
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise ValueError("create: the metric is already an instance; extra arguments "
                             "are not allowed")
        return metric
    if callable(metric) and not isinstance(metric, type):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, (list, tuple)):
        comp = CompositeEvalMetric()
        for m in metric:
            comp.add(create(m, *args, **kwargs))
        return comp
    if isinstance(metric, dict):
        config = dict(metric)
        return create(config.pop("metric"), *args, **config, **kwargs)
    if not isinstance(metric, str):
        raise ValueError(f"create: metric {metric!r} must be a name, a config, an "
                         "EvalMetric, a callable or a list of those")
    text = metric.strip()
    if text.startswith("{") or text.startswith("["):
        if args or kwargs:
            raise ValueError("create: a JSON config takes no extra arguments")
        try:
            config = json.loads(text)
        except ValueError as e:
            raise ValueError(f"create: metric config {metric!r} is not valid JSON: {e}")
        if isinstance(config, list):          # MXNet's ["name", {kwargs}]
            if len(config) != 2 or not isinstance(config[1], dict):
                raise ValueError(f"create: metric config {metric!r} must be "
                                 "[name, {arguments}]")
            return create(config[0], **config[1])
        return create(config)
    klass = _REGISTRY.get(text.lower())
    if klass is None:
        raise ValueError(f"metric {metric!r} is not known; use one of "
                         f"{', '.join(sorted(_REGISTRY))}")
    return klass(*args, **kwargs)


def numpy_of(x):
    """The values of an NDArray or array-like, as numpy (a sync point for NDArrays)."""
    if isinstance(x, _nd.NDArray):
        return x.asnumpy()
    return np.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """MXNet's helper: ValueError unless labels and preds have the same length (or, with
    ``shape``, the same shape); ``wrap`` puts a single array into a list."""
    if wrap:
        labels = list(labels) if isinstance(labels, (list, tuple)) else [labels]
        preds = list(preds) if isinstance(preds, (list, tuple)) else [preds]
    if shape and labels.shape != preds.shape:
        raise ValueError(f"metric update: the labels have shape {labels.shape} but the "
                         f"predictions {preds.shape}")
    if not shape and len(labels) != len(preds):
        raise ValueError(f"metric update: {len(labels)} label arrays but {len(preds)} "
                         "prediction arrays")
    return labels, preds


class EvalMetric:
    """Base class: accumulates ``sum_metric`` over ``num_inst`` instances (and the same
    since the last ``reset()`` in ``global_sum_metric`` / ``global_num_inst``)."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", True)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self):
        """The arguments that recreate this metric with ``create(**config)``."""
        config = dict(self._kwargs)
        config.update(metric=type(self).__name__, name=self.name,
                      output_names=self.output_names, label_names=self.label_names)
        return config

    def update(self, labels, preds):
        raise NotImplementedError(f"{type(self).__name__}.update")

    def update_dict(self, label, pred):
        preds = [pred[n] for n in self.output_names] if self.output_names is not None \
            else list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names is not None \
            else list(label.values())
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
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self.global_sum_metric / self.global_num_inst

    @staticmethod
    def _pairs(name, value):
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def get_name_value(self):
        return self._pairs(*self.get())

    def get_global_name_value(self):
        return self._pairs(*self.get_global())


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, output_names, label_names)

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        if not -len(self.metrics) <= index < len(self.metrics):
            raise ValueError(f"get_metric: index {index} is out of range; there are "
                             f"{len(self.metrics)} metrics")
        return self.metrics[index]

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = {k: v for k, v in labels.items() if k in self.label_names}
        if self.output_names is not None:
            preds = {k: v for k, v in preds.items() if k in self.output_names}
        for m in self.metrics:
            m.update_dict(labels, preds)

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def reset_local(self):
        for m in self.metrics:
            m.reset_local()

    def _collect(self, which):
        names, values = [], []
        for m in self.metrics:
            name, value = getattr(m, which)()
            names.extend(name if isinstance(name, list) else [name])
            values.extend(value if isinstance(value, list) else [value])
        return names, values

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")

    def get_config(self):
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config


@register
class CustomMetric(EvalMetric):
    """A metric from ``feval(label, pred)`` on numpy arrays, returning a value (one
    instance) or ``(sum, count)``."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = getattr(feval, "__name__", "custom")
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, output_names, label_names, feval=feval,
                         allow_extra_outputs=allow_extra_outputs)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if self._allow_extra_outputs:
            labels = labels if isinstance(labels, (list, tuple)) else [labels]
            preds = preds if isinstance(preds, (list, tuple)) else [preds]
        else:
            labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            value = self._feval(numpy_of(label), numpy_of(pred))
            if isinstance(value, tuple):
                self._add(value[0], value[1])
            else:
                self._add(value, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np_metric(numpy_feval, name=None, allow_extra_outputs=False):
    """A metric from ``feval(label, pred)`` on numpy arrays (MXNet's ``mx.metric.np``)."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
