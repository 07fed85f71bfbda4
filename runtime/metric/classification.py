"""Classification metrics: ``Accuracy``, ``TopKAccuracy``, ``F1``, ``MCC`` (binary) and
``PCC`` (multiclass MCC from a confusion matrix), with MXNet 1.x's counting.

F1 and MCC take ``average``: ``'macro'`` averages the per-update scores, ``'micro'``
scores the counts accumulated over every update. Predictions with one more axis than
the labels are class scores, reduced by argmax.
"""
import math

import numpy as np

from .base import EvalMetric, alias, check_label_shapes, numpy_of, register

__all__ = ["Accuracy", "TopKAccuracy", "F1", "MCC", "PCC"]


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of predictions equal to the label; predictions with one more axis than
    the labels are class scores and are reduced by argmax over ``axis``."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names, axis=axis)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            p = numpy_of(pred)
            lab = numpy_of(label)
            if p.shape != lab.shape:
                p = p.argmax(axis=self.axis)
            p = p.astype(np.int64).ravel()
            lab = lab.astype(np.int64).ravel()
            if p.shape != lab.shape:
                raise ValueError(f"Accuracy: {lab.size} labels but {p.size} predictions")
            self._add(int((p == lab).sum()), lab.size)


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of labels among the ``top_k`` highest-scored classes."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None,
                 label_names=None):
        if top_k < 1:
            raise ValueError(f"TopKAccuracy: top_k={top_k} must be positive")
        suffix = f"_{top_k}"     # once: a config's name already has it
        name = name if str(name).endswith(suffix) else f"{name}{suffix}"
        super().__init__(name, output_names, label_names, top_k=top_k)
        self.top_k = top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            p = numpy_of(pred)
            lab = numpy_of(label).astype(np.int64).ravel()
            if p.ndim == 1:
                self._add(int((p.astype(np.int64) == lab).sum()), lab.size)
                continue
            k = min(self.top_k, p.shape[1])
            top = np.argpartition(-p, k - 1, axis=1)[:, :k]
            self._add(int((top == lab[:, None]).any(axis=1).sum()), lab.size)


class _BinaryCounts:
    """True/false positive/negative counts since the last local and global reset."""

    KEYS = ("tp", "fp", "fn", "tn")

    def __init__(self):
        self.local = dict.fromkeys(self.KEYS, 0)
        self.total = dict.fromkeys(self.KEYS, 0)

    def update(self, label, pred, who):
        p = numpy_of(pred)
        lab = numpy_of(label).astype(np.int32).ravel()
        pred_label = p.argmax(axis=1) if p.ndim > 1 else p.astype(np.int32)
        check_label_shapes(lab, pred_label.ravel(), shape=True)
        if len(np.unique(lab)) > 2:
            raise ValueError(f"{who} currently only supports binary classification; the "
                             f"labels have {len(np.unique(lab))} classes")
        pt = pred_label.ravel() == 1
        lt = lab == 1
        counts = {"tp": int((pt & lt).sum()), "fp": int((pt & ~lt).sum()),
                  "fn": int((~pt & lt).sum()), "tn": int((~pt & ~lt).sum())}
        for k, v in counts.items():
            self.local[k] += v
            self.total[k] += v

    def reset_local(self):
        self.local = dict.fromkeys(self.KEYS, 0)

    def reset(self):
        self.reset_local()
        self.total = dict.fromkeys(self.KEYS, 0)

    @staticmethod
    def examples(c):
        return c["tp"] + c["fp"] + c["fn"] + c["tn"]

    @staticmethod
    def fscore(c):
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 0.0
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    @staticmethod
    def mcc(c):
        """Matthews correlation; zero factors of the denominator count as 1 (MXNet)."""
        if not _BinaryCounts.examples(c):
            return 0.0
        tp, fp, fn, tn = (float(c[k]) for k in _BinaryCounts.KEYS)
        denom = 1.0
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a score of the binary counts, macro- or micro-averaged."""

    _score = None

    def __init__(self, name, output_names, label_names, average):
        if average not in ("macro", "micro"):
            raise ValueError(f"{type(self).__name__}: average={average!r} is not allowed; "
                             "use 'macro' or 'micro'")
        self.average = average
        self._counts = _BinaryCounts()
        super().__init__(name, output_names, label_names, average=average)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        c = self._counts
        for label, pred in zip(labels, preds):
            c.update(label, pred, type(self).__name__)
        score = type(self)._score
        if self.average == "macro":
            self.sum_metric += score(c.local)
            self.global_sum_metric += score(c.total)
            self.num_inst += 1
            self.global_num_inst += 1
            c.reset()
        else:
            n, gn = c.examples(c.local), c.examples(c.total)
            self.sum_metric, self.num_inst = score(c.local) * n, n
            self.global_sum_metric, self.global_num_inst = score(c.total) * gn, gn

    def reset(self):
        super().reset()
        if hasattr(self, "_counts"):
            self._counts.reset()

    def reset_local(self):
        super().reset_local()
        self._counts.reset_local()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classification: ``2 tp / (2 tp + fp + fn)``."""

    _score = staticmethod(_BinaryCounts.fscore)

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classification."""

    _score = staticmethod(_BinaryCounts.mcc)

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class PCC(EvalMetric):
    """Multiclass Matthews / Pearson correlation from the K x K confusion matrix
    (predictions are class scores or class indices); grows K as new classes appear."""

    def __init__(self, name="pcc", output_names=None, label_names=None,
                 has_global_stats=True):
        self.k = 2
        super().__init__(name, output_names, label_names, has_global_stats=has_global_stats)

    def _grow(self, k):
        pad = ((0, k - self.k), (0, k - self.k))
        self.lcm = np.pad(self.lcm, pad)
        self.gcm = np.pad(self.gcm, pad)
        self.k = k

    @staticmethod
    def _mcc(cm):
        n = cm.sum()
        x, y = cm.sum(axis=1), cm.sum(axis=0)
        cov_xx = np.sum(x * (n - x))
        cov_yy = np.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = np.sum(cm.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = numpy_of(label).astype(np.int64).ravel()
            p = numpy_of(pred)
            p = p.argmax(axis=1) if p.shape != numpy_of(label).shape else p
            p = p.astype(np.int64).ravel()
            n = int(max(p.max(initial=0), lab.max(initial=0)))
            if n >= self.k:
                self._grow(n + 1)
            cm = np.zeros((self.k, self.k))
            np.add.at(cm, (p, lab), 1)
            self.lcm += cm
            self.gcm += cm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value):
        pass          # derived from the confusion matrix

    @property
    def global_sum_metric(self):
        return self._mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value):
        pass

    def reset(self):
        self.global_num_inst = 0
        self.gcm = np.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0
        self.lcm = np.zeros((self.k, self.k))
