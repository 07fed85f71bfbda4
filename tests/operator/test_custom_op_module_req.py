"""A custom op under Module: the reqs MXNet's executor passes."""
import xprof.runtime as mx
def test_module_tells_a_custom_op_null_for_its_label(recwarn):
    """MXNet's executor passes req 'null' for an input whose gradient nobody reads (a
    Module's label): the op need not assign it, and no warning says it did not."""
    seen = []

    class Head(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            seen.append(list(req))
            self.assign(in_grad[0], req[0], out_data[0] - 1)

    @mx.operator.register("req_null_head")
    class HeadProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "label"]

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Head()

    data = mx.sym.Variable("data")
    net = mx.sym.Custom(data=mx.sym.FullyConnected(data, num_hidden=3), name="head",
                        op_type="req_null_head")
    mod = mx.mod.Module(net, label_names=["head_label"])
    mod.bind(data_shapes=[("data", (2, 4))], label_shapes=[("head_label", (2,))])
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.ones((2, 4))], [mx.nd.zeros((2,))])
    mod.forward(batch, is_train=True)
    mod.backward()
    mx.nd.waitall()
    assert seen == [["write", "null"]]
    assert not [w for w in recwarn if "did not assign" in str(w.message)]
