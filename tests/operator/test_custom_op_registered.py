"""``Custom`` is a registered operator, as in MXNet's ``custom.cc``: the graph, shape
inference, symbol files, the executor and autograd treat its nodes as any op's, their
names, shapes and types answered by the registered ``CustomOpProp`` for the node's
params (``op_type`` and the user's)."""
import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd
from xprof.runtime.ops import registry


def test_custom_is_in_the_registry_with_the_prop_answering_for_a_node():
    op = registry.get("Custom")
    assert op.stateful and op.name == "Custom"
    assert "Custom" in mx.operator.get_all_registered_operators()
    params = {"op_type": "AddSub"}
    assert op.list_arguments(params) == ["lhs", "rhs"]
    assert op.list_outputs(params) == ["sum", "diff"]
    assert op.n_outputs(params) == 2 and op.list_aux(params) == []


def test_a_custom_node_is_a_node_of_the_registered_op():
    out = mx.sym.Custom(mx.sym.var("a"), mx.sym.var("b"), op_type="AddSub", name="as")
    (node,) = {id(n): n for n, _ in out._outputs}.values()
    assert node.op is registry.get("Custom")
    assert node.params == {"op_type": "AddSub"}
    assert out.list_outputs() == ["as_sum", "as_diff"]
    arg_shapes, out_shapes, _ = out.infer_shape(a=(2, 3), b=(2, 3))
    assert arg_shapes == [(2, 3), (2, 3)] and out_shapes == [(2, 3), (2, 3)]
    _, out_types, _ = out.infer_type(a="float64")
    assert out_types == [np.float64, np.float64]


def test_a_symbol_file_with_custom_nodes_loads_as_the_registered_op():
    out = mx.sym.Custom(mx.sym.var("x"), op_type="Scale", factor=3, name="s")
    back = mx.sym.load_json(out.tojson())
    (node,) = {id(n): n for n, _ in back._outputs}.values()
    assert node.op is registry.get("Custom")
    assert node.params == {"op_type": "Scale", "factor": "3"}
    ex = back.bind(mx.cpu(), {"x": mx.nd.ones((2, 2))})
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), np.full((2, 2), 3.0))
    assert "Op:Custom(Scale), Name=s" in ex.debug_str()


def test_autograd_records_a_custom_call_as_the_op_with_its_state():
    x = mx.nd.array([[1.0, -2.0]])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="MyAddOne")
    node, _ = y._ag
    assert node.op is registry.get("Custom") and node.params == {"op_type": "MyAddOne"}
    assert node.state is not None and node.backward_fn is None
    y.backward(mx.nd.array([[3.0, 4.0]]))
    np.testing.assert_allclose(x.grad.asnumpy(), [[3.0, 4.0]])
    # the recorded history shows it as a Custom node (MXNet's get_symbol does too)
    with autograd.record():
        z = mx.nd.Custom(x, op_type="MyAddOne") * 2
    sym = autograd.get_symbol(z)
    assert any(n.op is registry.get("Custom") for n, _ in
               [(c, i) for c, i in sym.get_internals()._outputs])
