"""Regression metrics: ``MAE``, ``MSE``, ``RMSE`` and ``PearsonCorrelation`` (macro: the
mean of per-update correlations; micro: one correlation of everything seen, from running
means, sums of squares and the co-moment)."""
import math

import numpy as np

from .base import EvalMetric, alias, check_label_shapes, numpy_of, register

__all__ = ["MAE", "MSE", "RMSE", "PearsonCorrelation"]


class _Regression(EvalMetric):
    def _value(self, diff):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = numpy_of(label).astype(np.float64)
            p = numpy_of(pred).astype(np.float64)
            if lab.ndim == 1 and p.ndim == 2 and p.shape[1] == 1:
                lab = lab.reshape(-1, 1)
            n = lab.shape[0] if lab.ndim else 1
            self._add(float(self._value(lab - p.reshape(lab.shape))) * n, n)


@register
class MSE(_Regression):
    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def _value(self, diff):
        return np.mean(np.square(diff))


@register
class MAE(_Regression):
    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def _value(self, diff):
        return np.mean(np.abs(diff))


@register
class RMSE(MSE):
    def __init__(self, name="rmse", output_names=None, label_names=None):
        EvalMetric.__init__(self, name, output_names, label_names)

    def get(self):
        name, value = super().get()
        return name, math.sqrt(value) if not math.isnan(value) else value

    def get_global(self):
        name, value = super().get_global()
        return name, math.sqrt(value) if not math.isnan(value) else value


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels (flattened), ``average`` 'macro' or
    'micro'."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None,
                 average="macro"):
        if average not in ("macro", "micro"):
            raise ValueError(f"PearsonCorrelation: average={average!r} is not allowed; use "
                             "'macro' or 'micro'")
        self.average = average
        super().__init__(name, output_names, label_names, average=average)

    def reset(self):
        super().reset()
        self._n = 0
        self._mean_l = self._mean_p = 0.0
        self._m2_l = self._m2_p = 0.0
        self._co = 0.0

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = numpy_of(label)
            p = numpy_of(pred)
            check_label_shapes(lab, p, shape=True)
            lab = lab.ravel().astype(np.float64)
            p = p.ravel().astype(np.float64)
            self.num_inst += 1
            self.global_num_inst += 1
            if self.average == "macro":
                r = np.corrcoef(p, lab)[0, 1]
                self.sum_metric += r
                self.global_sum_metric += r
                continue
            # Chan et al.'s pairwise update of means, M2s and the co-moment
            n_a, n_b = self._n, lab.size
            n = n_a + n_b
            mean_lb, mean_pb = lab.mean(), p.mean()
            d_l, d_p = mean_lb - self._mean_l, mean_pb - self._mean_p
            self._co += np.sum((lab - mean_lb) * (p - mean_pb)) + d_l * d_p * n_a * n_b / n
            self._m2_l += np.sum((lab - mean_lb) ** 2) + d_l * d_l * n_a * n_b / n
            self._m2_p += np.sum((p - mean_pb) ** 2) + d_p * d_p * n_a * n_b / n
            self._mean_l += d_l * n_b / n
            self._mean_p += d_p * n_b / n
            self._n = n

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        if self.average == "macro":
            return self.name, self.sum_metric / self.num_inst
        return self.name, self._co / math.sqrt(self._m2_l * self._m2_p)

    def get_global(self):
        if self.average == "micro":
            return self.get()
        return super().get_global()
