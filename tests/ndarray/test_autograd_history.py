"""autograd.get_symbol (the recorded history as a Symbol that computes the same values)
and NDArray._fresh_grad (set by backward for the variables it wrote)."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd

nd = mx.nd


def test_get_symbol_rebuilds_the_recorded_computation():
    x, z = nd.array([1.5, -2.0]), nd.array([0.5, 3.0])
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        y = nd.relu(x * x + 2 * z - 1) + nd.sum(x)
    sym = autograd.get_symbol(y)
    assert sym.list_arguments() == ["var0", "var1"]   # x, then z: as the history reads them
    import json
    ops = [n["op"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["broadcast_mul", "_mul_scalar", "broadcast_add", "_minus_scalar", "relu",
                   "sum", "broadcast_add"]
    out = sym.bind(mx.cpu(), {"var0": x, "var1": z}).forward()[0].asnumpy()
    xs, zs = x.asnumpy(), z.asnumpy()
    np.testing.assert_allclose(out, np.maximum(xs * xs + 2 * zs - 1, 0) + xs.sum(),
                               rtol=1e-6)
    with autograd.record():
        w = x * x + 2 * x
    assert len(autograd.get_symbol(w).list_arguments()) == 1
    with pytest.raises(ValueError, match="not computed inside autograd.record"):
        autograd.get_symbol(nd.ones((1,)))


def test_fresh_grad_marks_only_the_variables_backward_wrote():
    x, y = nd.ones((2, 2)), nd.ones((2, 2))
    dx, dy = nd.zeros((2, 2)), nd.zeros((2, 2))
    autograd.mark_variables([x, y], [dx, dy])
    assert not x._fresh_grad and not y._fresh_grad
    with autograd.record():
        (x.detach() + 2 + y).backward()
    assert y._fresh_grad and not x._fresh_grad
    assert not dx.asnumpy().any() and (dy.asnumpy() == 1).all()
    y._fresh_grad = False
    assert not y._fresh_grad
