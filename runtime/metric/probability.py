"""Metrics of predicted probabilities and losses: ``CrossEntropy``,
``NegativeLogLikelihood``, ``Perplexity`` and ``Loss``.

Sums are taken in the predictions' dtype, as MXNet does, so a float32 model's figures
match MXNet's to the last bit.
"""
import math

import numpy as np

from .base import EvalMetric, alias, check_label_shapes, numpy_of, register

__all__ = ["CrossEntropy", "NegativeLogLikelihood", "Perplexity", "Loss"]


def _picked(label, pred, who):
    lab = numpy_of(label).ravel()
    p = numpy_of(pred)
    if lab.shape[0] != p.shape[0]:
        raise ValueError(f"{who}: {lab.shape[0]} labels but {p.shape[0]} predictions")
    return p[np.arange(lab.shape[0]), lab.astype(np.int64)], lab.shape[0]


@register
@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` for class-probability predictions."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None,
                 label_names=None):
        super().__init__(name, output_names, label_names, eps=eps)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            prob, n = _picked(label, pred, type(self).__name__)
            self._add((-np.log(prob + self.eps)).sum(), n)


@register
@alias("nll_loss")
class NegativeLogLikelihood(CrossEntropy):
    """The negative log-likelihood of the labels: the same sum as CrossEntropy."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
class Perplexity(EvalMetric):
    """``exp(mean(-log p[label]))`` over the labels that are not ``ignore_label``;
    ``axis`` is the class axis of the predictions."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, output_names, label_names, ignore_label=ignore_label)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds)
        loss, num = 0.0, 0
        for label, pred in zip(labels, preds):
            p = numpy_of(pred)
            lab = numpy_of(label).ravel()
            if lab.size * p.shape[self.axis] != p.size:
                raise ValueError(f"Perplexity: shape mismatch: labels {lab.shape} vs. "
                                 f"predictions {p.shape}")
            moved = np.moveaxis(p, self.axis, -1).reshape(-1, p.shape[self.axis])
            # as MXNet's pick(mode='clip'): a label outside [0, classes) takes the nearest class
            index = np.clip(lab.astype(np.int64), 0, moved.shape[1] - 1)
            prob = moved[np.arange(lab.size), index]
            if self.ignore_label is not None:
                ignore = (lab == self.ignore_label).astype(prob.dtype)
                num -= int(ignore.sum())
                prob = prob * (1 - ignore) + ignore
            loss -= np.log(np.maximum(prob.dtype.type(1e-10), prob)).sum()
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.sum_metric / self.num_inst)

    def get_global(self):
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.global_sum_metric / self.global_num_inst)


@register
class Loss(EvalMetric):
    """Mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def update(self, _, preds):
        for pred in preds if isinstance(preds, (list, tuple)) else [preds]:
            v = numpy_of(pred)
            self._add(v.sum(), v.size)


@register
class Torch(Loss):
    """MXNet's name for a Loss metric of a Torch criterion."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


@register
class Caffe(Loss):
    """MXNet's name for a Loss metric of a Caffe loss layer."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)
