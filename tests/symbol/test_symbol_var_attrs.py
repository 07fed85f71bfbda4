"""Tests of the variable attributes runtime/symbol/symbol.py sets when composing, as
MXNet 1.x does: hidden keys given to an operator (``lr_mult=``, ``wd_mult=``...) become
``__lr_mult__`` node attributes inherited by the variables created for its inputs, and a
PReLU's ``gamma`` variable starts at 0.25 unless it has its own initializer."""
import numpy as np

import xprof.runtime as mx


def test_hidden_keys_go_to_the_node_and_its_new_variables():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc_bias", lr_mult=2.0)
    fc = mx.sym.FullyConnected(data=data, bias=bias, name="fc", num_hidden=3, lr_mult=0,
                               wd_mult=0.5, ctx_group="dev1")
    attrs = fc.attr_dict()
    assert attrs["fc"]["__lr_mult__"] == "0" and attrs["fc"]["__ctx_group__"] == "dev1"
    assert attrs["fc_weight"] == {"__lr_mult__": "0", "__wd_mult__": "0.5",
                                  "__ctx_group__": "dev1"}
    assert attrs["fc_bias"] == {"__lr_mult__": "2.0"}          # given: keeps its own
    assert "lr_mult" not in attrs["fc"]
    # the graph still runs: hidden keys are not operator parameters
    ex = fc.simple_bind(mx.cpu(), data=(2, 4))
    ex.forward()
    assert ex.outputs[0].shape == (2, 3)


def test_prelu_gamma_starts_at_a_quarter():
    s = mx.sym.LeakyReLU(data=mx.sym.Variable("data"), act_type="prelu", name="act")
    init = s.attr_dict()["act_gamma"]["__init__"]
    arr = mx.nd.zeros((5,))
    mx.init.Uniform()(mx.init.InitDesc("act_gamma", {"__init__": init}), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.full(5, 0.25))
    own = mx.sym.Variable("g", init=mx.init.One())
    s = mx.sym.LeakyReLU(data=mx.sym.Variable("data"), gamma=own, act_type="prelu")
    assert s.attr_dict()["g"]["__init__"] == '["one", {}]'
