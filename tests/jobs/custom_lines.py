"""A training job with a custom-op layer whose Python time has a known split: the known
answers of the line sampler on real jobs (tests/cli/test_lines_real_jobs.py).

    python tests/jobs/custom_lines.py [--api gluon|hybrid|module] [--steps 12]

``Dense(64, relu) -> Split (custom op) -> Dense(10)`` with a softmax cross-entropy loss
and SGD, trained by a Gluon loop (``gluon``), the same loop hybridized (``hybrid``: the
custom op runs inside the cached graph), or ``mx.mod.Module`` (``module``: forward,
backward and update per batch). ``Split.forward`` runs a pure-Python loop
(``python_loop``) for about three parts of its time and a numpy section
(``numpy_section``) for about one; ``Split.backward`` runs ``backward_loop`` (3 ms).
``CUSTOM_LINES_MS=LOOP,NUMPY`` sets the two sections' milliseconds (default ``6,2``;
``xprof diff``'s known answer compares 6,2 with 2,6). The script
times both sections of each ``forward`` with ``perf_counter`` inside the op and prints
the truth as one JSON line: ``loop_pct``, ``numpy_pct``, ``calls``, ``back_loop_pct``.
"""
import argparse
import json
import time

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn

truth = {"loop": 0.0, "numpy": 0.0, "calls": 0, "back_loop": 0.0, "back": 0.0}
A = np.random.default_rng(1).random(20000)


def python_loop(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def numpy_section(k):
    x = A
    for _ in range(k):
        x = np.sort(A)
    return x


def backward_loop(n):
    s = 0
    for i in range(n):
        s -= i
    return s


def calibrate(fn, arg, seconds):
    best = min(_timed(fn, arg) for _ in range(3))
    return max(1, int(arg * seconds / best))


def _timed(fn, arg):
    t = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t


# the forward's two sections, in ms (xprof diff's known answer runs 6/2 against 2/6)
LOOP_MS, NUMPY_MS = (float(v) for v in
                     __import__("os").environ.get("CUSTOM_LINES_MS", "6,2").split(","))
N_LOOP = calibrate(python_loop, 20000, LOOP_MS / 1000)
N_BACKWARD = calibrate(backward_loop, 20000, 0.003)
K_NP = calibrate(numpy_section, 4, NUMPY_MS / 1000)


class Split(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        python_loop(N_LOOP)
        t1 = time.perf_counter()
        numpy_section(K_NP)
        t2 = time.perf_counter()
        truth["loop"] += t1 - t0
        truth["numpy"] += t2 - t1
        truth["calls"] += 1
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        t0 = time.perf_counter()
        backward_loop(N_BACKWARD)
        t1 = time.perf_counter()
        self.assign(in_grad[0], req[0], out_grad[0])
        truth["back_loop"] += t1 - t0
        truth["back"] += time.perf_counter() - t0


@mx.operator.register("Split")
class SplitProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return Split()


class SplitLayer(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Custom(x, op_type="Split")


def gluon_loop(x, y, steps, hybridize):
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(64, activation="relu", in_units=32, prefix="first_"))
        net.add(SplitLayer(prefix="split_"))
        net.add(nn.Dense(10, in_units=64, prefix="head_"))
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    for _ in range(steps):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        mx.nd.waitall()


def module_loop(x, y, steps):
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=64, name="first")
    net = mx.sym.Activation(net, act_type="relu", name="first_relu")
    net = mx.sym.Custom(net, op_type="Split", name="split")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="head")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    it = mx.io.NDArrayIter(x.asnumpy(), y.asnumpy(), x.shape[0])
    mod = mx.mod.Module(net, data_names=("data",), label_names=("softmax_label",))
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.01})
    batch = next(iter(it))
    for _ in range(steps):
        mod.forward(batch, is_train=True)
        mod.backward()
        mod.update()
        mx.nd.waitall()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", choices=("gluon", "hybrid", "module"), default="gluon")
    ap.add_argument("--steps", type=int, default=12)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.normal(size=(32, 32)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 10, size=32).astype(np.float32))
    if args.api == "module":
        module_loop(x, y, args.steps)
    else:
        gluon_loop(x, y, args.steps, args.api == "hybrid")
    total = truth["loop"] + truth["numpy"]
    print(json.dumps({"loop_pct": 100 * truth["loop"] / total,
                      "numpy_pct": 100 * truth["numpy"] / total, "calls": truth["calls"],
                      "back_loop_pct": 100 * truth["back_loop"] / truth["back"]}))


if __name__ == "__main__":
    main()
