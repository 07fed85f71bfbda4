"""Executors: bind/simple_bind, forward/backward against numpy and autograd, grad_req,
bulk on/off equivalence, argument errors."""
import numpy as np
import pytest

import xprof.runtime as mx
from symhelpers import cnn, fill, mlp, set_bulk, softmax


def numpy_mlp(v):
    """Forward and gradients of the MLP of ``mlp()`` in float64 numpy."""
    x, w1, b1, w2, b2 = (v[k].astype(np.float64) for k in
                         ("data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"))
    h = x @ w1.T + b1
    r = np.maximum(h, 0)
    z = r @ w2.T + b2
    p = softmax(z)
    dz = p.copy()
    dz[np.arange(len(z)), v["softmax_label"].astype(int)] -= 1
    dr = dz @ w2
    dh = dr * (h > 0)
    grads = {"data": dh @ w1, "fc1_weight": dh.T @ x, "fc1_bias": dh.sum(0),
             "fc2_weight": dz.T @ r, "fc2_bias": dz.sum(0),
             "softmax_label": np.zeros(len(z))}
    return p, grads


def test_mlp_forward_backward_matches_numpy(engine):
    ex = mlp().simple_bind(mx.cpu(), data=(6, 5))
    v = fill(ex)
    out = ex.forward(is_train=True)
    ex.backward()
    p, grads = numpy_mlp(v)
    np.testing.assert_allclose(out[0].asnumpy(), p, rtol=1e-5, atol=1e-6)
    for name, g in grads.items():
        np.testing.assert_allclose(ex.grad_dict[name].asnumpy(), g, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def autograd_reference(v, net_fn):
    """Run the same net imperatively under autograd; return (output, grads by name)."""
    arrays = {k: mx.nd.array(a) for k, a in v.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        out = net_fn(arrays)
    out.backward()
    return out.asnumpy(), {k: a.grad.asnumpy() for k, a in arrays.items()}


def imperative_cnn(a):
    c = mx.nd.Convolution(a["data"], a["conv0_weight"], a["conv0_bias"], kernel=(3, 3),
                          num_filter=4, pad=(1, 1))
    r = mx.nd.Activation(c, act_type="relu")
    p = mx.nd.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type="max")
    f = mx.nd.Flatten(p)
    fc = mx.nd.FullyConnected(f, a["fc0_weight"], a["fc0_bias"], num_hidden=5)
    return mx.nd.SoftmaxOutput(fc, a["softmax_label"])


@pytest.mark.parametrize("bulk", [True, False])
def test_cnn_matches_autograd(clean_bulk_env, bulk):
    set_bulk(clean_bulk_env, bulk)
    ex = cnn(filters=4, classes=5).simple_bind(mx.cpu(), data=(2, 3, 6, 6))
    v = fill(ex, labels=5)
    ex.forward(is_train=True)
    ex.backward()
    out, grads = autograd_reference(v, imperative_cnn)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), out, rtol=1e-5, atol=1e-6)
    for name in ex.arg_dict:
        np.testing.assert_allclose(ex.grad_dict[name].asnumpy(), grads[name], rtol=1e-5,
                                   atol=1e-6, err_msg=name)


def test_shared_input_and_head_gradients_match_autograd():
    # x feeds three consumers; the head is not a loss, so out_grads are used
    x, w = mx.sym.var("x"), mx.sym.var("w")
    y = mx.sym.tanh(x * w) + x * 3 - mx.sym.dot(x, w, transpose_b=True).reshape((-1,)).sum()
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((3, 4)).astype(np.float32)
    wv = rng.standard_normal((3, 4)).astype(np.float32)
    og = rng.standard_normal((3, 4)).astype(np.float32)
    ex = y.bind(mx.cpu(), {"x": mx.nd.array(xv), "w": mx.nd.array(wv)},
                args_grad={"x": mx.nd.zeros((3, 4)), "w": mx.nd.zeros((3, 4))})
    ex.forward(is_train=True)
    ex.backward(mx.nd.array(og))
    xa, wa = mx.nd.array(xv), mx.nd.array(wv)
    xa.attach_grad()
    wa.attach_grad()
    with mx.autograd.record():
        ya = mx.nd.tanh(xa * wa) + xa * 3 - mx.nd.dot(xa, wa, transpose_b=True) \
            .reshape((-1,)).sum()
    ya.backward(mx.nd.array(og))
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), ya.asnumpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), xa.grad.asnumpy(), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["w"].asnumpy(), wa.grad.asnumpy(), rtol=1e-5,
                               atol=1e-5)


def test_backward_without_out_grads_uses_ones_and_softmax_ignores_them():
    x = mx.sym.var("x")
    ex = (x * x).simple_bind(mx.cpu(), x=(2, 2))
    ex.arg_dict["x"][:] = np.array([[1, 2], [3, 4]], np.float32)
    ex.forward(is_train=True)
    ex.backward(mx.nd.full((2, 2), 5.0))
    assert np.array_equal(ex.grad_dict["x"].asnumpy(), [[10, 20], [30, 40]])
    ex.backward()
    assert np.array_equal(ex.grad_dict["x"].asnumpy(), [[2, 4], [6, 8]])
    # SoftmaxOutput is a loss head: a given out_grad changes nothing
    ex2 = mlp().simple_bind(mx.cpu(), data=(3, 4))
    fill(ex2)
    ex2.forward(is_train=True)
    ex2.backward()
    g1 = ex2.grad_dict["fc1_weight"].asnumpy()
    ex2.backward(mx.nd.full((3, 3), 7.0))
    np.testing.assert_array_equal(ex2.grad_dict["fc1_weight"].asnumpy(), g1)


def test_grad_req_add_null_and_list_forms(engine):
    net = mlp()
    ex = net.simple_bind(mx.cpu(), grad_req={"fc1_weight": "add", "fc2_weight": "write"},
                         data=(4, 3))
    assert ex.grad_dict["data"] is None and ex.grad_dict["fc1_bias"] is None
    v = fill(ex)
    ex.forward(is_train=True)
    ex.backward()
    ex.forward(is_train=True)
    ex.backward()
    _, grads = numpy_mlp(v)
    np.testing.assert_allclose(ex.grad_dict["fc1_weight"].asnumpy(), 2 * grads["fc1_weight"],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["fc2_weight"].asnumpy(), grads["fc2_weight"],
                               rtol=1e-4, atol=1e-5)
    # list form and bind with explicit gradient arrays
    names = net.list_arguments()
    reqs = ["null" if n == "data" or n.endswith("label") else "add" for n in names]
    arrays = [ex.arg_dict[n] for n in names]
    grads_in = [mx.nd.ones(a.shape) for a in arrays]
    ex2 = net.bind(mx.cpu(), arrays, args_grad=grads_in, grad_req=reqs)
    ex2.forward(is_train=True)
    ex2.backward()
    np.testing.assert_allclose(ex2.grad_dict["fc2_bias"].asnumpy(), 1 + grads["fc2_bias"],
                               rtol=1e-4, atol=1e-5)
    assert ex2.grad_dict["data"] is None
    assert np.array_equal(grads_in[0].asnumpy(), np.ones(grads_in[0].shape))


def test_bulk_on_and_off_give_identical_results(clean_bulk_env):
    results = []
    for on in (True, False):
        set_bulk(clean_bulk_env, on)
        ex = cnn().simple_bind(mx.cpu(), data=(2, 3, 6, 6))
        fill(ex, seed=3, labels=5)
        ex.forward(is_train=True)
        ex.backward()
        inf = ex.forward(is_train=False)[0].asnumpy()
        results.append([inf] + [g.asnumpy() for g in ex.grad_arrays])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_forward_kwargs_copy_into_arguments():
    x = mx.sym.var("x")
    ex = (x * 2).simple_bind(mx.cpu(), x=(2,))
    assert np.array_equal(ex.forward(x=mx.nd.array([1, 2]))[0].asnumpy(), [2, 4])
    assert np.array_equal(ex.forward(x=np.array([3, 4]))[0].asnumpy(), [6, 8])
    assert np.array_equal(ex.arg_dict["x"].asnumpy(), [3, 4])
    with pytest.raises(ValueError, match="'y'"):
        ex.forward(y=mx.nd.array([1, 2]))
    with pytest.raises(ValueError, match="\\(3,\\)"):
        ex.forward(x=mx.nd.array([1, 2, 3]))


def test_outputs_are_reused_and_output_dict():
    x = mx.sym.var("x")
    ex = mx.sym.exp(x, name="e").simple_bind(mx.cpu(), x=(3,))
    first = ex.forward()[0]
    assert ex.forward()[0] is first
    assert list(ex.output_dict) == ["e_output"]


def test_dropout_training_and_inference():
    x = mx.sym.var("x")
    ex = mx.sym.Dropout(x, p=0.5, name="drop").simple_bind(mx.cpu(), x=(200,))
    ex.arg_dict["x"][:] = 1.0
    assert np.array_equal(ex.forward(is_train=False)[0].asnumpy(), np.ones(200))
    out = ex.forward(is_train=True)[0].asnumpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    ex.backward(mx.nd.ones((200,)))
    np.testing.assert_array_equal(ex.grad_dict["x"].asnumpy(), out)


def test_bind_errors_name_the_bad_value():
    net = mlp()
    ok = net.simple_bind(mx.cpu(), data=(2, 4))
    args = dict(ok.arg_dict)
    with pytest.raises(ValueError, match="'bogus'"):
        net.bind(mx.cpu(), args, bogus=1)
    with pytest.raises(ValueError, match="'fc2_bias'"):
        net.bind(mx.cpu(), {k: v for k, v in args.items() if k != "fc2_bias"})
    with pytest.warns(UserWarning, match="'extra'"):   # MXNet ignores it; a likely typo
        net.bind(mx.cpu(), dict(args, extra=mx.nd.ones((1,))))
    with pytest.raises(ValueError, match="6 arguments|has 2 item"):
        net.bind(mx.cpu(), [args["data"], args["fc1_weight"]])
    with pytest.raises(ValueError, match="'fc1_weight'.*str|str.*'fc1_weight'"):
        net.bind(mx.cpu(), dict(args, fc1_weight="oops"))
    with pytest.raises(ValueError, match="fc1.*\\(8, 9\\)"):
        net.bind(mx.cpu(), dict(args, fc1_weight=mx.nd.ones((8, 9))))
    with pytest.raises(ValueError, match="'sometimes'"):
        net.bind(mx.cpu(), args, args_grad=dict(ok.grad_dict), grad_req="sometimes")
    with pytest.raises(ValueError, match="'data2'"):
        net.simple_bind(mx.cpu(), data2=(2, 4))
    with pytest.raises(ValueError, match="'data'"):
        net.simple_bind(mx.cpu())
    with pytest.raises(ValueError, match="'banana'"):
        net.simple_bind(mx.cpu(), data=(2, 4), grad_req="banana")
    with pytest.raises(ValueError, match=r"out_grads\[0\] has shape \(5, 5\)"):
        ok.forward(is_train=True)
        ok.backward([mx.nd.ones((5, 5))] * 3)
    with pytest.raises(ValueError, match="gpu"):
        net.simple_bind(mx.gpu(), data=(2, 4))


def test_kernel_error_is_deferred_and_names_the_node(engine, clean_bulk_env):
    x = mx.sym.var("x")
    y = mx.sym.Activation(mx.sym.relu(x, name="r"), act_type="relu", name="act") * 2
    ex = y.simple_bind(mx.cpu(), x=(2,))
    # break the kernel's params after binding: the failure happens at run time
    node = [n for n in ex._order if n.name == "act"][0]
    node.params["act_type"] = "no_such_activation"
    ex._fwd.clear()
    ex._plans.clear()
    ex.forward()
    with pytest.raises(ValueError, match="no_such_activation") as info:
        ex.outputs[0].asnumpy()
    assert "act" in "".join(getattr(info.value, "__notes__", [])) + str(info.value)


def test_eval_and_group_outputs():
    x = mx.sym.var("x")
    g = mx.sym.Group([x + 1, x * 3])
    a, b = g.eval(x=mx.nd.array([1.0, 2.0]))
    assert np.array_equal(a.asnumpy(), [2, 3]) and np.array_equal(b.asnumpy(), [3, 6])


def test_monitor_names_follow_mxnet_for_unnamed_inputs_and_hidden_outputs():
    data = mx.sym.Variable("data", shape=(2, 3, 4, 4))
    seen = []
    for sym in (mx.sym.Activation(data, act_type="relu", name="act"),
                mx.sym.LRN(data, nsize=3, name="lrn"),
                mx.sym.FullyConnected(data, num_hidden=2, name="fc")):
        exe = sym.simple_bind(ctx=mx.cpu(), grad_req="null")
        exe.set_monitor_callback(lambda name, arr: seen.append(mx.base.py_str(name)),
                                 monitor_all=True)
        exe.forward()
    mx.nd.waitall()
    assert seen == ["data", "act_input0", "act_output",
                    "data", "lrn_data", "lrn_output", "lrn_tmp_norm",
                    "data", "fc_data", "fc_weight", "fc_weight", "fc_bias", "fc_bias",
                    "fc_output"]


def test_bind_reads_a_dict_by_the_symbols_names_as_mxnet_does():
    x = mx.sym.var("x")
    y = x * 2
    exe = y.bind(mx.cpu(), args={"x": mx.nd.ones((2,)), "b": None})   # None: not given
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [2, 2])
    with pytest.warns(UserWarning, match=r"args has name\(s\) the symbol does not have, "
                                         r"ignored: 'typo'; the symbol's: x"):
        exe = y.bind(mx.cpu(), args={"x": mx.nd.ones((2,)), "typo": mx.nd.ones((1,))})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [2, 2])
    with pytest.raises(ValueError, match="args is missing 'x'"), pytest.warns(UserWarning):
        y.bind(mx.cpu(), args={"typo": mx.nd.ones((1,))})


def test_backward_ignores_gradients_past_the_outputs_as_mxnet_does():
    x = mx.sym.var("x")
    exe = (x * 3).bind(mx.cpu(), args={"x": mx.nd.ones((2,))},
                       args_grad={"x": mx.nd.zeros((2,))})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2,)), mx.nd.ones((5,))])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [3, 3])
    with pytest.raises(ValueError, match="0 out_grads for 1 outputs"):
        exe.backward([])


def test_bind_reads_a_grad_req_dict_by_the_symbols_names():
    x = mx.sym.var("x")
    args = {"x": mx.nd.ones((2,))}
    grads = {"x": mx.nd.zeros((2,))}
    exe = (x * 3).bind(mx.cpu(), args=args, args_grad=grads, grad_req={"x": "write", "b": "null"})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2,))])
    np.testing.assert_array_equal(grads["x"].asnumpy(), [3, 3])
    with pytest.warns(UserWarning, match="grad_req has argument name.*ignored: 'w'; arguments: x"):
        (x * 3).bind(mx.cpu(), args=args, args_grad=grads, grad_req={"x": "write", "w": "add"})


def test_backward_leaves_unread_out_grads_unchecked_as_mxnet():
    # an op whose gradient reads no output gradient (MXNet's MakeZeroGradNodes) gets its
    # given gradient left unread: a wrong shape there is not an error, the input's
    # gradient is zeros; one its gradient reads must still match the output
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    for sym in (mx.sym.shape_array(mx.sym.var("x")), mx.sym.argmax(mx.sym.var("x"), axis=1),
                mx.sym.topk(mx.sym.var("x"), k=2, ret_typ="indices")):
        g = mx.nd.ones((2, 3))
        exe = sym.bind(mx.cpu(), args={"x": x}, args_grad={"x": g})
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((7, 7))])
        np.testing.assert_array_equal(g.asnumpy(), np.zeros((2, 3)))
    exe = mx.sym.topk(mx.sym.var("x"), k=2, ret_typ="value").bind(
        mx.cpu(), args={"x": x}, args_grad={"x": mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    with pytest.raises(ValueError, match=r"out_grads\[0\] has shape \(7, 7\)"):
        exe.backward([mx.nd.ones((7, 7))])
