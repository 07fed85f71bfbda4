"""Tests of runtime/metric/: F1, MCC, PCC, Perplexity, PearsonCorrelation,
NegativeLogLikelihood against formulas written out here (counts by hand, numpy's
corrcoef), global vs local statistics, and create() from names, configs and JSON."""
import json
import math

import numpy as np
import pytest

import xprof.runtime as mx


def nd(x, dtype="float32"):
    return mx.nd.array(np.asarray(x), dtype=dtype)


# predictions as class scores: argmax is the predicted class
PRED = [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.2, 0.8]]
LABEL = [1, 1, 0, 0, 1]        # tp=2 (0, 4), fn=1 (1), fp=1 (2), tn=1 (3)


def test_f1_counts():
    f1 = mx.metric.F1()
    f1.update([nd(LABEL)], [nd(PRED)])
    assert f1.get() == ("f1", pytest.approx(2 * 2 / (2 * 2 + 1 + 1)))


def test_mcc_counts_and_zero_denominator_factors():
    mcc = mx.metric.create("mcc")
    mcc.update([nd(LABEL)], [nd(PRED)])
    tp, fp, fn, tn = 2, 1, 1, 1
    expect = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert mcc.get()[1] == pytest.approx(expect)
    mcc.reset()
    mcc.update([nd([0, 0])], [nd([[0.9, 0.1], [0.8, 0.2]])])     # only negatives
    assert mcc.get()[1] == 0.0


def test_f1_macro_averages_batches_micro_pools_them():
    macro, micro = mx.metric.F1(average="macro"), mx.metric.F1(average="micro")
    batches = [([1, 0], [[0.1, 0.9], [0.2, 0.8]]),      # tp=1 fp=1: f1 2/3
               ([1], [[0.9, 0.1]])]                      # fn=1: f1 0
    for lab, pred in batches:
        macro.update([nd(lab)], [nd(pred)])
        micro.update([nd(lab)], [nd(pred)])
    assert macro.get()[1] == pytest.approx((2 / 3 + 0) / 2)
    assert micro.get()[1] == pytest.approx(2 * 1 / (2 * 1 + 1 + 1))
    assert micro.num_inst == 3 and macro.num_inst == 2


def test_f1_refuses_more_than_two_classes():
    with pytest.raises(ValueError, match="binary"):
        mx.metric.F1().update([nd([0, 1, 2])], [nd(np.eye(3))])
    with pytest.raises(ValueError, match="average"):
        mx.metric.F1(average="weighted")


def test_pcc_equals_mcc_for_two_classes_and_the_formula_for_three():
    pcc, mcc = mx.metric.PCC(), mx.metric.MCC()
    pcc.update([nd(LABEL)], [nd(PRED)])
    mcc.update([nd(LABEL)], [nd(PRED)])
    assert pcc.get()[1] == pytest.approx(mcc.get()[1])
    # three classes: confusion matrix C[pred, label]
    labels = [0, 0, 1, 1, 2, 2, 2]
    preds = [0, 1, 1, 1, 2, 0, 2]
    cm = np.zeros((3, 3))
    for p, t in zip(preds, labels):
        cm[p, t] += 1
    n, x, y = cm.sum(), cm.sum(axis=1), cm.sum(axis=0)
    expect = (np.trace(cm) * n - x @ y) / math.sqrt((n * n - x @ x) * (n * n - y @ y))
    pcc = mx.metric.create("pcc")
    pcc.update([nd(labels)], [nd(np.eye(3)[preds])])
    assert pcc.get()[1] == pytest.approx(expect)
    pcc.reset()
    pcc.update([nd(labels)], [nd(preds)])             # class indices work too
    assert pcc.get()[1] == pytest.approx(expect)


def test_perplexity_with_ignore_label():
    pred = [[0.5, 0.5], [0.1, 0.9], [0.3, 0.7]]
    label = [0, 1, -1]
    p = mx.metric.Perplexity(ignore_label=-1)
    p.update([nd(label)], [nd(pred)])
    assert p.get()[1] == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.9)) / 2),
                                       rel=1e-6)
    everything = mx.metric.create("perplexity", None)
    everything.update([nd([0, 1])], [nd(pred[:2])])
    assert everything.get()[1] == pytest.approx(p.get()[1], rel=1e-6)


def test_perplexity_clips_labels_beyond_the_classes_as_mxnets_pick():
    pred = [[0.2, 0.8], [0.6, 0.4]]
    p = mx.metric.Perplexity(ignore_label=None)
    p.update([nd([2, -3])], [nd(pred)])   # 2 -> class 1, -3 -> class 0
    assert p.get()[1] == pytest.approx(math.exp(-(math.log(0.8) + math.log(0.6)) / 2), rel=1e-6)


def test_nll_loss_is_float32_exact():
    pred = nd([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    m = mx.metric.create("nll_loss")
    m.update([nd([2, 1])], [pred])
    p = pred.asnumpy()
    assert m.get() == ("nll-loss", -(np.log(p[0, 2]) + np.log(p[1, 1])) / 2)


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_pearsonr(average):
    rng = np.random.default_rng(3)
    batches = [(rng.standard_normal((4, 2)), rng.standard_normal((4, 2))) for _ in range(3)]
    m = mx.metric.create("pearsonr", average=average)
    for lab, pred in batches:
        m.update([nd(lab, "float64")], [nd(pred, "float64")])
    if average == "macro":
        expect = np.mean([np.corrcoef(p.ravel(), t.ravel())[0, 1] for t, p in batches])
    else:
        labs = np.concatenate([t.ravel() for t, _ in batches])
        preds = np.concatenate([p.ravel() for _, p in batches])
        expect = np.corrcoef(preds, labs)[0, 1]
    assert m.get()[1] == pytest.approx(expect, rel=1e-9)


def test_global_stats_survive_reset_local():
    m = mx.metric.Accuracy()
    m.update([nd([0, 1])], [nd([[1, 0], [1, 0]])])     # 1 of 2
    m.reset_local()
    m.update([nd([1])], [nd([[0, 1]])])                # 1 of 1
    assert m.get()[1] == 1.0
    assert m.get_global()[1] == pytest.approx(2 / 3)
    f1 = mx.metric.F1(average="micro")
    f1.update([nd(LABEL)], [nd(PRED)])
    f1.reset_local()
    assert math.isnan(f1.get()[1])
    assert f1.get_global()[1] == pytest.approx(2 / 3)


@pytest.mark.parametrize("name,args,kwargs", [("acc", (), {"axis": 0}), ("f1", (), {}),
                                              ("mcc", (), {"average": "micro"}),
                                              ("perplexity", (-1,), {}), ("pcc", (), {}),
                                              ("pearsonr", (), {}), ("nll_loss", (), {}),
                                              ("loss", (), {}), ("top_k_acc", (), {"top_k": 3})])
def test_config_round_trips_through_json(name, args, kwargs):
    m = mx.metric.create(name, *args, **kwargs)
    again = mx.metric.create(json.dumps(m.get_config()))
    assert type(again) is type(m) and again.get_config() == m.get_config()


def test_composite_config_and_list_form():
    comp = mx.metric.create(["acc", "f1"])
    again = mx.metric.create(json.dumps(comp.get_config()))
    assert [type(x) for x in again.metrics] == [mx.metric.Accuracy, mx.metric.F1]
    m = mx.metric.create('["mcc", {"average": "micro"}]')
    assert isinstance(m, mx.metric.MCC) and m.average == "micro"
    with pytest.raises(ValueError, match="not known"):
        mx.metric.create("nosuch")
    with pytest.raises(ValueError, match="JSON"):
        mx.metric.create("{not json")


def test_numpy_inputs_and_custom_metric():
    acc = mx.metric.Accuracy()
    acc.update([np.array([0, 1])], [np.array([[0.9, 0.1], [0.4, 0.6]])])
    assert acc.get()[1] == 1.0
    m = mx.metric.create(lambda label, pred: float(np.abs(label - pred).sum()))
    m.update([nd([1, 2])], [nd([1, 4])])
    assert m.get()[1] == 2.0 and m.name.startswith("custom(")
    with pytest.raises(NotImplementedError):
        m.get_config()


def test_np_argmax_of_an_ndarray_is_an_ndarray():
    assert isinstance(np.argmax(nd([[0, 1], [1, 0]]), axis=1), mx.nd.NDArray)
