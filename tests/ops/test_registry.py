"""An operator definition answers for itself: which kernel runs in training or inference,
its cost estimate, its gradient's cost and kernel (one answer for every push path)."""
import numpy as np
import pytest

from xprof.runtime.ops.registry import OpDef


def _double(x):
    return 2 * x


def _train(x):
    return 3 * x


def _grad(ograds, inputs, outputs, **params):
    return [2 * ograds[0], None]


def test_kernel_for_training_and_inference():
    plain = OpDef("reg_plain", _double)
    dropout_like = OpDef("reg_train", _double, train_kernel=_train)
    assert plain.kernel_for(True) is _double and plain.kernel_for(False) is _double
    assert dropout_like.kernel_for(True) is _train and dropout_like.kernel_for(False) is _double


def test_cost_estimates():
    a, b = np.zeros((2, 3)), np.zeros(4)
    default = OpDef("reg_cost0", _double)
    assert default.estimate_cost([a], {}, [(4, 5)]) == 20      # output elements
    assert default.estimate_cost([a], {}, []) == 0
    assert default.grad_cost([a, b], {}) == 10                # every input element once
    seen = []
    given = OpDef("reg_cost1", _double, cost=lambda shapes, k=1: seen.append(shapes) or 7 * k)
    assert given.estimate_cost([a], {"k": 2}, [(1,)]) == 14
    assert given.grad_cost([a], {"k": 2}) == 28               # twice the forward
    assert seen == [[(2, 3)], [(2, 3)]]                       # the cost sees input shapes


def test_grad_kernel_returns_the_needed_gradients_and_zeros_for_none():
    op = OpDef("reg_grad", _double, arg_names=("a", "b"), grad=_grad)
    og, a, b, out = np.ones(3), np.arange(3.0), np.full(3, 5.0), np.zeros(3)
    both = op.grad_kernel(1, 2, {}, (True, True))(og, a, b, out)
    assert len(both) == 2 and (both[0] == 2).all() and (both[1] == 0).all()
    only_a = op.grad_kernel(1, 2, {}, (True, False))(og, a, b, out)
    assert isinstance(only_a, np.ndarray) and (only_a == 2).all()


def test_grad_needs_receives_the_mask_and_a_wrong_count_is_an_error():
    seen = {}

    def grad(ograds, inputs, outputs, _needs):
        seen["needs"] = _needs
        return [ograds[0]]

    op = OpDef("reg_needs", _double, arg_names=("a", "b"), grad=grad, grad_needs=True)
    with pytest.raises(ValueError, match="returned 1 arrays for 2 inputs"):
        op.grad_kernel(1, 2, {}, (False, True))(np.ones(2), np.ones(2), np.ones(2),
                                                np.ones(2))
    assert seen["needs"] == (False, True)
    with pytest.raises(ValueError, match="has no gradient"):
        OpDef("reg_nograd", _double).grad_kernel(1, 1, {}, (True,))
