"""``mx.lr_scheduler``: learning rate as a function of the update count, as in MXNet 1.x.

An optimizer given ``lr_scheduler=`` asks it for the rate before each update with
``num_update`` (the largest number of updates applied to any weight) and sets its
``base_lr`` from ``learning_rate`` when created. Every scheduler may warm up first:
``warmup_steps`` updates going from ``warmup_begin_lr`` to ``base_lr`` linearly
(``warmup_mode='linear'``) or staying at ``warmup_begin_lr`` (``'constant'``).
Step schedules (factor, multi-factor) keep their position, so a schedule restarted with a
larger ``num_update`` (resuming training) catches up.
"""
import math

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]

_WARMUP_MODES = ("linear", "constant")


class LRScheduler:
    """The base: a constant ``base_lr`` after the warm-up."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        if warmup_steps < 0:
            raise ValueError(f"warmup_steps={warmup_steps!r} must be >= 0")
        if warmup_mode not in _WARMUP_MODES:
            raise ValueError(f"warmup_mode={warmup_mode!r} is not one of "
                             f"{', '.join(_WARMUP_MODES)}")
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_final_lr = base_lr
        self.warmup_mode = warmup_mode
        if warmup_begin_lr > base_lr:
            raise ValueError(f"warmup_begin_lr={warmup_begin_lr} must not exceed "
                             f"base_lr={base_lr}")

    def get_warmup_lr(self, num_update):
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        span = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        return self.base_lr


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never below
    ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(f"FactorScheduler: step={step!r} must be at least 1")
        if factor > 1.0:
            raise ValueError(f"FactorScheduler: factor={factor!r} must be at most 1 "
                             "(the rate only decreases)")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` when ``num_update`` passes each value of ``step``
    (an increasing list)."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        step = list(step)
        if not step:
            raise ValueError("MultiFactorScheduler: step must be a non-empty list")
        for i, s in enumerate(step):
            if s < 1 or (i and s <= step[i - 1]):
                raise ValueError(f"MultiFactorScheduler: step={step!r} must be increasing "
                                 "values of at least 1")
        if factor > 1.0:
            raise ValueError(f"MultiFactorScheduler: factor={factor!r} must be at most 1")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
        return self.base_lr


class _Decay(LRScheduler):
    """A rate going from ``base_lr`` to ``final_lr`` over ``max_update`` updates."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int) or max_update < 1:
            raise ValueError(f"{type(self).__name__}: max_update={max_update!r} must be a "
                             "positive integer")
        self.max_update = max_update
        self.base_lr_orig = base_lr
        self.final_lr = final_lr
        self.max_steps = max_update - warmup_steps

    def _shape(self, progress):
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = (self.final_lr
                            + (self.base_lr_orig - self.final_lr) * self._shape(progress))
        return self.base_lr


class PolyScheduler(_Decay):
    """``final_lr + (base_lr - final_lr) * (1 - progress) ** pwr``."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _shape(self, progress):
        return pow(1 - progress, self.power)


class CosineScheduler(_Decay):
    """``final_lr + (base_lr - final_lr) * (1 + cos(pi * progress)) / 2``."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _shape(self, progress):
        return (1 + math.cos(math.pi * progress)) / 2
