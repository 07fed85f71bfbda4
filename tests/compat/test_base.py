"""mx.base.MXNetError is a base of the errors xprof raises, which keep their Python type."""
import pytest

import xprof.runtime as mx
from xprof.runtime.base import MXNetError, as_mxnet_error


def test_sync_error_is_mxnet_error_and_value_error():
    with pytest.raises(MXNetError) as info:
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))
    assert isinstance(info.value, ValueError)
    assert "contracted dimension" in str(info.value)
    with pytest.raises(MXNetError, match="cannot be broadcast"):
        mx.nd.ones((2, 3)) + mx.nd.ones((3, 3))


class _Fails(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise KeyError("failed inside forward")


@mx.operator.register("xprof_test_fails")
class _FailsProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, in_shape, []

    def create_operator(self, ctx, shapes, dtypes):
        return _Fails()


def test_deferred_kernel_error_is_mxnet_error_at_the_sync_point():
    y = mx.nd.Custom(mx.nd.ones((2, 3)), op_type="xprof_test_fails")
    with pytest.raises(MXNetError) as info:
        y.asnumpy()
    assert isinstance(info.value, KeyError)
    mx.nd.waitall()
    assert (mx.nd.ones((2,)) + 1).asnumpy().tolist() == [2.0, 2.0]   # the engine goes on


def test_as_mxnet_error_keeps_message_traceback_and_is_made_once_per_type():
    try:
        raise KeyError("k")
    except KeyError as e:
        conv = as_mxnet_error(e)
    assert isinstance(conv, KeyError) and isinstance(conv, MXNetError)
    assert conv.args == ("k",) and conv.__traceback__ is not None
    assert type(as_mxnet_error(KeyError("x"))) is type(conv)
    assert as_mxnet_error(conv) is conv


def test_top_level_names():
    assert mx.MXNetError is MXNetError
    assert not hasattr(mx, "no_such_module")
    assert mx.runtime.Features().is_enabled("PROFILER")
    assert not mx.runtime.Features().is_enabled("CUDA")
