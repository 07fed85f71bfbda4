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


def test_np_shape_and_np_array_flags():
    assert not mx.util.is_np_shape()
    with mx.np_shape(True):
        assert mx.util.is_np_shape()
    assert not mx.util.is_np_shape()
    assert mx.util.use_np_shape(mx.util.is_np_shape)() is True
    assert not mx.util.is_np_array()
    with mx.util.np_array(True):
        assert mx.util.is_np_array()
    assert not mx.util.is_np_array()
    assert mx.util.use_np(lambda: (mx.util.is_np_array(), mx.util.is_np_shape()))() == \
        (True, True)


# -- per-thread class attributes (MXNet 1.9.1): Context.default_ctx, NameManager.current,
# AttrScope.current, and the name scope a Block's name_scope() opens ---------------------
def _in_thread(fn):
    import threading
    box = []
    t = threading.Thread(target=lambda: box.append(fn()))
    t.start()
    t.join()
    return box[0]


def test_default_ctx_is_per_thread_and_follows_with_blocks():
    from xprof.runtime.context import Context
    assert Context.default_ctx == mx.cpu(0)
    assert Context.devtype2str[Context.default_ctx.device_typeid] == "cpu"
    try:
        Context.default_ctx = mx.cpu(3)
        assert mx.current_context() == mx.cpu(3)
        assert mx.nd.zeros((1,)).context == mx.cpu(3)
        assert _in_thread(lambda: Context.default_ctx) == mx.cpu(0)
        with mx.cpu(5):
            assert Context.default_ctx == mx.cpu(5)
            Context.default_ctx = mx.cpu(6)     # until the block ends, as in MXNet
            assert mx.current_context() == mx.cpu(6)
        assert Context.default_ctx == mx.cpu(3)
    finally:
        Context.default_ctx = mx.cpu(0)


def test_name_manager_and_attr_scope_current_are_per_thread():
    from xprof.runtime.attribute import AttrScope
    from xprof.runtime.name import NameManager
    saved = NameManager.current
    try:
        NameManager.current = NameManager()
        assert NameManager.current.get(None, "main") == "main0"
        assert "main" in NameManager.current._counter

        def other():
            with NameManager():
                return "main" in NameManager.current._counter
        assert _in_thread(other) is False
        AttrScope.current = AttrScope(group="a")
        assert mx.sym.var("v").attr("group") == "a"
        assert _in_thread(lambda: AttrScope.current._attr) == {}
    finally:
        NameManager.current = saved
        AttrScope.current = None


def test_block_name_scope_prefixes_operators_named_inside_once():
    from xprof.runtime.name import NameManager
    net = mx.gluon.nn.HybridSequential(prefix="outer_")
    with net.name_scope():
        assert NameManager.current.get(None, "hello") == "outer_hello0"
        net.add(mx.gluon.nn.Dense(2, in_units=3))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3)))
    out = net(mx.sym.var("data"))
    assert out.list_arguments() == ["data", "outer_dense0_weight", "outer_dense0_bias"]
    assert out.name == "outer_dense0_fwd"
