"""mx.lr_scheduler: warm-up, factor, multi-factor, poly and cosine schedules."""
import math

import pytest

import xprof.runtime as mx
from xprof.runtime import lr_scheduler as ls


def test_factor_scheduler_steps_and_floors():
    s = ls.FactorScheduler(step=2, factor=0.5, stop_factor_lr=0.2, base_lr=1.0)
    assert [s(n) for n in (1, 2, 3, 5, 7, 9)] == [1.0, 1.0, 0.5, 0.25, 0.2, 0.2]
    with pytest.raises(ValueError, match="step"):
        ls.FactorScheduler(step=0)


def test_multi_factor_and_warmup():
    s = ls.MultiFactorScheduler(step=[3, 5], factor=0.1, base_lr=1.0, warmup_steps=2,
                                warmup_begin_lr=0.5)
    assert s(0) == 0.5 and s(1) == 0.75
    assert s(3) == 1.0 and s(4) == pytest.approx(0.1) and s(6) == pytest.approx(0.01)
    c = ls.LRScheduler(base_lr=1.0, warmup_steps=4, warmup_begin_lr=0.2, warmup_mode="constant")
    assert c(3) == 0.2 and c(4) == 1.0


def test_poly_and_cosine_reach_final_lr():
    p = ls.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.0)
    assert p(5) == pytest.approx(0.25) and p(10) == pytest.approx(0.0)
    c = ls.CosineScheduler(max_update=10, base_lr=1.0, final_lr=0.1)
    assert c(5) == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi / 2)) / 2)
    assert c(10) == pytest.approx(0.1) and c(20) == pytest.approx(0.1)   # stays after the end


def test_optimizer_sets_base_lr_and_asks_the_scheduler():
    s = ls.FactorScheduler(step=1, factor=0.5)
    opt = mx.optimizer.SGD(learning_rate=0.4, lr_scheduler=s)
    assert s.base_lr == 0.4
    w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
    for _ in range(3):
        opt.update(0, w, g, None)
    assert opt.learning_rate == pytest.approx(0.1)
