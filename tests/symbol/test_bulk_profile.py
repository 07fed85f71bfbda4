"""Bulk execution and profiling of executors: segment events, node names in args,
profiler mode gating, custom operators inside symbols on both engines."""
import numpy as np
import pytest

import xprof.runtime as mx
from symhelpers import cnn, fill, set_bulk


def chain():
    x = mx.sym.var("x")
    a = mx.sym.relu(x, name="r0")
    b = mx.sym._mul_scalar(a, scalar=2.0, name="m0")
    c = mx.sym._plus_scalar(b, scalar=1.0, name="p0")
    return mx.sym.exp(c, name="e0")


def op_events(events):
    return [e for e in events if e["cat"] == "operator"]


def without_dep(args):
    """An event's args less its dependency record, which every op carries."""
    assert "dep" in args, args
    return {k: v for k, v in args.items() if k != "dep"}


def test_inference_bulk_is_one_event_listing_every_member(trace):
    ex = chain().simple_bind(mx.cpu(), x=(3,))
    events = op_events(trace.run(lambda: ex.forward()))
    assert [e["name"] for e in events] == ["[relu,_mul_scalar,_plus_scalar,exp]"]
    # one engine op: its dependency record is the segment's (reads x, writes every
    # member's output)
    assert without_dep(events[0]["args"]) == {"nodes": "r0,m0,p0,e0"}
    assert sum(v < 0 for v in events[0]["args"]["dep"][3:]) == 4


def test_bulk_off_one_event_per_op_with_node_names(trace, clean_bulk_env):
    set_bulk(clean_bulk_env, False)
    ex = chain().simple_bind(mx.cpu(), x=(3,))
    events = op_events(trace.run(lambda: ex.forward()))
    dims = {"Input Dims": [[3]]}   # with operators profiled, slices carry input shapes
    assert [(e["name"], without_dep(e["args"])) for e in events] == [
        ("relu", {"name": "r0", **dims}), ("_mul_scalar", {"name": "m0", **dims}),
        ("_plus_scalar", {"name": "p0", **dims}), ("exp", {"name": "e0", **dims})]


def test_two_convolutions_are_told_apart_without_bulk(trace, clean_bulk_env):
    clean_bulk_env.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", "0")  # MXNet alias
    x = mx.sym.var("data")
    c1 = mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, name="conv_a")
    c2 = mx.sym.Convolution(c1, kernel=(3, 3), num_filter=2, name="conv_b")
    ex = c2.simple_bind(mx.cpu(), data=(1, 1, 7, 7))
    events = op_events(trace.run(lambda: ex.forward()))
    assert [(e["name"], e["args"]["name"]) for e in events] == [
        ("Convolution", "conv_a"), ("Convolution", "conv_b")]


def test_training_segments_respect_max_node_settings(trace, clean_bulk_env):
    ex = cnn().simple_bind(mx.cpu(), data=(2, 3, 6, 6))
    fill(ex, labels=5)

    def step():
        ex.forward(is_train=True)
        ex.backward()

    events = op_events(trace.run(step))
    # defaults: 6 forward nodes and 6 backward nodes fit in one segment each (max 15)
    assert [e["name"] for e in events] == [
        "[Convolution,Activation,Pooling,Flatten,FullyConnected,SoftmaxOutput]",
        "[_backward_SoftmaxOutput,_backward_FullyConnected,_backward_Flatten,"
        "_backward_Pooling,_backward_Activation,_backward_Convolution]"]
    assert events[0]["args"]["nodes"] == "conv0,conv0_relu,pool0,flat0,fc0,softmax"
    clean_bulk_env.setenv("XPROF_EXEC_BULK_EXEC_MAX_NODE_TRAIN", "4")
    clean_bulk_env.setenv("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD", "2")
    names = [e["name"] for e in op_events(trace.run(step))]
    assert names == ["[Convolution,Activation,Pooling,Flatten]",
                     "[FullyConnected,SoftmaxOutput]",
                     "[_backward_SoftmaxOutput,_backward_FullyConnected]",
                     "[_backward_Flatten,_backward_Pooling]",
                     "[_backward_Activation,_backward_Convolution]"]
    # XPROF_ wins over MXNET_; bulk train off gives one event per op and per gradient
    clean_bulk_env.setenv("MXNET_EXEC_BULK_EXEC_TRAIN", "1")
    clean_bulk_env.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "0")
    events = op_events(trace.run(step))
    assert len(events) == 12
    assert events[6]["name"] == "_backward_SoftmaxOutput"
    assert without_dep(events[6]["args"]) == {"name": "softmax"}


def test_long_chain_names_are_never_truncated(trace):
    x = mx.sym.var("x")
    y = x
    for i in range(40):
        y = mx.sym.sigmoid(y) if i % 2 else mx.sym.tanh(y)
    ex = y.simple_bind(mx.cpu(), x=(2,))
    (event,) = op_events(trace.run(lambda: ex.forward()))
    members = event["name"][1:-1].split(",")
    assert members == ["tanh", "sigmoid"] * 20
    assert len(event["args"]["nodes"].split(",")) == 40


def test_gradient_accumulation_is_a_member(trace):
    x = mx.sym.var("x")
    y = mx.sym.exp(x, name="e") * mx.sym.sin(x, name="s")
    ex = y.simple_bind(mx.cpu(), x=(3,))

    def step():
        ex.forward(is_train=True)
        ex.backward()

    events = op_events(trace.run(step))
    assert events[1]["name"] == "[_backward_elemwise_mul,_backward_sin,_backward_exp,add_n]"
    assert events[1]["args"]["nodes"].endswith(",x")


def test_executor_ops_are_symbolic_and_nd_ops_imperative(trace):
    ex = chain().simple_bind(mx.cpu(), x=(3,))
    a = mx.nd.ones((3,))

    def work():
        ex.forward()
        (a * 5).wait_to_read()

    only_sym = trace.run(work, profile_all=False, profile_symbolic=True,
                         profile_imperative=False, profile_api=False, profile_memory=False)
    assert [e["name"] for e in only_sym] == ["[relu,_mul_scalar,_plus_scalar,exp]"]
    assert only_sym[0]["cat"] == "operator"
    only_imp = trace.run(work, profile_all=False, profile_symbolic=False,
                         profile_imperative=True, profile_api=False, profile_memory=False)
    assert [e["name"] for e in only_imp] == ["_mul_scalar"]
    both = trace.run(work, profile_all=True)
    assert {e["name"] for e in op_events(both)} == {"[relu,_mul_scalar,_plus_scalar,exp]",
                                                    "_mul_scalar"}


# -- custom operators inside symbols ---------------------------------------------------
class _Cube(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        self.assign(out_data[0], req[0], x * x * x)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x = in_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * x * x * 3)


@mx.operator.register("SymCube")
class _CubeProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Cube()


def custom_net():
    x = mx.sym.var("x")
    fc = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    c = mx.sym.Custom(data=fc, op_type="SymCube", name="cube")
    return mx.sym.sum(c * 0.5, name="total")


@pytest.mark.parametrize("bulk", [True, False])
def test_custom_node_forward_backward(engine, clean_bulk_env, bulk):
    set_bulk(clean_bulk_env, bulk)
    net = custom_net()
    assert net.list_arguments() == ["x", "fc_weight", "fc_bias"]
    assert net.infer_shape(x=(3, 5))[1] == [()] or net.infer_shape(x=(3, 5))[1] == [(1,)]
    ex = net.simple_bind(mx.cpu(), x=(3, 5))
    v = fill(ex, seed=5)
    for _ in range(2):   # the CustomOp instance is reused
        ex.forward(is_train=True)
        ex.backward()
    h = v["x"].astype(np.float64) @ v["fc_weight"].T + v["fc_bias"]
    np.testing.assert_allclose(ex.outputs[0].asnumpy().ravel(), [0.5 * (h ** 3).sum()],
                               rtol=1e-5)
    dh = 1.5 * h * h
    np.testing.assert_allclose(ex.grad_dict["fc_weight"].asnumpy(), dh.T @ v["x"],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), dh @ v["fc_weight"],
                               rtol=1e-4, atol=1e-5)


def test_custom_node_profiled_with_symbolic_only(engine, trace):
    ex = custom_net().simple_bind(mx.cpu(), x=(3, 5))
    fill(ex)

    def step():
        ex.forward(is_train=True)
        ex.backward()

    events = trace.run(step, profile_all=False, profile_symbolic=True,
                       profile_imperative=False, profile_api=False, profile_memory=False)
    names = [e["name"] for e in events]
    assert "SymCube::pure_python" in names
    assert "_backward_SymCube::pure_python" in names
    subs = [e for e in events if e["cat"] == "Custom Operator"
            and not e["name"].endswith("pure_python")]
    assert {e["name"].split("::")[0] for e in subs} == {"SymCube", "_backward_SymCube"}
    assert any(n.startswith("SymCube::broadcast_mul") for n in names)
    # the custom node splits the segments around it
    assert "FullyConnected" in names and "[_mul_scalar,sum]" in names
    # with symbolic profiling off, nothing of the executor is recorded
    events = trace.run(step, profile_all=False, profile_symbolic=False,
                       profile_imperative=True, profile_api=False, profile_memory=False)
    assert [e["name"] for e in events] == []
