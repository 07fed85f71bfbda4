"""BlockGrad/stop_gradient, MakeLoss/make_loss and identity (runtime/ops/gradient_control.py)."""
import json

import numpy as np
import pytest

import xprof.runtime as mx


def test_block_grad_stops_the_gradient_in_autograd_and_the_executor():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3 + mx.nd.BlockGrad(x * 5) + mx.nd.stop_gradient(x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 3.0])
    np.testing.assert_array_equal(y.asnumpy(), [9.0, 18.0])
    v = mx.sym.Variable("v")
    ex = (v * 2 + mx.sym.BlockGrad(v * v)).simple_bind(mx.cpu(), v=(2,))
    ex.forward(is_train=True, v=mx.nd.array([1.0, 4.0]))
    ex.backward(mx.nd.ones((2,)))
    np.testing.assert_array_equal(ex.grad_dict["v"].asnumpy(), [2.0, 2.0])


@pytest.mark.parametrize("norm, expect", [("null", 0.5), ("batch", 0.25), ("valid", 1 / 6)])
def test_make_loss_gradient_is_grad_scale_normalized(norm, expect):
    v = mx.sym.Variable("v")
    loss = mx.sym.MakeLoss(v * 1, grad_scale=0.5, normalization=norm, valid_thresh=0.5)
    ex = loss.simple_bind(mx.cpu(), v=(2, 3))
    data = np.array([[1, 0, 1], [1, 0, 0]], np.float32)
    ex.forward(is_train=True, v=mx.nd.array(data))
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), data)
    ex.backward()
    np.testing.assert_allclose(ex.grad_dict["v"].asnumpy(), np.full((2, 3), expect), rtol=1e-6)


def test_make_loss_is_profiled_under_its_name(tmp_path):
    trace = tmp_path / "p.json"
    mx.profiler.set_config(filename=str(trace), profile_imperative=True)
    mx.profiler.set_state("run")
    x = mx.nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.make_loss(x * 2)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 2.0])
    np.testing.assert_array_equal(mx.nd.identity(x).asnumpy(), [1.0, 1.0])
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    names = {e.get("name") for e in json.loads(trace.read_text())["traceEvents"]}
    assert {"make_loss", "_backward_make_loss", "_copy"} <= names   # identity is _copy
