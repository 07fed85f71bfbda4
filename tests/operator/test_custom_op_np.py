"""Custom operators called with ``mx.np`` arrays (MXNet 2's profiler guide): ``nd.Custom``
and ``sym.Custom`` bound with np arrays are accepted, and ``forward``/``backward``
receive arrays of the kind the op was called with; results are np arrays too."""
import numpy as onp
import pytest

import xprof.runtime as mx
from xprof.runtime import autograd, np

SEEN = []


class _AddOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        SEEN.append(("forward", type(in_data[0]), type(out_data[0])))
        self.assign(out_data[0], req[0], in_data[0] + 1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        SEEN.append(("backward", type(out_grad[0]), type(in_grad[0])))
        self.assign(in_grad[0], req[0], out_grad[0] * 3)


@mx.operator.register("NpAddOne")
class _AddOneProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, device, shapes, dtypes):
        return _AddOne()


@pytest.fixture(autouse=True)
def clear_seen():
    SEEN.clear()
    yield


def test_nd_custom_with_np_arrays(engine):
    x = np.zeros((2, 3))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="NpAddOne")
    y.backward()
    assert isinstance(y, np.ndarray) and isinstance(x.grad, np.ndarray)
    onp.testing.assert_array_equal(y.asnumpy(), onp.ones((2, 3)))
    onp.testing.assert_array_equal(x.grad.asnumpy(), 3 * onp.ones((2, 3)))
    assert [(k, a, b) for k, a, b in SEEN] == [("forward", np.ndarray, np.ndarray),
                                               ("backward", np.ndarray, np.ndarray)]


def test_sym_custom_bound_with_np_arrays(engine):
    a = mx.sym.Variable("a")
    exe = mx.sym.Custom(data=a, op_type="NpAddOne").bind(mx.cpu(), {"a": np.zeros((2, 2))})
    out = exe.forward()[0]
    assert isinstance(out, np.ndarray)
    onp.testing.assert_array_equal(out.asnumpy(), onp.ones((2, 2)))
    assert SEEN == [("forward", np.ndarray, np.ndarray)]
    legacy = mx.sym.Custom(data=a, op_type="NpAddOne").bind(mx.cpu(), {"a": mx.nd.zeros((2,))})
    assert type(legacy.forward()[0]) is mx.nd.NDArray
