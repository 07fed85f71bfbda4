"""``gluon.loss``: losses as HybridBlocks returning one value per sample.

As in MXNet 1.x, each loss averages over every axis except ``batch_axis`` and is
built from ordinary operators (``log_softmax``, ``pick``, ``mean``...), so its forward
and gradient ops show up in a profile under the loss block's name.
"""
from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss",
           "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss"]


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
    """Binary cross entropy; ``pred`` are logits unless ``from_sigmoid``."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            # max(x, 0) - x * z + log(1 + exp(-|x|))
            loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred),
                                                               act_type="softrelu")
        else:
            eps = 1e-12
            loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss
