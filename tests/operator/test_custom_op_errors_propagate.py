"""A custom op's error reaches the caller at the next point that reads anything it
poisoned (#40.1): a custom op whose input was written by a failed op fails too (as every
other op does), so a loss op's failing ``backward`` under ``Module.fit`` surfaces in
``fit`` at the next batch, as in MXNet 1.9.1 (the gradient poisons the updated weight,
the next forward's outputs, the metric update that reads them)."""
import traceback

import numpy as np
import pytest

import xprof.runtime as mx


class _Identity(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])


@mx.operator.register("ErrIdentity")
class _IdentityProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Identity()


class _BrokenLoss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise ValueError("the loss's backward is broken")


@mx.operator.register("ErrBrokenLoss")
class _BrokenLossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _BrokenLoss()


@pytest.fixture(params=["ThreadedEngine", "NaiveEngine"])
def engine(request, on_engine):
    on_engine(request.param)
    return request.param


def _settle():
    try:   # the failed op's error is listed for the next waitall too: not the next test's
        mx.nd.waitall()
    except mx.base.MXNetError:
        pass


def test_a_custom_op_reading_a_failed_ops_output_fails_with_its_error(engine):
    bad = mx.nd.random.normal(0, -1, shape=(2,))      # scale < 0: the kernel fails
    y = mx.nd.Custom(bad, op_type="ErrIdentity")
    with pytest.raises(mx.base.MXNetError, match="non-negative standard deviation"):
        y.asnumpy()
    _settle()


def test_a_loss_ops_failing_backward_surfaces_in_module_fit(engine):
    rng = np.random.default_rng(0)
    X = rng.random((100, 5), dtype=np.float32)
    Y = rng.integers(0, 3, 100).astype(np.float32)
    fc = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3)
    out = mx.sym.Custom(fc, mx.sym.Variable("softmax_label"), op_type="ErrBrokenLoss")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["softmax_label"])
    batches = []
    with pytest.raises(mx.base.MXNetError, match="the loss's backward is broken") as info:
        mod.fit(mx.io.NDArrayIter(X, Y, batch_size=10), num_epoch=2, optimizer="sgd",
                batch_end_callback=lambda p: batches.append((p.epoch, p.nbatch)))
    assert isinstance(info.value, ValueError)
    # the first batch's metric read its own forward (no error yet); the second batch's
    # forward read the weight the failed gradient updated
    assert batches == [(0, 0)]
    # with its traceback: where the user's backward raised
    assert "in backward" in "".join(traceback.format_exception(info.value))
    _settle()
