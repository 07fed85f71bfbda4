"""Writing into an array already in the autograd graph while recording (MXNet refuses it:
the gradient would silently be routed wrong), while fresh arrays stay writable."""
import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd

nd = mx.nd


@pytest.mark.parametrize("write", [
    lambda y, x: y.__iadd__(1),
    lambda y, x: nd.relu(y, out=y),
    lambda y, x: y.__setitem__(slice(None), x),
    lambda y, x: x.__imul__(2),          # a marked variable itself
])
def test_inplace_write_into_graph_while_recording_raises(write):
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
        with pytest.raises(ValueError, match="Inplace operations"):
            write(y, x)


def test_assigning_into_an_op_input_while_recording_is_an_mxnet_error():
    # MXNet: x[1:] = v reads x and writes x, refused while recording even for a fresh x
    x = nd.zeros((3,))
    v = nd.ones((2,))
    with autograd.record():
        with pytest.raises(mx.base.MXNetError, match=r"Inplace operations \(\+=, -=, "
                           r"x\[:\]=, etc\) are not supported when recording with"):
            x[1:] = v
    np.testing.assert_allclose(x.asnumpy(), [0, 0, 0])   # refused before the push


def test_fresh_arrays_and_unrecorded_writes_still_work():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    c = x * 3          # not recorded: a constant
    c += 1
    with autograd.record():
        z = nd.zeros((2,))
        z[:] = 1       # a new array, not in the graph
        w = (z * x * c).sum()
    w.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [4.0, 7.0])
    y = x * 2          # after backward, outside record: writable again
    y += 1
    np.testing.assert_allclose(y.asnumpy(), [3.0, 5.0])
