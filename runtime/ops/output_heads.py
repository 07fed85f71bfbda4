"""Loss heads besides softmax (MXNet 1.x): ``LinearRegressionOutput``,
``LogisticRegressionOutput``, ``MAERegressionOutput`` and ``SVMOutput``.

As ``SoftmaxOutput``, a head's forward is the prediction (the identity, or a sigmoid for
the logistic one) and its backward ignores the output gradient: it is the loss's
gradient with respect to the data, from the label. The label gets no gradient.

Regression: ``grad_scale / m * (out - label)`` (``sign(out - label)`` for MAE), ``m``
the number of outputs per example (the label's size over its first dimension), as in
MXNet. The label has the data's shape (or the data's size: ``(n,)`` for ``(n, 1)``).

SVM: for a label class ``y``, each output ``x_k`` gets ``t_k = +1`` for ``k == y`` and
``-1`` otherwise; L1-SVM (``use_linear=True``) gives ``-c * t_k`` where
``margin > t_k x_k``, L2-SVM ``-2 c * t_k * max(margin - t_k x_k, 0)``, with ``c`` the
``regularization_coefficient``.
"""
import math

import numpy as np

from .params import _as, _bool
from .registry import defop, input_size


def _regression_infer(opname):
    def infer(in_shapes, in_dtypes, **_):
        data = tuple(in_shapes[0])
        if len(in_shapes) > 1 and in_shapes[1] is not None:
            label = tuple(in_shapes[1])
            if label != data and math.prod(label) != math.prod(data):
                raise ValueError(f"{opname}: label has shape {label}, expected the data's "
                                 f"shape {data}")
        return [data], [in_dtypes[0]]
    return infer


def _regression_infer_args(in_shapes, **_):
    if in_shapes[0] is None:
        raise ValueError("regression output: the data shape is needed to infer the label "
                         "shape")
    label = in_shapes[1] if len(in_shapes) > 1 and in_shapes[1] is not None else in_shapes[0]
    return [tuple(in_shapes[0]), tuple(label)]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _regression(opname, forward, diff):
    def kernel(data, label, grad_scale=1.0):
        return _as(data, forward(data))

    def grad(ograds, inputs, outputs, grad_scale=1.0):
        data, label = inputs
        per_example = label.size // label.shape[0] if label.ndim and label.shape[0] else 1
        g = diff(outputs[0] - label.reshape(outputs[0].shape).astype(outputs[0].dtype))
        g = g * (float(grad_scale) / max(per_example, 1))
        return [_as(data, g), np.zeros_like(label)]

    defop(opname, kernel, arg_names=("data", "label"), infer=_regression_infer(opname),
          infer_args=_regression_infer_args, grad=grad, cost=input_size,
          params={"grad_scale": 1.0})


_regression("LinearRegressionOutput", lambda x: x.copy(), lambda d: d)
_regression("LogisticRegressionOutput", _sigmoid, lambda d: d)
_regression("MAERegressionOutput", lambda x: x.copy(), np.sign)


# -- SVMOutput ------------------------------------------------------------------------------
def _svm_infer(in_shapes, in_dtypes, **_):
    data = tuple(in_shapes[0])
    if len(in_shapes) > 1 and in_shapes[1] is not None:
        if tuple(in_shapes[1]) != data[:1]:
            raise ValueError(f"SVMOutput: label has shape {tuple(in_shapes[1])}, expected "
                             f"{data[:1]} for data {data}")
    return [data], [in_dtypes[0]]


def _svm_infer_args(in_shapes, **_):
    if in_shapes[0] is None:
        raise ValueError("SVMOutput: the data shape is needed to infer the label shape")
    return [tuple(in_shapes[0]), tuple(in_shapes[0][:1])]


def _svm(data, label, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    return data.copy()


def _svm_grad(ograds, inputs, outputs, margin=1.0, regularization_coefficient=1.0,
              use_linear=False):
    data, label = inputs
    x = data.reshape(data.shape[0], -1)
    k = np.clip(label.reshape(-1).astype(np.int64), 0, x.shape[1] - 1)
    t = -np.ones_like(x)
    t[np.arange(x.shape[0]), k] = 1.0
    slack = float(margin) - t * x
    c = float(regularization_coefficient)
    if _bool(use_linear):
        g = -c * t * (slack > 0)
    else:
        g = -2.0 * c * t * np.maximum(slack, 0)
    return [_as(data, g.reshape(data.shape)), np.zeros_like(label)]


defop("SVMOutput", _svm, arg_names=("data", "label"), infer=_svm_infer,
      infer_args=_svm_infer_args, grad=_svm_grad, cost=input_size,
      params={"margin": 1.0, "regularization_coefficient": 1.0, "use_linear": False})
