"""mx.name (NameManager, Prefix), mx.AttrScope and mx.util's np_shape flag."""
import pytest

import xprof.runtime as mx


def test_name_manager_and_prefix():
    with mx.name.NameManager():
        a = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=2)
        b = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=2)
    assert (a.name, b.name) == ("fullyconnected0", "fullyconnected1")
    with mx.name.Prefix("net_"):
        c = mx.sym.Activation(mx.sym.Variable("x"), act_type="relu")
        d = mx.sym.Activation(mx.sym.Variable("x"), act_type="relu", name="act")
    assert (c.name, d.name) == ("net_activation0", "net_act")


def test_attr_scope_nests_and_reaches_json():
    with mx.AttrScope(ctx_group="dev1", group="a"):
        with mx.AttrScope(group="b"):
            v = mx.sym.Variable("v")
            y = mx.sym.relu(v)
        z = mx.sym.relu(v)
    assert v.attr("ctx_group") == "dev1" and v.attr("group") == "b"
    assert y.attr("group") == "b" and z.attr("group") == "a"
    assert mx.sym.relu(v).attr("group") is None
    assert '"ctx_group": "dev1"' in y.tojson()
    with pytest.raises(ValueError, match="must be a string"):
        mx.AttrScope(x=1)


def test_np_shape_flag_and_np_array_refused():
    assert not mx.util.is_np_shape()
    with mx.np_shape(True):
        assert mx.util.is_np_shape()
    assert not mx.util.is_np_shape()
    assert mx.util.use_np_shape(mx.util.is_np_shape)() is True
    assert not mx.util.is_np_array()
    with pytest.raises(NotImplementedError, match="mx.np"):
        mx.np.zeros((2,))
