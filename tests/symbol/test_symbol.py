"""Symbols: composition, naming, listing, shape/type inference, serialization, errors."""
import numpy as np
import pytest

import xprof.runtime as mx
from symhelpers import cnn, mlp


def test_auto_created_arguments_and_outputs():
    net = mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight",
                                    "fc2_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.list_auxiliary_states() == []
    assert net.name == "softmax"
    nobias = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, no_bias=True, name="f")
    assert nobias.list_arguments() == ["x", "f_weight"]


def test_auto_names_count_per_op():
    mx.sym.symbol.reset_names()
    x = mx.sym.var("x")
    a = mx.sym.FullyConnected(x, num_hidden=2)
    b = mx.sym.FullyConnected(a, num_hidden=2)
    c = mx.sym.Activation(b, act_type="tanh")
    assert (a.name, b.name, c.name) == ("fullyconnected0", "fullyconnected1", "activation0")
    assert b.list_arguments() == ["x", "fullyconnected0_weight", "fullyconnected0_bias",
                                  "fullyconnected1_weight", "fullyconnected1_bias"]
    # a missing data input is created too, as in MXNet
    d = mx.sym.FullyConnected(num_hidden=3)
    assert d.list_arguments() == ["fullyconnected2_data", "fullyconnected2_weight",
                                  "fullyconnected2_bias"]


def test_arithmetic_uses_mxnet_operator_names():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    cases = {
        x + y: "elemwise_add", x - y: "elemwise_sub", x * y: "elemwise_mul",
        x / y: "elemwise_div", x ** y: "_power", x + 1: "_plus_scalar",
        1 + x: "_plus_scalar", x - 1: "_minus_scalar", 1 - x: "_rminus_scalar",
        x * 2: "_mul_scalar", 2 * x: "_mul_scalar", x / 2: "_div_scalar",
        2 / x: "_rdiv_scalar", x ** 2: "_power_scalar", 2 ** x: "_rpower_scalar",
        -x: "_mul_scalar", x > 0: "_greater_scalar", x == y: "_equal",
    }
    for sym, opname in cases.items():
        node = sym._outputs[0][0]
        assert node.op.name == opname
        assert sym.list_outputs() == [f"{node.name}_output"]
    with pytest.raises(TypeError):
        x + mx.nd.ones((2,))


def test_symbol_has_no_truth_value():
    x = mx.sym.var("x")
    with pytest.raises(TypeError):
        bool(x == x)


def test_infer_shape_mlp():
    arg, out, aux = mlp(hidden=7, classes=3).infer_shape(data=(5, 11))
    assert arg == [(5, 11), (7, 11), (7,), (3, 7), (3,), (5,)]
    assert out == [(5, 3)]
    assert aux == []


def test_infer_shape_cnn():
    net = cnn(filters=6, classes=4)
    arg, out, aux = net.infer_shape(data=(2, 3, 8, 10))
    shapes = dict(zip(net.list_arguments(), arg))
    assert shapes == {"data": (2, 3, 8, 10), "conv0_weight": (6, 3, 3, 3), "conv0_bias": (6,),
                      "fc0_weight": (4, 6 * 4 * 5), "fc0_bias": (4,),
                      "softmax_label": (2,)}
    assert out == [(2, 4)]
    internals = net.get_internals()
    assert "pool0_output" in internals.list_outputs()
    _, pool_out, _ = internals["pool0_output"].infer_shape(data=(2, 3, 8, 10))
    assert pool_out == [(2, 6, 4, 5)]


def test_infer_shape_positional_and_from_variable_attr():
    net = mlp()
    assert net.infer_shape((4, 2))[1] == [(4, 3)]
    x = mx.sym.var("x", shape=(3, 6))
    fc = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    assert fc.infer_shape()[0] == [(3, 6), (2, 6), (2,)]
    assert x.attr("__shape__") == "(3, 6)"


def test_infer_shape_fills_elementwise_partner():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    y = mx.sym.relu(x * w + 1)
    arg, out, _ = y.infer_shape(x=(2, 3))
    assert arg == [(2, 3), (2, 3)] and out == [(2, 3)]


def test_infer_shape_incomplete_warns_and_partial():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = mx.sym.dot(x, y)
    with pytest.warns(UserWarning, match="'y'"):
        assert z.infer_shape(x=(2, 3)) == (None, None, None)
    assert z.infer_shape_partial(x=(2, 3)) == ([(2, 3), ()], [()], [])


def test_infer_shape_errors_name_the_bad_value():
    net = mlp()
    with pytest.raises(ValueError, match="'nope'"):
        net.infer_shape(nope=(1, 2))
    with pytest.raises(ValueError, match="'abc'"):
        net.infer_shape(data="abc")
    with pytest.raises(ValueError, match="-2"):
        net.infer_shape(data=(3, -2))
    # a contradicting weight shape names the node and the shapes
    with pytest.raises(ValueError, match="fc1.*\\(7, 5\\)"):
        net.infer_shape(data=(4, 5), fc1_weight=(7, 5), fc1_bias=(3,))
    x, y = mx.sym.var("x"), mx.sym.var("y")
    with pytest.raises(ValueError, match="dot.*'d'"):
        mx.sym.dot(x, y, name="d").infer_shape(x=(2, 3), y=(4, 5))


def test_infer_type():
    x = mx.sym.var("x")
    y = mx.sym.Cast(mx.sym.FullyConnected(x, num_hidden=2, name="f"), dtype="float16")
    arg, out, aux = y.infer_type(x="float64")
    assert arg == [np.float64, np.float64, np.float64]
    assert out == [np.float16]
    with pytest.raises(ValueError, match="'nope'"):
        y.infer_type(x="nope")


def test_group_getitem_internals_children():
    x = mx.sym.var("x")
    a = mx.sym.relu(x, name="a")
    b = mx.sym.sigmoid(x, name="b")
    g = mx.sym.Group([a, b])
    assert g.list_outputs() == ["a_output", "b_output"]
    assert g.name is None and len(g) == 2
    assert g[1].name == "b" and g["a_output"].name == "a"
    with pytest.raises(ValueError, match="'c_output'"):
        g["c_output"]
    with pytest.raises(ValueError, match="group of 2"):
        mx.sym.relu(g)
    assert g.get_internals().list_outputs() == ["x", "a_output", "b_output"]
    assert a.get_children().list_outputs() == ["x"]
    assert x.get_children() is None


def test_dropout_hides_its_mask():
    d = mx.sym.Dropout(mx.sym.var("x"), p=0.3, name="drop")
    assert d.list_outputs() == ["drop_output"]
    assert d.infer_shape(x=(2, 4))[1] == [(2, 4)]


def test_attributes():
    x = mx.sym.var("x", lr_mult=2.0, dtype="float16", attr={"mood": "calm"})
    assert x.attr("__lr_mult__") == "2.0"
    assert x.attr("__dtype__") == "float16"
    assert x.attr("mood") == "calm"
    fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc", attr={"ctx_group": "dev1"})
    assert fc.attr("num_hidden") == "3" and fc.attr("ctx_group") == "dev1"
    assert fc.attr_dict()["fc"]["num_hidden"] == "3"
    with pytest.raises(ValueError, match="bad_key"):
        mx.sym.var("y", bad_key=1)


def test_composition_errors():
    x = mx.sym.var("x")
    with pytest.raises(ValueError, match="'num_hiden'"):
        mx.sym.FullyConnected(x, num_hiden=3)
    with pytest.raises(ValueError, match="'wieght'"):
        mx.sym.FullyConnected(x, wieght=mx.sym.var("w"), num_hidden=3)
    with pytest.raises(ValueError, match="int"):
        mx.sym.relu(3)
    with pytest.raises(ValueError, match="twice"):
        mx.sym.FullyConnected(x, data=x, num_hidden=3)


def test_json_round_trip(tmp_path):
    net = cnn()
    text = net.tojson()
    again = mx.sym.load_json(text)
    assert again.list_arguments() == net.list_arguments()
    assert again.list_outputs() == net.list_outputs()
    assert again.infer_shape(data=(1, 3, 6, 6)) == net.infer_shape(data=(1, 3, 6, 6))
    path = tmp_path / "net.json"
    net.save(str(path))
    assert mx.sym.load(str(path)).tojson() == text
    with pytest.raises(ValueError, match="not a symbol JSON"):
        mx.sym.load_json("{}")


def test_symbol_module_aliases():
    assert mx.symbol is mx.sym
    assert mx.sym.Variable is mx.sym.var
    assert callable(mx.sym.Convolution) and callable(mx.sym.SoftmaxOutput)
    z = mx.sym.zeros((2, 3)) + mx.sym.ones((2, 3))
    (out,) = z.eval()
    assert np.array_equal(out.asnumpy(), np.ones((2, 3), np.float32))


# -- MXNet 1.x Symbol behaviours (test_symbol.py of MXNet) ---------------------------------
def test_compose_replaces_arguments_in_a_copy():
    data = mx.sym.var("data")
    net1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=10)
    net2 = mx.sym.FullyConnected(mx.sym.Activation(mx.sym.FullyConnected(
        name="fc3", num_hidden=10), act_type="relu"), name="fc4", num_hidden=20)
    composed = net2(fc3_data=net1, name="composed")
    assert composed.name == "composed"
    assert composed.list_arguments()[:3] == ["data", "fc1_weight", "fc1_bias"]
    assert "fc3_data" in net2.list_arguments()          # the original is unchanged
    with pytest.raises(ValueError, match="not an argument"):
        net2(nope=net1)


def test_get_children_of_groups_and_variables():
    data = mx.sym.var("data")
    fc2 = mx.sym.FullyConnected(mx.sym.FullyConnected(data, name="fc1", num_hidden=10),
                                name="fc2", num_hidden=100)
    assert fc2.get_children().list_outputs() == ["fc1_output", "fc2_weight", "fc2_bias"]
    assert fc2.get_children().get_children().list_outputs() == ["data", "fc1_weight",
                                                                "fc1_bias"]
    assert fc2.get_children()["fc2_weight"].get_children() is None
    sliced = mx.sym.SliceChannel(data, num_outputs=3, name="slice")
    assert sliced.get_children().list_outputs() == ["data"]


def test_pickle_bool_and_partial_type_inference():
    import pickle
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(
        mx.sym.Cast(mx.sym.var("data"), dtype="float32"), name="fc1", num_hidden=4),
        name="softmax")
    assert pickle.loads(pickle.dumps(net)).tojson() == net.tojson()
    with pytest.raises(mx.base.NotImplementedForSymbol):
        bool(net)
    args, outs, _ = net.infer_type_partial()
    assert args == [None, np.float32, np.float32, np.float32] and outs == [np.float32]
    assert net.infer_type() == (None, None, None)


def test_tojson_marks_numpy_shape_semantics_as_mxnet_1_6_does():
    import json

    net = mx.sym.FullyConnected(mx.sym.var("data"), mx.sym.var("weight", shape=(8, 0)),
                                num_hidden=8)
    assert "is_np_shape" not in json.loads(net.tojson())["attrs"]
    with mx.util.np_shape(True):
        attrs = json.loads(net.tojson())["attrs"]
    assert attrs["is_np_shape"] == ["int", 1] and attrs["mxnet_version"] == ["int", 10900]
    loaded = mx.sym.load_json(net.tojson())
    args, outs, _ = loaded.infer_shape(data=(2, 5))
    assert args == [(2, 5), (8, 5), (8,)] and outs == [(2, 8)]


def test_gen_atomic_symbol_is_the_operator_on_fresh_inputs():
    rnn = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("param"), mx.sym.var("h0"), mx.sym.var("h1"),
                     state_size=10, num_layers=2, bidirectional=True, state_outputs=True,
                     mode="lstm", name="lstm")
    atomic = rnn._gen_atomic_symbol()
    assert len(atomic.list_outputs()) == 3
    assert [a.split("_", 1)[1] for a in atomic.list_arguments()] == [
        "data", "parameters", "state", "state_cell"]
    assert "data" not in atomic.list_arguments()
    (node, _), = {id(n): (n, i) for n, i in atomic._outputs}.values()
    assert node.params == rnn._outputs[0][0].params
    with pytest.raises(ValueError, match="'x' is a variable"):
        mx.sym.var("x")._gen_atomic_symbol()
    with pytest.raises(ValueError, match="2 nodes"):
        mx.sym.Group([mx.sym.var("a") + 1, mx.sym.var("b") * 2])._gen_atomic_symbol()
