"""Custom operators: results, parameters, several inputs/outputs, assign, autograd,
errors and warnings (on both engines where the engine matters)."""
import traceback
import warnings

import numpy as np
import pytest

import xprof.runtime as mx

from customop_defs import MyAddOneProp, ScaleProp
from threadtools import run_in_threads


def test_add_one(engine):
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    y = mx.nd.Custom(x, op_type="MyAddOne")
    assert isinstance(y, mx.nd.NDArray) and y.shape == (2, 2)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy() + 1)
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]]), "input modified"


def test_chained_calls_and_dependencies(engine):
    x = mx.nd.zeros((3,))
    for _ in range(10):
        x = mx.nd.Custom(x, op_type="MyAddOne") * 1
    np.testing.assert_array_equal(x.asnumpy(), [10, 10, 10])


def test_kwargs_reach_prop_as_strings():
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.Custom(x, op_type="Scale", factor=3)
    np.testing.assert_array_equal(y.asnumpy(), [3, 6])
    assert {"factor": "3", "req": ""} in ScaleProp.received
    assert all(isinstance(v, str) for r in ScaleProp.received for v in r.values())
    z = mx.nd.Custom(x, op_type="Scale", factor=0.5)
    np.testing.assert_array_equal(z.asnumpy(), [0.5, 1.0])
    assert {"factor": "0.5", "req": ""} in ScaleProp.received


def test_several_inputs_and_outputs(engine):
    a = mx.nd.array([5.0, 7.0])
    b = mx.nd.array([1.0, 2.0])
    s, d = mx.nd.Custom(a, b, op_type="AddSub")
    np.testing.assert_array_equal(s.asnumpy(), [6, 9])
    np.testing.assert_array_equal(d.asnumpy(), [4, 5])
    # inputs given by argument name are ordered by list_arguments()
    s2, d2 = mx.nd.Custom(rhs=b, lhs=a, op_type="AddSub")
    np.testing.assert_array_equal(d2.asnumpy(), [4, 5])
    s3, d3 = mx.nd.Custom(a, rhs=b, op_type="AddSub")
    np.testing.assert_array_equal(d3.asnumpy(), [4, 5])


def test_out_argument(engine):
    x = mx.nd.array([1.0, 2.0])
    out = mx.nd.zeros((2,))
    r = mx.nd.Custom(x, op_type="MyAddOne", out=out)
    assert r is out
    np.testing.assert_array_equal(out.asnumpy(), [2, 3])


@pytest.mark.parametrize("req, expect", [("null", [10, 10]), ("write", [1, 2]),
                                         ("inplace", [1, 2]), ("add", [11, 12])])
def test_assign_reqs(req, expect):
    op = mx.operator.CustomOp()
    dst = mx.nd.full((2,), 10)
    op.assign(dst, req, mx.nd.array([1.0, 2.0]))
    np.testing.assert_array_equal(dst.asnumpy(), expect)
    dst2 = mx.nd.full((2,), 10)
    op.assign(dst2, req, np.array([1.0, 2.0], dtype=np.float32))   # numpy source
    np.testing.assert_array_equal(dst2.asnumpy(), expect)


def test_assign_bad_req():
    with pytest.raises(ValueError) as info:
        mx.operator.CustomOp().assign(mx.nd.zeros((1,)), "append", mx.nd.ones((1,)))
    for word in ("append", "null", "write", "inplace", "add"):
        assert word in str(info.value)


@pytest.mark.parametrize("req, expect", [("add", [12, 14]), ("write", [2, 4]),
                                         ("inplace", [2, 4])])
def test_assign_reqs_inside_forward(engine, req, expect):
    x = mx.nd.array([1.0, 2.0])
    out = mx.nd.full((2,), 10)
    mx.nd.Custom(x, op_type="Scale", factor=2, req=req, out=out)
    np.testing.assert_array_equal(out.asnumpy(), expect)


def test_req_null_inside_forward_leaves_output_and_warns(engine):
    out = mx.nd.full((2,), 10)
    with pytest.warns(RuntimeWarning, match="Scale"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="Scale", req="null", out=out)
        np.testing.assert_array_equal(out.asnumpy(), [10, 10])


def test_backward_add_one(engine):
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="MyAddOne")
        z = y * y
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (x.asnumpy() + 1))


def test_backward_sigmoid(engine):
    xv = np.array([-2.0, -0.5, 0.0, 1.5], dtype=np.float32)
    x = mx.nd.array(xv)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="MySigmoid")
    y.backward()
    s = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(y.asnumpy(), s, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), s * (1 - s), rtol=1e-5)


def test_backward_several_inputs_and_outputs(engine):
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        s, d = mx.nd.Custom(a, b, op_type="AddSub")
        loss = s * 2 + d * 3
    loss.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), [5, 5])     # 2 + 3
    np.testing.assert_array_equal(b.grad.asnumpy(), [-1, -1])   # 2 - 3


def test_no_backward_recorded_outside_record():
    x = mx.nd.ones((2,))
    x.attach_grad()
    y = mx.nd.Custom(x, op_type="MyAddOne")
    with pytest.raises(ValueError):
        y.backward()


def test_nested_custom_ops(engine):
    x = mx.nd.array([1.0, 2.0])
    np.testing.assert_array_equal(mx.nd.Custom(x, op_type="Outer").asnumpy(), [4, 6])


def test_names_like_profiler_internals_run_normally(engine):
    x = mx.nd.array([1.0])
    assert mx.nd.Custom(x, op_type="Custom").asscalar() == 2
    assert mx.nd.Custom(x, op_type="A::B").asscalar() == 2


def test_several_python_threads(engine):
    results = {}

    def work(i):
        x = mx.nd.full((4,), i)
        for _ in range(10):
            x = mx.nd.Custom(x, op_type="MyAddOne")
        results[i] = x.asnumpy()

    errors = run_in_threads(work, 4)
    assert not errors, errors
    for i in range(4):
        np.testing.assert_array_equal(results[i], [i + 10] * 4)


# -- errors ----------------------------------------------------------------------------------
def test_failing_forward_raises_at_sync_point_with_user_traceback(engine):
    x = mx.nd.ones((3,))
    y = mx.nd.Custom(x, op_type="FailingForward")   # no error yet: the call is async
    with pytest.raises(RuntimeError, match="failed on purpose") as info:
        y.asnumpy()
    tb = "".join(traceback.format_exception(info.value))
    assert "user_code_that_fails" in tb and "forward" in tb
    # ops depending on the failed output fail too; waitall reports nothing new after
    with pytest.raises(RuntimeError, match="failed on purpose"):
        (y + 1).asnumpy()
    mx.nd.waitall()
    # the engine and the custom-op pool keep working
    for _ in range(3):
        np.testing.assert_array_equal(mx.nd.Custom(x, op_type="MyAddOne").asnumpy(), [2] * 3)
    np.testing.assert_array_equal((x * 3).asnumpy(), [3] * 3)


def test_failing_forward_reported_by_waitall(engine):
    mx.nd.Custom(mx.nd.ones((2,)), op_type="FailingForward")
    with pytest.raises(RuntimeError, match="failed on purpose"):
        mx.nd.waitall()
    mx.nd.waitall()


class _WrongCountProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []   # two outputs, lists one

    def create_operator(self, ctx, shapes, dtypes):
        return mx.operator.CustomOp()


class _WrongShapeProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return [[7, 7]], [in_shape[0]], []                 # input shape does not fit

    def create_operator(self, ctx, shapes, dtypes):
        return mx.operator.CustomOp()


class _BadOutShapeProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, [["a", "b"]], []

    def create_operator(self, ctx, shapes, dtypes):
        return mx.operator.CustomOp()


@pytest.mark.parametrize("name, prop, words", [
    ("WrongCount", _WrongCountProp, ["WrongCount", "2 output", "expected"]),
    ("WrongShape", _WrongShapeProp, ["WrongShape", "(7, 7)", "(2, 3)"]),
    ("BadOutShape", _BadOutShapeProp, ["BadOutShape", "output 0"]),
])
def test_infer_shape_errors(name, prop, words):
    mx.operator.register(name)(prop)
    with pytest.raises(ValueError) as info:
        mx.nd.Custom(mx.nd.ones((2, 3)), op_type=name)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    mx.nd.waitall()


def test_wrong_number_of_inputs():
    with pytest.raises(ValueError, match="AddSub"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="AddSub")


def test_unregistered_op_type_lists_registered():
    with pytest.raises(ValueError) as info:
        mx.nd.Custom(mx.nd.ones((2,)), op_type="NoSuchOp")
    msg = str(info.value)
    assert "NoSuchOp" in msg and "MyAddOne" in msg and "MySigmoid" in msg
    with pytest.raises(ValueError, match="op_type"):
        mx.nd.Custom(mx.nd.ones((2,)))


def test_non_ndarray_input():
    with pytest.raises(ValueError, match="MyAddOne"):
        mx.nd.Custom([1.0, 2.0], op_type="MyAddOne")


def test_forward_that_never_assigns_warns(engine):
    with pytest.warns(RuntimeWarning) as record:
        mx.nd.Custom(mx.nd.ones((2,)), op_type="NeverAssigns").wait_to_read()
    msgs = [str(w.message) for w in record]
    assert any("NeverAssigns" in m and "result" in m and "write" in m for m in msgs), msgs


class _ForgetsGrad(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        pass             # never writes in_grad


class _ForgetsGradProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _ForgetsGrad()


mx.operator.register("ForgetsGrad")(_ForgetsGradProp)


def test_the_never_assigned_warning_points_at_the_users_code(engine):
    """Not into runtime/operator.py: at the forward (or backward) that did not assign."""
    import customop_defs

    with pytest.warns(RuntimeWarning, match="NeverAssigns") as record:
        mx.nd.Custom(mx.nd.ones((2,)), op_type="NeverAssigns").wait_to_read()
    w = [w for w in record if "NeverAssigns" in str(w.message)][0]
    assert w.filename == customop_defs.__file__
    assert w.lineno == customop_defs.NeverAssigns.forward.__code__.co_firstlineno

    x = mx.nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="ForgetsGrad")
    with pytest.warns(RuntimeWarning, match="backward did not assign") as record:
        y.backward()
        x.grad.wait_to_read()
    w = [w for w in record if "ForgetsGrad" in str(w.message)][0]
    assert (w.filename, w.lineno) == (__file__, _ForgetsGrad.backward.__code__.co_firstlineno)


def test_register_twice_warns_and_replaces():
    class First(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return _Const(1.0)

    class Second(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return _Const(2.0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mx.operator.register("Twice")(First)
    assert mx.nd.Custom(mx.nd.zeros((1,)), op_type="Twice").asscalar() == 1
    with pytest.warns(UserWarning, match="Twice"):
        mx.operator.register("Twice")(Second)
    assert mx.nd.Custom(mx.nd.zeros((1,)), op_type="Twice").asscalar() == 2
    assert "Twice" in mx.operator.get_all_registered_operators()


class _Const(mx.operator.CustomOp):
    def __init__(self, value):
        self.value = value

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + self.value)


def test_register_bad_arguments():
    with pytest.raises(ValueError):
        mx.operator.register("")
    with pytest.raises(ValueError, match="CustomOpProp"):
        mx.operator.register("NotAProp")(int)
    assert "NotAProp" not in mx.operator.get_all_registered_operators()


def test_registered_prop_class_is_returned():
    assert mx.operator.register("MyAddOneAgain")(MyAddOneProp) is MyAddOneProp
