"""Helpers shared by the symbol tests."""
import json

import numpy as np

import xprof.runtime as mx


def set_bulk(monkeypatch, on, prefix="XPROF_"):
    value = "1" if on else "0"
    monkeypatch.setenv(prefix + "EXEC_BULK_EXEC_INFERENCE", value)
    monkeypatch.setenv(prefix + "EXEC_BULK_EXEC_TRAIN", value)


class Trace:
    """Run code under the profiler and return the dumped trace's X events."""

    def __init__(self, path):
        self.path = path

    def run(self, fn, **config):
        mx.nd.waitall()
        config.setdefault("profile_all", True)
        mx.profiler.set_config(filename=str(self.path), **config)
        mx.profiler.set_state("run")
        try:
            fn()
            mx.nd.waitall()
        finally:
            mx.profiler.set_state("stop")
            mx.profiler.dump()
        with open(self.path) as f:
            doc = json.load(f)
        return [e for e in doc["traceEvents"] if e.get("ph") == "X"]


def fill(ex, seed=0, labels=None):
    """Random values in every argument (integers for ``*_label`` arguments)."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, arr in ex.arg_dict.items():
        if name.endswith("label"):
            k = labels or 3
            v = rng.integers(0, k, size=arr.shape).astype(np.float32)
        else:
            v = rng.standard_normal(arr.shape).astype(np.float32)
        arr[:] = v
        values[name] = v
    mx.nd.waitall()
    return values


def mlp(hidden=8, classes=3):
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data=data, num_hidden=hidden, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=classes, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def cnn(filters=4, classes=5):
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=filters, pad=(1, 1), name="conv0")
    a = mx.sym.Activation(c, act_type="relu", name="conv0_relu")
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool0")
    f = mx.sym.Flatten(p, name="flat0")
    fc = mx.sym.FullyConnected(f, num_hidden=classes, name="fc0")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
