"""``gluon.loss``: losses as HybridBlocks returning one value per sample.

As in MXNet 1.x, each loss averages (KLDivLoss, TripletLoss: sums) over every axis
except ``batch_axis`` and is built from ordinary operators (``log_softmax``, ``pick``,
``mean``, ``CTCLoss``...), so its forward and gradient ops show up in a profile under
the loss block's name, and the same code runs on NDArrays and, hybridized or called on
Symbols, builds a graph. Formulas and defaults are MXNet 1.x's ``gluon/loss.py``.
"""
import math

import numpy as np

from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss",
           "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "KLDivLoss", "CTCLoss",
           "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss",
           "PoissonNLLLoss", "CosineEmbeddingLoss", "SDMLLoss"]


def _is_nd(F):
    from .. import ndarray
    return F is ndarray


def _reshape_like(F, x, y):
    if _is_nd(F):
        return x if x.shape == y.shape else x.reshape(y.shape)
    return F.reshape_like(x, y)


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, (int, float)):
            raise ValueError(f"loss weight {weight!r} must be a number")
        if weight != 1:
            loss = loss * weight
    return loss


def _batch_mean(F, loss, batch_axis):
    """Mean over every axis but ``batch_axis`` (MXNet: ``mean(exclude=True)``)."""
    if _is_nd(F):
        nd = loss.ndim
        ax = batch_axis % nd if nd else 0
        axes = tuple(i for i in range(nd) if i != ax)
        if not axes:
            return loss
        return F.mean(loss, axis=axes)
    if batch_axis != 0:
        raise ValueError("symbolic losses support batch_axis=0 only")
    return F.mean(F.reshape(loss, shape=(0, -1)), axis=1)


def _batch_sum(F, loss, batch_axis):
    """Sum over every axis but ``batch_axis``."""
    if _is_nd(F) and loss.ndim <= 1:
        return loss
    return F.sum(loss, axis=batch_axis, exclude=True)


def _softrelu_of_minus_abs(F, x):
    """``log(1 + exp(-|x|))``, the stable tail of the logistic losses."""
    return F.Activation(-F.abs(x), act_type="softrelu")


class Loss(HybridBlock):
    """Base class: ``weight`` scales the loss; ``batch_axis`` is kept."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """``weight / 2 * (label - pred) ** 2`` averaged per sample."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class L1Loss(Loss):
    """``weight * |label - pred|`` averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class SoftmaxCrossEntropyLoss(Loss):
    """Cross entropy of ``softmax(pred)`` against integer labels
    (``sparse_label=True``) or label distributions; ``from_logits=True`` means ``pred``
    already holds log-probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy; ``pred`` are logits unless ``from_sigmoid``. ``pos_weight``
    (broadcast to ``pred``, e.g. shape ``(1, classes)``) weighs the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                # max(x, 0) - x * z + log(1 + exp(-|x|))
                loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
            else:
                # x - x z + (1 + z (pos_weight - 1)) (log(1 + exp(-|x|)) + max(-x, 0))
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (
                    _softrelu_of_minus_abs(F, pred) + F.relu(-pred))
        else:
            eps = 1e-12
            pos = F.log(pred + eps) * label
            if pos_weight is not None:
                pos = F.broadcast_mul(pos, pos_weight)
            loss = -(pos + F.log(1.0 - pred + eps) * (1.0 - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``label * (log(label) - pred)`` summed per sample;
    ``pred`` are log-probabilities (``from_logits=True``) or scores given to
    ``log_softmax`` over ``axis``."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_sum(F, loss, self._batch_axis)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss (the ``CTCLoss`` operator, blank =
    the last class). ``layout`` 'NTC' or 'TNC' for ``pred``, ``label_layout`` 'NT' or
    'TN'; labels are padded with -1 (or given ``label_lengths``); ``pred_lengths`` gives
    each sequence's length."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"CTCLoss: layout={layout!r} is not allowed; use 'NTC' or "
                             "'TNC'")
        if label_layout not in ("NT", "TN"):
            raise ValueError(f"CTCLoss: label_layout={label_layout!r} is not allowed; use "
                             "'NT' or 'TN'")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, dim1=0, dim2=1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, dim1=0, dim2=1)
        inputs = [pred, label]
        if pred_lengths is not None:
            inputs.append(pred_lengths)
        if label_lengths is not None:
            inputs.append(label_lengths)
        loss = F.CTCLoss(*inputs, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smoothed L1: ``0.5 / rho * err**2`` where ``|err| <= rho``, else
    ``|err| - rho / 2``; averaged per sample."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        err = F.abs(label - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(err))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` for labels -1/1, averaged per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label) ** 2`` for labels -1/1, averaged per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))`` for labels -1/1 (``label_format='signed'``) or
    0/1 (``'binary'``), averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        if label_format not in ("signed", "binary"):
            raise ValueError(f"LogisticLoss: label_format={label_format!r} is not allowed; "
                             "use 'signed' or 'binary'")
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class TripletLoss(Loss):
    """``max(0, ||pos - pred||^2 - ||neg - pred||^2 + margin)`` per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = _batch_sum(F, F.square(positive - pred) - F.square(negative - pred),
                          self._batch_axis)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under a Poisson of mean ``exp(pred)``
    (``from_logits``) or ``pred``; ``compute_full`` adds Stirling's term for targets
    above 1. One value: the mean over every element (MXNet)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target \
                + 0.5 * F.log(2 * math.pi * target)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(input1, input2)`` where label is 1, ``max(0, cos - margin)`` where it
    is -1; one value per sample (shape ``(batch, 1)``)."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = F.reshape(label, shape=(-1, 1))
        cos = self._cosine_similarity(F, input1, input2)
        loss = (1 - cos) * (label == 1) + F.relu((label == -1) * (cos - self._margin))
        return _apply_weighting(F, loss, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        x_norm = F.reshape(F.norm(x, axis=axis), shape=(-1, 1))
        y_norm = F.reshape(F.norm(y, axis=axis), shape=(-1, 1))
        dot = F.reshape(F.sum(x * y, axis=axis), shape=(-1, 1))
        return dot / F.clip(x_norm * y_norm, a_min=1e-12, a_max=float(np.finfo(np.float32).max))


class SDMLLoss(Loss):
    """Batch-wise Smoothed Deep Metric Learning loss: ``x1[i]`` and ``x2[i]`` are a
    positive pair, every other row of the batch a negative; the KL divergence between
    ``log_softmax(-squared distances)`` and smoothed one-hot labels, per sample. Needs
    the batch size, so it runs on NDArrays (as in MXNet)."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        if not _is_nd(F):
            raise ValueError("SDMLLoss needs the batch size: call it on NDArrays, not "
                             "hybridized")
        if x1.shape != x2.shape or x1.ndim != 2:
            raise ValueError(f"SDMLLoss: x1 {x1.shape} and x2 {x2.shape} must both be "
                             "(batch, dim)")
        n, dim = x1.shape
        a = F.broadcast_to(F.expand_dims(x1, axis=1), shape=(n, n, dim))
        b = F.broadcast_to(F.expand_dims(x2, axis=0), shape=(n, n, dim))
        distances = F.sum(F.square(a - b), axis=2)
        gold = F.one_hot(F.arange(n, ctx=x1.context), depth=n,
                         dtype=np.dtype(x1.dtype).name)
        s = self.smoothing_parameter
        labels = gold * (1 - s) + (1 - gold) * (s / (n - 1))
        return self.kl_loss(F.log_softmax(-distances, axis=1), labels)
