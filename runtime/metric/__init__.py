"""``mx.metric``: MXNet 1.x's evaluation metrics.

``base`` holds EvalMetric, ``create`` / ``register`` (names, configs, JSON),
CompositeEvalMetric and CustomMetric; ``classification`` Accuracy, TopKAccuracy, F1, MCC,
PCC; ``regression`` MAE, MSE, RMSE, PearsonCorrelation; ``probability`` CrossEntropy,
NegativeLogLikelihood, Perplexity, Loss.
"""
from .base import (CompositeEvalMetric, CustomMetric, EvalMetric, alias,  # noqa: F401
                   check_label_shapes, create, np_metric, register)
from .classification import F1, MCC, PCC, Accuracy, TopKAccuracy
from .probability import Caffe, CrossEntropy, Loss, NegativeLogLikelihood, Perplexity, Torch
from .regression import MAE, MSE, RMSE, PearsonCorrelation

np = np_metric          # MXNet's mx.metric.np(feval)

__all__ = ["EvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "PCC", "MAE", "MSE",
           "RMSE", "PearsonCorrelation", "CrossEntropy", "NegativeLogLikelihood",
           "Perplexity", "Loss", "Torch", "Caffe", "CompositeEvalMetric", "CustomMetric",
           "create", "register", "alias", "np_metric", "np", "check_label_shapes"]
