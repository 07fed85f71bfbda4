"""Operator slices carry their input shapes when operators are profiled (``--group-by shape``)."""
import json

import xprof.runtime as mx
from click.testing import CliRunner
from xprof.mxcli.main import main

import proftools as pt


def _stats(path, *args):
    res = CliRunner().invoke(main, ["stats", str(path), "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_shapes_in_the_trace_and_group_by_shape(prof, engine):
    prof.start(profile_all=True, aggregate_stats=True)
    a, b = mx.nd.ones((20, 30)), mx.nd.ones((30, 40))
    for _ in range(3):
        mx.nd.dot(a, b)
    mx.nd.dot(mx.nd.ones((5, 30)), b) + 1
    prof.stop()
    dumps = prof.stats()
    doc = prof.finish()
    pt.check_document(doc)
    dots = [e for e in pt.events(doc, "X", cat="operator") if e["name"] == "dot"]
    assert sorted(json.dumps(e["args"]["Input Dims"]) for e in dots) == sorted(
        ["[[20, 30], [30, 40]]"] * 3 + ["[[5, 30], [30, 40]]"])
    # the default rows stay per name, in dumps() and in xprof stats alike
    assert dumps["Time"]["operator"]["dot"]["Count"] == 4
    assert _stats(prof.path)["Time"] == dumps["Time"]
    ops = _stats(prof.path, "--group-by", "shape")["Time"]["operator"]
    assert ops["dot [[20, 30], [30, 40]]"]["Count"] == 3
    assert ops["dot [[5, 30], [30, 40]]"]["Count"] == 1
    assert ops["_plus_scalar [[5, 40]]"]["Count"] == 1


def test_group_by_layer_on_gluon_layers(prof):
    net = mx.gluon.nn.Sequential()
    net.add(mx.gluon.nn.Dense(8), mx.gluon.nn.Dense(4))
    net.initialize()
    x = mx.nd.ones((2, 5))
    net(x).wait_to_read()
    prof.start(profile_all=True, aggregate_stats=True)
    net(x).wait_to_read()
    prof.finish()
    ops = _stats(prof.path, "--group-by", "op,layer")["Time"]["operator"]
    layers = sorted(n for n in ops if n.startswith("FullyConnected ("))
    assert len(layers) == 2 and layers[0] != layers[1], ops     # two layers, two rows
    by_layer = _stats(prof.path, "--group-by", "layer")["Time"]["operator"]
    assert sorted(by_layer) == sorted(n[len("FullyConnected ("):-1] for n in layers)
    shaped = _stats(prof.path, "--group-by", "shape")["Time"]["operator"]
    assert "FullyConnected [[2, 5], [8, 5], [8]]" in shaped, shaped



def test_one_input_ops_and_attrs_keep_their_shapes(prof, engine):
    """``push_op``'s one-input case (inlined) gives the same ``Input Dims`` as
    ``with_shapes``: alone, with a layer's attributes, and not on a custom operator's
    sub-operators (their events carry the dependency record only)."""
    from _util_custom import register_plus_one   # noqa: F401 - registers ObsPlusOne
    from xprof.runtime.ndarray.ndarray import restore_op_attrs, set_op_attrs
    a = mx.nd.ones((20, 30))
    prof.start(profile_all=True, aggregate_stats=True)
    mx.nd.relu(a)
    saved = set_op_attrs({"name": "layer0"})
    try:
        mx.nd.relu(a)
    finally:
        restore_op_attrs(saved)
    mx.nd.Custom(a, op_type="ObsPlusOne").wait_to_read()
    doc = prof.finish()
    pt.check_document(doc)
    relus = [{k: v for k, v in e["args"].items() if k != "dep"}
             for e in pt.events(doc, "X", cat="operator") if e["name"] == "relu"]
    assert sorted(relus, key=len) == [{"Input Dims": [[20, 30]]},
                                      {"Input Dims": [[20, 30]], "name": "layer0"}]
    subs = [e for e in pt.events(doc, "X", cat="Custom Operator")
            if e["name"] == "ObsPlusOne::CopyCPU2CPU"]
    assert len(subs) == 1 and set(subs[0]["args"]) == {"dep"}
